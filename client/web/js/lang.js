// Which language the page speaks, and its words (README.md): the picker's choice
// (remembered in localStorage), else the first of the browser's preferred languages
// (navigator.languages) with a catalog, else English; as client/words/language.py chooses.
// Only the chosen language's catalog is fetched (lang/<tag>.json, served with the page),
// and the sections it says only at a game's end when it says them (`more`).

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

const fetched = new WeakMap(); // catalog -> {section: promise}

/** Fetch `section` of `catalog` if the server sent it apart (a later section:
 * lang/<tag>.<section>.json, e.g. the fair-deal check's words), once; resolves when it is
 * in, or could not be had (then the catalog says its keys). */
export function more(catalog, section, fetcher = globalThis.fetch) {
  if (catalog.data.messages?.[section] !== undefined) return Promise.resolve();
  const pending = fetched.get(catalog) ?? {};
  fetched.set(catalog, pending);
  pending[section] ??= (async () => {
    try {
      const response = await fetcher(new URL(`../lang/${catalog.tag}.${section}.json`, import.meta.url));
      if (response.ok) Object.assign((catalog.data.messages ??= {}), (await response.json()).messages);
    } catch {
      // offline or refused: said by its keys
    }
  })();
  return pending[section];
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
