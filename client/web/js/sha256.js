// SHA-256 and HMAC-SHA256 where the page has no crypto.subtle (a page served over plain
// http from a LAN address is no secure context): fast-sha256's minified build
// (vendor/fast-sha256/, README.md), 6 KiB where @noble/hashes' modules weighed 58. It is
// a UMD script, not a module, so in the page it runs as a classic script, added here when
// first needed (the Content-Security-Policy's script-src 'self' allows it, nothing inline),
// and leaves the library in globalThis.sha256; under node (the tests) it is required.
// Imported only when needed: by fair.js where crypto.subtle is missing, and by
// engine/fairness.js, which the page imports at game over.

const SCRIPT = "../vendor/fast-sha256/sha256.min.js";

function script(url) {
  return new Promise((resolve, reject) => {
    const element = document.createElement("script");
    element.src = url;
    element.onload = resolve;
    element.onerror = () => reject(new Error(`could not load ${url}`));
    document.head.append(element);
  });
}

async function load() {
  if (globalThis.sha256?.hmac) return globalThis.sha256;
  if (typeof document === "undefined") return (await import("node:module")).createRequire(import.meta.url)(SCRIPT);
  await script(new URL(SCRIPT, import.meta.url).href);
  return globalThis.sha256;
}

const library = await load();

/** SHA-256 of `bytes` (a Uint8Array), 32 bytes. */
export const sha256 = (bytes) => library.hash(bytes);

/** HMAC-SHA256 of `message` under `key` (both Uint8Array), 32 bytes. */
export const hmacSha256 = (key, message) => library.hmac(key, message);
