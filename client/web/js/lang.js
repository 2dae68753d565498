// Which language the page speaks, and its words (README.md): the picker's choice
// (remembered in localStorage), else the first of the browser's preferred languages
// (navigator.languages) with a catalog, else English; as client/words/language.py chooses.
// Only the chosen language's catalog is fetched (lang/<tag>.json, served with the page),
// and the parts it says only once a game is on or over when it says them (`more`).

import { Catalog } from "./catalog.js";

/** The languages with a catalog, each named in its own words (the picker's options);
 * tests/client/web/catalog.test.mjs keeps it equal to the catalogs' own names. */
export const LANGUAGES = Object.freeze([
  ["en", "English"],
  ["de", "Deutsch"],
  ["es", "Español"],
  ["fr", "Français"],
  ["pl", "Polski"],
]);
export const DEFAULT = "en";
export const LANGUAGE_KEY = "family-war.language";
const TAGS = LANGUAGES.map(([tag]) => tag);

/** The language of TAGS that `tag` asks for: the same tag, else its first part ("de-AT"
 * is "de"); case, "_" or "-" do not matter. null if none. */
export function match(tag) {
  const wanted = String(tag ?? "").trim().replaceAll("_", "-").toLowerCase();
  if (!wanted) return null;
  if (TAGS.includes(wanted)) return wanted;
  const first = wanted.split("-")[0];
  return TAGS.includes(first) ? first : null;
}

/** The language to speak: `stored` (the picker's) if it has a catalog, else the first of
 * `preferred` (navigator.languages) that does, else English. */
export function choose(stored, preferred = []) {
  for (const tag of [stored, ...preferred]) {
    const found = match(tag);
    if (found !== null) return found;
  }
  return DEFAULT;
}

/** The catalog of `tag`, fetched next to the page's modules; English if it cannot be had. */
export async function load(tag, fetcher = globalThis.fetch) {
  for (const wanted of tag === DEFAULT ? [tag] : [tag, DEFAULT]) {
    try {
      const response = await fetcher(new URL(`../lang/${wanted}.json`, import.meta.url));
      if (response.ok) return new Catalog(await response.json());
    } catch {
      // offline or refused: English, else the caller says so
    }
  }
  return null;
}

/** The parts of a catalog the server sends apart, each a list of sections or of one
 * section's messages ("section.key"): server.adapters.web.compact LATER_PARTS, which
 * tests/server/adapters/test_web.py keeps equal to this. The fair-deal check's words, said
 * at a game's end, and what only a game that is on or over says (its votes, result,
 * figures, log and status line), fetched when a game is on (session.js, `held`). */
export const LATER = Object.freeze({
  check: ["check"],
  game: [
    "figures", "result", "summary", "votes", "said.begins", "said.begins_deal", "said.beats",
    "said.card_stands", "said.dealt", "said.each", "said.finish_voted", "said.game_on",
    "said.game_on_clock", "said.game_on_time_up", "said.go_to_war", "said.last_card_up",
    "said.last_one_left", "said.on_the_clock", "said.out", "said.played_again",
    "said.rematch_begins", "said.rematch_begins_deal", "said.rematch_voted", "said.returned",
    "said.set_aside", "said.short_down", "said.sits_out", "said.still_to_vote", "said.takes",
    "said.tie", "said.ties", "said.time_up", "said.time_up_war", "said.votes_split",
    "said.war_head", "said.wins_war", "status.auto", "status.away", "status.out", "status.over",
    "status.over_rematch", "status.sit_out", "status.starting_rematch", "status.turn",
    "status.turning", "status.waiting_for", "status.waiting_votes", "status.war_turn",
    "seat.final_you", "seat.not_ready", "seat.out", "seat.ready", "seat.rematch", "seat.sits_out",
    "seat.turn", "seat.voted", "table.last_card", "table.last_round", "table.last_round_won",
    "table.war_between", "where.round", "where.round_of", "where.rounds", "where.tie_break",
    "talk.draws", "talk.evening_so_far", "talk.game_draw", "talk.game_won", "talk.wins",
  ],
});

const fetched = new WeakMap(); // catalog -> {part: promise}
const settledParts = new WeakMap(); // catalog -> Set of the parts whose fetch is over

/** Whether `part` of `catalog` is in, or its fetch is over (had or not: then the catalog
 * says its keys): what waits for it need not wait longer. */
export function settled(catalog, part) {
  const messages = catalog.data.messages ?? {};
  const has = (entry) => {
    const [section, key] = entry.split(".");
    return key === undefined ? messages[section] !== undefined : messages[section]?.[key] !== undefined;
  };
  return LATER[part].every(has) || Boolean(settledParts.get(catalog)?.has(part));
}

/** Fetch `part` of `catalog` if the server sent it apart (a later part: lang/<tag>.<part>.json,
 * LATER), once; resolves when it is in, or could not be had (then the catalog says its keys). */
export function more(catalog, part, fetcher = globalThis.fetch) {
  if (settled(catalog, part)) return Promise.resolve();
  const pending = fetched.get(catalog) ?? {};
  fetched.set(catalog, pending);
  pending[part] ??= (async () => {
    try {
      const response = await fetcher(new URL(`../lang/${catalog.tag}.${part}.json`, import.meta.url));
      if (response.ok) {
        const messages = (catalog.data.messages ??= {});
        for (const [section, said] of Object.entries((await response.json()).messages ?? {})) {
          messages[section] = { ...messages[section], ...said }; // a whole section, or some of its messages
        }
      }
    } catch {
      // offline or refused: said by its keys
    }
    if (!settledParts.has(catalog)) settledParts.set(catalog, new Set());
    settledParts.get(catalog).add(part);
  })();
  return pending[part];
}

/** Said when not even the English catalog could be fetched (no catalog to say it from). */
export const NO_WORDS = "The page could not load its words; reload it to try again.";

/** The language remembered in `storage` (the picker's), or null. */
export function remembered(storage) {
  try {
    return storage?.getItem(LANGUAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

/** Remember the picker's `tag` in `storage` (quietly not, if the browser refuses). */
export function remember(storage, tag) {
  try {
    storage?.setItem(LANGUAGE_KEY, tag);
  } catch {
    // a private window or a full storage: the browser's languages decide next time
  }
}

// The attributes index.html marks for the catalog: data-t (the text), data-t-<attribute>.
const ATTRIBUTES = ["placeholder", "aria-label", "title"];

/** Fill the page's own texts from `words`: every [data-t] element's text (textContent: no
 * HTML is ever built from a catalog), the marked attributes, <html lang>, and the picker
 * (`select`, each language named in its own words). */
export function speakPage(doc, words, select) {
  doc.documentElement.lang = words.tag;
  for (const node of doc.querySelectorAll("[data-t]")) node.textContent = words.text(node.dataset.t);
  for (const attribute of ATTRIBUTES) {
    for (const node of doc.querySelectorAll(`[data-t-${attribute}]`)) {
      node.setAttribute(attribute, words.text(node.getAttribute(`data-t-${attribute}`)));
    }
  }
  if (select.options.length !== LANGUAGES.length) {
    select.replaceChildren(
      ...LANGUAGES.map(([tag, name]) => {
        const option = doc.createElement("option");
        option.value = tag;
        option.lang = tag;
        option.textContent = name;
        return option;
      }),
    );
  }
  select.value = words.tag;
}
