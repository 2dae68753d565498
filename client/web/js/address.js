// Where the page's address leads (README.md, "Links"): `#join=CODE`, `#watch=CODE`, or the
// start page with no fragment.

/** ["join" | "watch" | null, code] from a fragment such as `location.hash`. */
export function parseFragment(hash) {
  const match = /^#(join|watch)=([A-Za-z0-9-]{4,32})$/.exec(hash);
  return match ? [match[1], match[2].toUpperCase()] : [null, null];
}

/** ["join" | "watch" | null, code] from the page's own address. */
export const fragment = () => parseFragment(location.hash);

/** The address names `hash` (a reload comes back to it), with no new history entry. */
export function setHash(hash) {
  const url = new URL(location.href);
  url.hash = hash;
  history.replaceState(null, "", url.href);
}

/** What a page opened from a players' link will need next, beside its catalog: the look-up
 * of whose table it is, and the fair deal's module "Sit down" imports (its seed's
 * commitment). The remote relative's page (docs/performance.md, "The remote relative")
 * then waits for no round trip on the way to the seat; a page elsewhere fetches each when
 * it needs it (the QR code with an invitation, the fair deal's module when someone sits
 * down: on the home network a round trip costs nothing). tests/server/adapters/test_web.py
 * weighs the page with them. */
export const JOIN_NEEDS = Object.freeze(["./lookup.js", "./fair.js"]);

/** Preload (`modulepreload`, with what each imports) what the page at `hash` will need
 * next: `JOIN_NEEDS` for a players' link, else nothing. */
export function preloadNext(doc, hash) {
  if (parseFragment(hash)[0] !== "join") return;
  for (const name of JOIN_NEEDS) {
    const link = doc.createElement("link");
    link.rel = "modulepreload";
    link.href = new URL(name, import.meta.url).href;
    doc.head.append(link);
  }
}
