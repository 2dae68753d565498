// The wire's codec: @msgpack/msgpack's minified build (vendor/msgpack/, README.md), which
// index.html runs as a classic script before the modules, leaving it in
// globalThis.MessagePack. Under node (the tests, the fair-deal drivers) it is required.

const library =
  globalThis.MessagePack ??
  (await import("node:module")).createRequire(import.meta.url)("../vendor/msgpack/msgpack.min.js");

export const { Decoder, Encoder } = library;
