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
