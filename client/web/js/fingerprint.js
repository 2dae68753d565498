// The fingerprint of a fair game (protocol/PROTOCOL.md §10, "The fingerprint"): what a
// client pinned at the start of a game — its number, the deal commitment, every seat's
// seed commitment and the rules — hashed and written as 12 symbols people compare aloud.
// The table shows it from the start of a game, long before it loads the engine and the
// hashes: the caller gives the SHA-256 (`digest`: bytes → bytes, or a promise of them;
// crypto.subtle where the page has it, else the vendored one), engine/fairness.js gives
// it its own, and its vectors check it.

import { RULE_FIELDS } from "./engine/rules.js";

export const FINGERPRINT_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";
export const FINGERPRINT_LABEL = "family-war fingerprint v1\u0000";
const HEX64 = /^[0-9a-f]{64}$/;
const ascii = (text) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));
const fromHex = (hex) => Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));

function hex64(value, what) {
  if (typeof value !== "string" || !HEX64.test(value)) {
    throw new Error(`${what} must be 64 lowercase hex digits, not ${String(value).slice(0, 80)}`);
  }
  return fromHex(value);
}

/** The bytes the fingerprint is the SHA-256 of (the Python fingerprint_message): the
 * label, the game (4 bytes), the deal commitment (32), the rules text (2-byte length and
 * "name=value\n" for every setting), the seats (1 byte) and each seat's 0x01 and its
 * commitment, or 0x00. Throws an Error for a malformed value. */
export function fingerprintMessage(game, dealCommitment, seedCommitments, rules) {
  if (!Number.isInteger(game) || game < 1 || game >= 2 ** 32) throw new Error(`the game number cannot be ${game}`);
  const text = ascii(RULE_FIELDS.map((name) => `${name}=${rules[name] === null ? "none" : rules[name]}\n`).join(""));
  if (!Array.isArray(seedCommitments) || seedCommitments.length !== rules.players) {
    throw new Error(`not one seat commitment per seat (${rules.players})`);
  }
  const parts = [ascii(FINGERPRINT_LABEL), Uint8Array.of(game >>> 24, (game >>> 16) & 255, (game >>> 8) & 255, game & 255)];
  parts.push(hex64(dealCommitment, "the deal commitment"), Uint8Array.of(text.length >> 8, text.length & 255), text);
  parts.push(Uint8Array.of(seedCommitments.length));
  for (const committed of seedCommitments) {
    if (committed === null) parts.push(Uint8Array.of(0));
    else parts.push(Uint8Array.of(1), hex64(committed, "a seat commitment"));
  }
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A 32-byte digest as the fingerprint's symbols: mod 30**12 in base 30, "XXXX-XXXX-XXXX". */
export function fingerprintSymbols(digest) {
  let number = BigInt(`0x${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`);
  const base = BigInt(FINGERPRINT_ALPHABET.length);
  const symbols = [];
  for (let i = 0; i < 12; i += 1) {
    symbols.unshift(FINGERPRINT_ALPHABET[Number(number % base)]);
    number /= base;
  }
  const text = symbols.join("");
  return `${text.slice(0, 4)}-${text.slice(4, 8)}-${text.slice(8)}`;
}

/** The fingerprint of a pinned game ({game, deal_commitment, seed_commitments, rules}),
 * with `digest` the SHA-256 (sync or async): a promise of the symbols when it is async. */
export function fingerprint({ game, deal_commitment, seed_commitments, rules }, digest) {
  const hashed = digest(fingerprintMessage(game, deal_commitment, seed_commitments, rules));
  return hashed instanceof Promise ? hashed.then(fingerprintSymbols) : fingerprintSymbols(hashed);
}
