// Fair deals in the browser: protocol/fairness.py in JavaScript (protocol/PROTOCOL.md,
// "Fair deals"; docs/fairness.md), and the whole check of a revealed deal.
//
// SHA-256 and HMAC-SHA256 come from the vendored fast-sha256 (../sha256.js): a page served
// over plain http from a LAN address is not a secure context and has no crypto.subtle (it
// does have crypto.getRandomValues, used by newSeed). The page imports this module only at game
// over (a dynamic import()), so the first load does not grow. Pinned to the Python by
// tests/vectors/engine/fairness.json and checks.json. What the check finds is a finding,
// {code, ...values} as protocol/fairness.py's Finding, which ../fairwords.js words in the
// viewer's language.

import { hmacSha256, sha256 } from "../sha256.js";
import { checkReplay } from "./check.js";
import { FINGERPRINT_ALPHABET, fingerprint as fingerprintOf } from "../fingerprint.js";
import { RULE_FIELDS } from "./rules.js";

export const SEED_BYTES = 32;
export const DEAL_LABEL = "family-war deal v1\u0000";
export { FINGERPRINT_ALPHABET, RULE_FIELDS };

const HEX64 = /^[0-9a-f]{64}$/;
const WORD = /^[a-z][a-z0-9_]{0,31}$/;
const ascii = (text) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));

/** A seed, a commitment or a rules map that is malformed; the message shows the value,
 * and `finding` says the same as a finding ({code, ...values}). */
export class FairnessError extends Error {
  constructor(message, finding) {
    super(message);
    this.name = "FairnessError";
    this.finding = finding;
  }
}

const show = (value) => {
  const text = typeof value === "string" ? `'${value}'` : String(value);
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
};

export const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

const notHex = (text, what, kind, seat) =>
  new FairnessError(`${what} must be 64 lowercase hex digits, not ${show(text)}`, { code: "malformed", what: kind, seat, value: show(text) });

/** The bytes of a seed written as 64 lowercase hex digits; else a FairnessError (`kind`
 * and `seat`: what its finding says it is). */
export function parseSeed(text, what = "seed", kind = "seed", seat = null) {
  if (typeof text !== "string" || !HEX64.test(text)) throw notHex(text, what, kind, seat);
  return Uint8Array.from(text.match(/../g), (pair) => parseInt(pair, 16));
}

/** `text` if it is a commitment (64 lowercase hex digits); else a FairnessError. */
export function parseCommitment(text, what = "commitment", kind = "commitment") {
  if (typeof text !== "string" || !HEX64.test(text)) throw notHex(text, what, kind, null);
  return text;
}

/** A fresh secret seed (crypto.getRandomValues: present in every context). */
export function newSeed() {
  return globalThis.crypto.getRandomValues(new Uint8Array(SEED_BYTES));
}

/** The commitment to `seed` (bytes): its SHA-256 as 64 lowercase hex digits. */
export const commitment = (seed) => toHex(sha256(seed));

function valueText(name, value) {
  if (value === null && name === "round_limit") return "none";
  if (Number.isInteger(value) && value >= 0) return String(value);
  if (typeof value === "string" && WORD.test(value)) return value;
  throw new FairnessError(`rules setting ${name} cannot be ${show(value)}`, { code: "rules_value", setting: name, value: show(value) });
}

/** The rules as the derivation reads them: "name=value\n" for every setting in order. */
export function rulesText(rules) {
  const keys = Object.keys(rules);
  const missing = RULE_FIELDS.filter((name) => !keys.includes(name));
  const extra = keys.filter((name) => !RULE_FIELDS.includes(name)).sort();
  if (missing.length || extra.length) {
    const list = (names) => "[" + names.map((n) => `'${n}'`).join(", ") + "]";
    throw new FairnessError(`rules must hold every setting: missing ${list(missing)}, extra ${list(extra)}`, { code: "rules_missing", missing, extra });
  }
  return ascii(RULE_FIELDS.map((name) => `${name}=${valueText(name, rules[name])}\n`).join(""));
}

/** The message the deal is the HMAC of (label, rules, seats: PROTOCOL.md, "Fair deals"). */
export function dealMessage(rules, seeds) {
  const text = rulesText(rules);
  if (seeds.length !== rules.players) {
    throw new FairnessError(`${seeds.length} seeds for ${rules.players} seats`, { code: "seeds_for_seats", count: seeds.length, seats: rules.players });
  }
  const parts = [ascii(DEAL_LABEL), Uint8Array.of(text.length >> 8, text.length & 255), text, Uint8Array.of(seeds.length)];
  seeds.forEach((seed, seat) => {
    if (seed === null) parts.push(Uint8Array.of(0));
    else if (seed instanceof Uint8Array && seed.length === SEED_BYTES) parts.push(Uint8Array.of(1), seed);
    else throw new FairnessError(`the seed of seat ${seat} must be ${SEED_BYTES} bytes`, { code: "seed_size", seat });
  });
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The deal (a BigInt): the first 8 bytes, big-endian, of HMAC-SHA256(serverSeed, message). */
export function deriveDeal(serverSeed, rules, seeds) {
  if (!(serverSeed instanceof Uint8Array) || serverSeed.length !== SEED_BYTES) {
    throw new FairnessError(`the server seed must be ${SEED_BYTES} bytes`, { code: "server_seed_size" });
  }
  const mac = hmacSha256(serverSeed, dealMessage(rules, seeds));
  return BigInt(`0x${toHex(mac.subarray(0, 8))}`);
}

/** What people compare aloud (fingerprint.js): of the game's number, its deal commitment,
 * every seat's commitment (null: none) and its rules; a FairnessError for a malformed one. */
export function fingerprint(game, dealCommitment, seedCommitments, rules) {
  parseCommitment(dealCommitment, "the deal commitment", "deal_commitment");
  rulesText(rules);
  try {
    return fingerprintOf({ game, deal_commitment: dealCommitment, seed_commitments: seedCommitments, rules }, sha256);
  } catch (error) {
    throw new FairnessError(error.message, { code: "malformed", what: "commitment", seat: null, value: show(seedCommitments) });
  }
}

function seatSeeds(seeds, players) {
  if (!Array.isArray(seeds) || seeds.length !== players) {
    const finding = { code: "seeds_per_seat", players: show(players), value: show(seeds) };
    throw new FairnessError(`the revealed seeds must be one per seat (${players}), not ${show(seeds)}`, finding);
  }
  return seeds.map((s, i) => (s === null ? null : parseSeed(s, `the seed of seat ${i}`, "seed", i)));
}

function seatProblem(seeds, commitments, proved) {
  if (commitments === null || commitments === undefined || commitments.length !== seeds.length) {
    return { code: "seat_commitments", count: commitments?.length ?? 0, seats: seeds.length };
  }
  for (const [seat, seed] of seeds.entries()) {
    const committed = commitments[seat];
    if (committed === null) {
      if (seed !== null) return { code: "seed_uncommitted", seat };
      continue;
    }
    if (seed === null) return { code: "seed_unused", seat };
    if (typeof committed !== "string" || commitment(seed) !== committed) return { code: "seed_mismatch", seat };
  }
  proved.push({ code: "seat_seeds" });
  return null;
}

const sameBytes = (a, b) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Check what the server revealed at game over against what it committed to (the Python
 * check_reveal): claim = {rules, deal_commitment, server_seed, seeds, deal?,
 * seed_commitments?}; mine = {seat, seed (bytes)} if this client sent one. Returns
 * {deal (BigInt or null), problem (a finding or null), proved: [findings]}; never
 * throws for hostile values.
 */
export function checkReveal(claim, mine = {}) {
  const proved = [];
  let seeds;
  let deal;
  try {
    const committed = parseCommitment(claim.deal_commitment, "the deal commitment", "deal_commitment");
    const key = parseSeed(claim.server_seed, "the server seed", "server_seed");
    if (commitment(key) !== committed) return { deal: null, problem: { code: "server_seed_mismatch" }, proved: [] };
    proved.push({ code: "server_seed" });
    seeds = seatSeeds(claim.seeds, claim.rules.players);
    deal = deriveDeal(key, claim.rules, seeds);
  } catch (error) {
    if (!(error instanceof FairnessError)) throw error;
    return { deal: null, problem: error.finding, proved };
  }
  let problem = seatProblem(seeds, claim.seed_commitments, proved);
  if (problem === null && mine.seed != null && mine.seat != null) {
    if (!sameBytes(seeds[mine.seat] ?? null, mine.seed)) problem = { code: "not_my_seed", seat: mine.seat };
    else proved.push({ code: "my_seed", seat: mine.seat });
  }
  if (problem === null && claim.deal != null) {
    if (BigInt(claim.deal) !== deal) problem = { code: "deal_mismatch", deal: String(claim.deal), derived: String(deal) };
    else proved.push({ code: "deal", deal: String(deal) });
  }
  return { deal, problem, proved };
}

/**
 * The whole check a table makes at game over: the reveal, then (if it holds) the replay of
 * the derived deal against the flips, takes and end shown (check.js). Returns {ok, reveal,
 * replay (null if the reveal failed)}.
 */
export function checkFairDeal(claim, shown, mine = {}) {
  const reveal = checkReveal(claim, mine);
  if (reveal.problem !== null) return { ok: false, reveal, replay: null };
  const replay = checkReplay(claim.rules, reveal.deal, shown);
  return { ok: replay.mismatch === null, reveal, replay };
}
