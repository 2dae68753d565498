// The page's catalog.js against client/words/catalog.py: every message of every language, said
// with the values tests/vectors/functions/format-<tag>.json gives it (written from the
// Python client by `python -m tests.vectors.functions`), says the same text.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { Catalog, CatalogError, YOU, card, count, named } from "../../../client/web/js/catalog.js";
import { LANGUAGES as PAGE_LANGUAGES, choose, load, match, more } from "../../../client/web/js/lang.js";
import { LANGUAGES, VECTORS, WEB, loadCatalog } from "./_vectors.mjs";

const formats = readdirSync(join(VECTORS, "functions")).filter((name) => /^format-.+\.json$/.test(name));

test("every catalog has its format vector", () => {
  const tags = readdirSync(join(WEB, "lang")).filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5));
  assert.deepEqual(formats.map((n) => n.slice(7, -5)).sort(), [...tags].sort());
  assert.deepEqual([...LANGUAGES].sort(), [...tags].sort());
});

for (const name of formats) {
  test(`every message of ${name}, as client/words/catalog.py says it`, () => {
    const vector = JSON.parse(readFileSync(join(VECTORS, "functions", name), "utf8"));
    const words = new Catalog(loadCatalog(vector.language), { strict: true });
    assert.ok(vector.cases.length > 300, `only ${vector.cases.length} cases`);
    for (const c of vector.cases) assert.equal(words.text(c.key, c.values), c.text, `${c.key} ${JSON.stringify(c.values)}`);
  });
}

test("a strict catalog throws on a gap; a lenient one says what it can", () => {
  const strict = new Catalog(loadCatalog("en"), { strict: true });
  assert.throws(() => strict.text("said.nothing_such"), CatalogError);
  assert.throws(() => strict.text("said.joined", {}), CatalogError);
  const lenient = new Catalog(loadCatalog("en"));
  assert.equal(lenient.text("said.nothing_such"), "said.nothing_such");
  assert.equal(lenient.text("said.joined", { who: named("Ben"), seat: 2 }), "Ben takes seat 2.");
});

test("card grammar and plurals differ by language", () => {
  const say = (tag, key, values) => new Catalog(loadCatalog(tag), { strict: true }).text(key, values);
  const ben = named("Ben");
  const beats = { card: card(ben, "QH"), beaten: [card(YOU, "3S")] };
  assert.match(say("en", "said.beats", beats), /^Ben's Queen beats your 3\./);
  assert.match(say("es", "said.beats", beats), /reina de Ben/);
  const cards = (tag, n) => new Catalog(loadCatalog(tag), { strict: true }).word(count("card", n));
  assert.deepEqual([1, 2, 5, 22].map((n) => cards("pl", n)), ["1 karta", "2 karty", "5 kart", "22 karty"]);
});

test("the picker's languages are the catalogs, named in their own words", () => {
  assert.deepEqual(PAGE_LANGUAGES.map(([tag]) => tag), LANGUAGES);
  for (const [tag, name] of PAGE_LANGUAGES) assert.equal(loadCatalog(tag).language.name, name, tag);
});

test("the page speaks the picked language, else the browser's first it knows, else English", () => {
  assert.equal(choose(null, ["pl-PL", "en-US"]), "pl");
  assert.equal(choose("fr", ["pl-PL"]), "fr");
  assert.equal(choose("xx", ["pt-BR", "de_AT", "es"]), "de");
  assert.equal(choose(null, ["pt-BR"]), "en");
  assert.equal(choose(null, []), "en");
  assert.equal(match("ES-es"), "es");
  assert.equal(match(""), null);
});

test("only the chosen catalog is fetched; English when it cannot be", async () => {
  const asked = [];
  const fetcher = async (url) => {
    asked.push(String(url).split("/").slice(-2).join("/"));
    if (String(url).endsWith("/pl.json")) return { ok: false };
    return { ok: true, json: async () => loadCatalog(String(url).split("/").pop().slice(0, -5)) };
  };
  assert.equal((await load("de", fetcher)).tag, "de");
  assert.deepEqual(asked, ["lang/de.json"]);
  assert.equal((await load("pl", fetcher)).tag, "en");
  assert.equal(await load("en", async () => ({ ok: false })), null);
});

test("a later section is fetched once, when it is first needed, next to the catalog", async () => {
  const full = JSON.parse(readFileSync(join(WEB, "lang", "fr.json"), "utf8"));
  const { check, ...first } = full.messages;
  const words = new Catalog({ ...full, messages: { ...first } });
  const asked = [];
  const fetcher = async (url) => {
    asked.push(url.pathname.split("/").slice(-2).join("/"));
    return { ok: true, json: async () => ({ messages: { check } }) };
  };
  assert.equal(words.text("check.deal"), "check.deal", "not there yet: said by its key");
  await Promise.all([more(words, "check", fetcher), more(words, "check", fetcher)]);
  await more(words, "check", fetcher);
  assert.deepEqual(asked, ["lang/fr.check.json"]);
  assert.equal(words.text("check.deal"), new Catalog(full).text("check.deal"));
  const offline = new Catalog({ ...full, messages: { ...first } });
  await more(offline, "check", async () => {
    throw new TypeError("offline");
  });
  assert.equal(offline.text("check.deal"), "check.deal", "offline: still its key, no throw");
});
