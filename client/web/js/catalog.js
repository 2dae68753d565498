// One language's words: a message catalog (lang/<tag>.json), as client/words/catalog.py, its
// twin (both pinned by tests/vectors/functions/format-*.json); the format is in
// docs/translating.md. Values are plain objects: person(), card(), count(), war(), said().

export const SELECTORS = ["plural", "select", "person"];
const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*|[0-9])(?::([A-Za-z_]+))?\}/g;
const FALLBACK = { it: ["it", "computer", "other"], computer: ["computer", "other"] };

export const YOU = Object.freeze({ person: "you" });
export const COMPUTER = Object.freeze({ person: "computer" });
export const IT = Object.freeze({ person: "it" });
export const named = (name) => ({ person: "name", name });
export const openSeat = (seat) => ({ person: "seat", seat });
/** A seat the room was created with for the computer, by its number: "Computer 2". */
export const numbered = (n) => ({ person: "computer_n", seat: n });
export const card = (owner, code) => ({ card: code, owner });
export const rank = (code) => ({ rank: code });
export const suit = (code) => ({ suit: code });
export const war = (depth) => ({ war: depth });
export const count = (noun, n) => ({ count: noun, n });
export const number = (value, digits = 1) => ({ number: value, digits });
/** A message to be said later or elsewhere, in whatever language reads it. */
export const said = (key, values = {}) => ({ key, values });

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const capital = (text) => text.slice(0, 1).toUpperCase() + text.slice(1);

export class CatalogError extends Error {}

export class Catalog {
  /** `data`: a parsed catalog; `strict`: throw on any gap (the tests) instead of saying
   * what can be said (the nom form, "other", the key). */
  constructor(data, { strict = false } = {}) {
    this.data = data;
    this.tag = data.language?.tag ?? "en";
    this.name = data.language?.name ?? this.tag;
    this.strict = strict;
    this.rules = new Intl.PluralRules(this.tag);
  }

  text(key, values = {}) {
    const [section, name] = key.split(".");
    const pattern = this.data.messages?.[section]?.[name];
    if (pattern === undefined) return this.fail(`${this.tag}: no message '${key}'`, key);
    return this.pattern(pattern, values, key);
  }

  say(message) {
    return this.text(message.key, message.values);
  }

  plural(n) {
    return this.rules.select(Math.abs(Number(n)));
  }

  word(value, form = "nom") {
    return this.render(value, form, "a word");
  }

  /** The rank drawn on a card's face: "Q", "10" (a German Dame: "D"). */
  label(code) {
    const label = this.words("rank")[code[0]]?.label;
    return label ?? this.fail(`no label for '${code}'`, code);
  }

  listOf(items) {
    const words = [...items];
    if (words.length <= 1) return words.join("");
    if (words.length === 2) return this.join("two", words[0], words[1]);
    let joined = this.join("end", words[words.length - 2], words[words.length - 1]);
    for (const item of words.slice(1, -2).reverse()) joined = this.join("middle", item, joined);
    return this.join("start", words[0], joined);
  }

  // --- patterns
  pattern(pattern, values, where, subject = null) {
    if (typeof pattern === "string") return this.fill(pattern, values, where);
    if (Array.isArray(pattern)) return this.pattern(this.rule(pattern, subject, where), values, where);
    if (isObject(pattern)) return this.pattern(this.select(pattern, values, where), values, where, subject);
    return this.fail(`${this.tag}: ${where}: not a pattern`, where);
  }

  rule(rules, subject, where) {
    for (const rule of rules) {
      if (!(Array.isArray(rule) && rule.length === 2)) break;
      if (subject !== null && new RegExp(rule[0], "u").test(subject)) return rule[1];
    }
    this.fail(`${this.tag}: ${where}: no rule for '${subject}'`, where);
    const last = rules[rules.length - 1];
    return Array.isArray(last) ? last[1] : "";
  }

  select(selector, values, where) {
    const kind = SELECTORS.find((k) => k in selector);
    if (kind === undefined) {
      this.fail(`${this.tag}: ${where}: a word's forms where a pattern goes`, where);
      return selector.nom ?? "";
    }
    const name = selector[kind];
    if (!(name in values) && name !== "form") {
      // (a message not said within another is in the form nom)
      this.fail(`${this.tag}: ${where}: no value for '${name}'`, where);
      return selector.other ?? "";
    }
    const value = values[name] ?? "nom";
    let choices;
    if (kind === "plural") {
      const n = counted(value);
      choices = [`=${n}`, this.plural(n)];
    } else if (kind === "select") choices = [option(value), "other"];
    else choices = FALLBACK[personCase(value)] ?? [personCase(value)];
    for (const choice of choices) if (Object.hasOwn(selector, choice)) return selector[choice];
    this.fail(`${this.tag}: ${where}: no ${kind} case '${choices[choices.length - 1]}'`, where);
    const cases = Object.entries(selector).filter(([k]) => k !== kind).map(([, v]) => v);
    return selector.other ?? cases[0] ?? "";
  }

  fill(text, values, where) {
    return text.replace(PLACEHOLDER, (whole, name, form = "nom") => {
      const key = name.slice(0, 1).toLowerCase() + name.slice(1);
      if (!(key in values)) return this.fail(`${this.tag}: ${where}: no value for {${key}}`, whole);
      const out = this.render(values[key], form, where);
      return name[0] !== name[0].toLowerCase() ? capital(out) : out;
    });
  }

  // --- values
  render(value, form, where) {
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "bigint") return String(value);
    if (Array.isArray(value)) return this.listOf(value.map((item) => this.render(item, form, where)));
    if (!isObject(value)) return this.fail(`${this.tag}: ${where}: not a value`, String(value));
    // a message within a message is told the form it was asked in, as the value "form"
    if ("key" in value) return this.text(value.key, "form" in value.values ? value.values : { ...value.values, form });
    if ("person" in value) return this.person(value, form, where);
    if ("card" in value) return this.cardOf(value, form, where);
    if ("rank" in value) return this.forms(this.words("rank")[value.rank[0]], form, {}, `rank ${value.rank}`);
    if ("suit" in value) return this.forms(this.words("suit")[value.suit.slice(-1)], form, {}, `suit ${value.suit}`);
    if ("war" in value) {
      const wars = this.words("war");
      return this.forms(wars[String(value.war)] ?? wars.other, form, { n: value.war }, `war ${value.war}`);
    }
    if ("count" in value) return this.forms(this.words("count")[value.count], form, { n: value.n }, `count of ${value.count}`);
    if ("number" in value) return this.decimal(value);
    return this.fail(`${this.tag}: ${where}: not a value`, String(value));
  }

  // Rounded half up, as client/words/catalog.py does.
  decimal({ number: x, digits }) {
    const scale = 10 ** digits;
    const scaled = Math.floor(Math.abs(x) * scale + 0.5);
    const sign = x < 0 && scaled ? "-" : "";
    const whole = Math.floor(scaled / scale);
    if (!digits) return `${sign}${whole}`;
    const part = String(scaled % scale).padStart(digits, "0");
    return `${sign}${whole}${this.data.language?.decimal ?? "."}${part}`;
  }

  words(kind) {
    return this.data.words?.[kind] ?? {};
  }

  person(value, form, where) {
    const words = this.data.words ?? {};
    if (value.person === "computer_n") return this.person(named(this.computerName(value, where)), form, where);
    const kind = value.person === "it" && !("it" in words) ? "computer" : value.person;
    const values = { name: value.name ?? "", n: value.seat ?? 0 };
    return this.forms(words[kind], form, values, `${where}: ${kind}`, value.name ?? "");
  }

  cardOf(value, form, where) {
    const patterns = this.words("card");
    // a numbered computer seat is said as a name: "la dama de Ordenador 1", "dama (Komputer 1)"
    const owner = value.owner.person === "computer_n" ? named(this.computerName(value.owner, where)) : value.owner;
    let kind = owner.person === "seat" ? "name" : owner.person;
    if (kind === "it" && !("it" in patterns)) kind = "computer";
    const entry = this.words("rank")[value.card[0]];
    const values = { rank: rank(value.card), owner, gender: entry?.gender ?? "" };
    return this.forms(patterns[kind], form, values, `${where}: card of ${kind}`, owner.name ?? "");
  }

  /** A numbered computer seat's name in this language: "Ordinateur 2" (words.computer_n). */
  computerName(value, where) {
    return this.forms(this.data.words?.computer_n, "nom", { n: value.seat ?? 0 }, `${where}: computer_n`);
  }

  /** `entry` (a pattern, or an object of forms) in `form`. */
  forms(entry, form, values, where, subject = null) {
    if (entry === undefined || entry === null) return this.fail(`${this.tag}: ${where}: missing`, "");
    if (isObject(entry) && !SELECTORS.some((k) => k in entry)) {
      let pattern = entry[form];
      if (pattern === undefined) {
        this.fail(`${this.tag}: ${where}: no form '${form}'`, "");
        pattern = entry.nom ?? "";
      }
      return this.pattern(pattern, values, where, subject);
    }
    return this.pattern(entry, values, where, subject);
  }

  join(part, first, rest) {
    const pattern = this.data.list?.[part];
    if (pattern === undefined) return this.fail(`${this.tag}: no list pattern '${part}'`, `${first}, ${rest}`);
    return this.pattern(pattern, { 0: first, 1: rest }, `list ${part}`, rest);
  }

  fail(problem, instead) {
    if (this.strict) throw new CatalogError(problem);
    return instead;
  }
}

// What a plural selector counts: a number, a count's, a list's length.
function counted(value) {
  if (Array.isArray(value)) return value.length;
  if (isObject(value) && "count" in value) return value.n;
  return typeof value === "number" || typeof value === "bigint" ? Number(value) : 0;
}

function option(value) {
  if (isObject(value) && "person" in value) return value.person;
  return typeof value === "string" || typeof value === "number" || typeof value === "bigint" ? String(value) : "";
}

// The person selector's case: a person's kind (names and open seats are "other"), or for a
// list "you" when it holds the viewer.
function personCase(value) {
  if (Array.isArray(value)) return value.some((v) => isObject(v) && v.person === "you") ? "you" : "other";
  if (isObject(value) && ["you", "computer", "it"].includes(value.person)) return value.person;
  return "other";
}
