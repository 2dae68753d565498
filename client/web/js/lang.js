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

/** The parts of a catalog the server sends apart (server.adapters.web.compact LATER_PARTS:
 * whole sections, or some messages of a section), each by a whole section of its own:
 * the page has a part when it has that section (a catalog read whole has them all). The
 * fair-deal check's words, said at a game's end, and what only a game that is on or over
 * says, fetched when a game is on (session.js, `held`). tests/server/adapters/test_web.py
 * keeps it equal to the server's parts. */
export const LATER = Object.freeze({ check: "check", game: "result" });

const fetched = new WeakMap(); // catalog -> {part: promise}
const settledParts = new WeakMap(); // catalog -> Set of the parts whose fetch is over

/** Whether `part` of `catalog` is in, or its fetch is over (had or not: then the catalog
 * says its keys): what waits for it need not wait longer. */
export function settled(catalog, part) {
  return catalog.data.messages?.[LATER[part]] !== undefined || Boolean(settledParts.get(catalog)?.has(part));
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
