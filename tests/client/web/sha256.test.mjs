// The page's SHA-256 where it has no crypto.subtle (client/web/js/sha256.js: the vendored
// fast-sha256) against node:crypto's: the FIPS 180-2 vectors, a megabyte, and every length
// around the block's edges (55 bytes: the last that pads within one 64-byte block, 56: the
// first that needs two), at 1 to 3 blocks; HMAC-SHA256 too (the fair deal's derivation),
// with keys shorter than, equal to and longer than a block.

import assert from "node:assert/strict";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { test } from "node:test";

import { hmacSha256, sha256 } from "../../../client/web/js/sha256.js";

const hex = (bytes) => Buffer.from(bytes).toString("hex");
const nodes = (bytes) => createHash("sha256").update(bytes).digest("hex");
const ascii = (text) => new TextEncoder().encode(text);

test("the FIPS 180-2 vectors: the empty input and 'abc'", () => {
  assert.equal(hex(sha256(new Uint8Array(0))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(hex(sha256(ascii("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const twoBlocks = ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
  assert.equal(hex(sha256(twoBlocks)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
});

test("a megabyte, as node:crypto hashes it", () => {
  const megabyte = new Uint8Array(randomBytes(1024 * 1024));
  assert.equal(hex(sha256(megabyte)), nodes(megabyte));
  assert.equal(hex(sha256(new Uint8Array(1_000_000).fill(0x61))), nodes(Buffer.alloc(1_000_000, 0x61)));
});

test("every length around the block's edges, random bytes, as node:crypto hashes them", () => {
  for (const edge of [55, 56, 64, 119, 120, 128, 183, 184, 192]) {
    for (let length = edge - 3; length <= edge + 3; length += 1) {
      for (let round = 0; round < 4; round += 1) {
        const bytes = new Uint8Array(randomBytes(length));
        assert.equal(hex(sha256(bytes)), nodes(bytes), `length ${length}`);
      }
    }
  }
  for (let length = 0; length <= 300; length += 1) {
    const bytes = new Uint8Array(randomBytes(length));
    assert.equal(hex(sha256(bytes)), nodes(bytes), `length ${length}`);
  }
});

test("a seed's digest leaves the seed as it was", () => {
  const seed = new Uint8Array(randomBytes(32));
  const copy = seed.slice();
  sha256(seed);
  assert.deepEqual(seed, copy);
});

test("HMAC-SHA256 as node:crypto computes it, keys of every size around a block", () => {
  for (const keyLength of [0, 1, 32, 63, 64, 65, 100]) {
    for (const length of [0, 1, 55, 56, 64, 200]) {
      const key = new Uint8Array(randomBytes(keyLength));
      const message = new Uint8Array(randomBytes(length));
      const expected = createHmac("sha256", key).update(message).digest("hex");
      assert.equal(hex(hmacSha256(key, message)), expected, `key ${keyLength}, message ${length}`);
    }
  }
});
