// The browser's engine against the Python one: every step of every game in
// tests/vectors/engine/steps.json, the fair-deal derivation of fairness.json and the
// checker's answers in checks.json (written by `python -m tests.vectors.generate_engine`,
// never by hand).

import assert from "node:assert/strict";
import { describe as suite, test } from "node:test";

import { hmacSha256 } from "../../../client/web/js/sha256.js";
import { standings } from "../../../client/web/js/engine/game.js";
import { Pcg32, splitmix64 } from "../../../client/web/js/engine/rng.js";
import {
  FairnessError,
  checkFairDeal,
  commitment,
  dealMessage,
  deriveDeal,
  fingerprint,
  newSeed,
  parseSeed,
  rulesText,
  toHex,
} from "../../../client/web/js/engine/fairness.js";
import { makeRules } from "../../../client/web/js/engine/rules.js";
import { fingerprint as pageFingerprint, fingerprintMessage, fingerprintSymbols } from "../../../client/web/js/fingerprint.js";
import { engineVector, play } from "./_engine.mjs";

const seedsOf = (hexes) => hexes.map((h) => (h === null ? null : parseSeed(h)));

suite("the random stream", () => {
  test("PCG32's reference vector (seed 42, sequence 54)", () => {
    const stream = new Pcg32(42n, 54n);
    assert.deepEqual([0, 1, 2].map(() => stream.nextU32()), [0xa15c02b7, 0x7b47f409, 0xba1d3330]);
  });
  test("deal 0 shuffles the deck to 10 7 47 41 17 36 42 39 ... (docs/rules.md)", () => {
    const deck = [...Array(52).keys()];
    Pcg32.forDeal(0).shuffle(deck);
    assert.deepEqual(deck.slice(0, 8), [10, 7, 47, 41, 17, 36, 42, 39]);
    assert.equal(splitmix64(0n), 0xe220a8397b1dcdafn);
  });
  test("deals are 64-bit", () => {
    assert.throws(() => Pcg32.forDeal(2n ** 64n), RangeError);
    assert.throws(() => Pcg32.forDeal(-1), RangeError);
    assert.throws(() => Pcg32.forDeal(1.5), RangeError);
    assert.doesNotThrow(() => Pcg32.forDeal("18446744073709551615"));
  });
});

suite("every step of the shared games", () => {
  const { games } = engineVector("steps.json");
  test("there are games of every setting", () => {
    assert.ok(games.length >= 25);
    for (const [name, values] of Object.entries({
      players: [2, 3, 4],
      face_down: [1, 3],
      aces: ["high", "low"],
      short_war: ["lose", "last_card"],
      both_short: ["play_on", "end"],
      won_cards: ["shuffle", "fixed"],
      fixed_order: ["winner", "seat0"],
      taken_back: ["as_won", "as_laid"],
      tie_break: ["draw", "battle"],
    })) {
      for (const value of values) assert.ok(games.some((g) => g.rules[name] === value), `${name} ${value}`);
    }
  });
  for (const vector of games) {
    const name = `deal ${vector.deal} ${JSON.stringify(vector.rules)} stop ${vector.stop_at}`;
    test(name, () => {
      const { steps, game } = play(vector.rules, vector.deal, vector.stop_at);
      vector.steps.forEach((events, i) => assert.deepEqual(steps[i], events, `${name} step ${i + 1}`));
      assert.equal(steps.length, vector.steps.length);
      assert.deepEqual(game.counts, vector.counts);
      assert.deepEqual(game.standings, vector.standings);
    });
  }
});

test("standings: later out is better, the same round shares, a draw shares first", () => {
  assert.deepEqual(standings([0, 0, 0, 52], [29, 201, 29, null]), [3, 2, 3, 1]);
  assert.deepEqual(standings([19, 14, 19, 0], [null, null, null, 8]), [1, 3, 1, 4]);
  assert.deepEqual(standings([26, 26], [null, null]), [1, 1]);
});

test("rules are checked as the engine checks them", () => {
  assert.throws(() => makeRules({ players: 5 }), /players must be 2, 3 or 4, not 5/);
  assert.throws(() => makeRules({ taken_back: "shuffled" }), /taken_back must be as_won or as_laid/);
  assert.throws(() => makeRules({ colour: "red" }), /unknown rules setting 'colour'/);
  assert.equal(makeRules({}).taken_back, "as_won");
});

suite("the fair-deal derivation", () => {
  const vector = engineVector("fairness.json");
  for (const [i, d] of vector.derivations.entries()) {
    test(`derivation ${i}`, () => {
      const key = parseSeed(d.server_seed);
      const seeds = seedsOf(d.seeds);
      assert.equal(new TextDecoder().decode(rulesText(d.rules)), d.rules_text);
      const message = dealMessage(d.rules, seeds);
      assert.equal(toHex(message), d.message);
      assert.equal(toHex(hmacSha256(key, message)), d.hmac);
      assert.equal(deriveDeal(key, d.rules, seeds), BigInt(d.deal));
      assert.equal(commitment(key), d.deal_commitment);
      assert.deepEqual(seeds.map((s) => (s === null ? null : commitment(s))), d.seed_commitments);
      assert.equal(toHex(fingerprintMessage(d.game, d.deal_commitment, d.seed_commitments, d.rules)), d.fingerprint_message);
      assert.equal(fingerprint(d.game, d.deal_commitment, d.seed_commitments, d.rules), d.fingerprint);
    });
  }
  test("fingerprints", () => {
    for (const f of vector.fingerprints) assert.equal(fingerprintSymbols(parseSeed(f.digest)), f.fingerprint);
    const d = vector.derivations[0];
    assert.throws(() => fingerprint(1, "ABC", d.seed_commitments, d.rules), FairnessError);
    assert.throws(() => fingerprint(1, d.deal_commitment, ["ABC", null], d.rules), FairnessError);
    assert.throws(() => fingerprint(1, d.deal_commitment, [null], d.rules), FairnessError);
  });
  test("the page's fingerprint, hashed by crypto.subtle, is the same", async () => {
    const subtle = async (bytes) => new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
    for (const d of vector.derivations) {
      const pinned = { game: d.game, deal_commitment: d.deal_commitment, seed_commitments: d.seed_commitments, rules: d.rules };
      assert.equal(await pageFingerprint(pinned, subtle), d.fingerprint);
    }
  });
  test("refused inputs", () => {
    for (const r of vector.refused) {
      const seeds = r.seeds.map((h) => Uint8Array.from(h.match(/../g), (p) => parseInt(p, 16)));
      assert.throws(() => dealMessage(r.rules, seeds), FairnessError, JSON.stringify(r));
    }
  });
  test("a new seed is 32 random bytes", () => {
    const [a, b] = [newSeed(), newSeed()];
    assert.equal(a.length, 32);
    assert.notDeepEqual(a, b);
  });
});

suite("the fair-deal check, honest and tampered", () => {
  const vector = engineVector("checks.json");
  for (const c of vector.cases) {
    test(c.name, () => {
      const shown = vector.shown[c.shown];
      const claim = {
        rules: c.rules,
        deal_commitment: c.deal_commitment,
        server_seed: c.server_seed,
        seeds: c.seeds,
        deal: c.deal,
        seed_commitments: c.seed_commitments,
      };
      const mine = c.my_seed === null ? {} : { seat: c.my_seat, seed: parseSeed(c.my_seed) };
      const flips = shown.flips.map(([step, depth, cards]) => ({ step, depth, cards }));
      const takes = shown.takes.map(([step, seat, count, counts]) => ({ step, seat, count, counts }));
      const laid = shown.laid.map(([step, depth, counts]) => ({ step, depth, counts }));
      const wars = shown.wars.map(([step, depth, seats]) => ({ step, depth, seats }));
      const outs = shown.outs.map(([step, seat, reason]) => ({ step, seat, reason }));
      const result = checkFairDeal(claim, { flips, takes, laid, wars, outs, whole: shown.whole, end: shown.end }, mine);
      const reveal = { ...result.reveal, deal: result.reveal.deal === null ? null : String(result.reveal.deal) };
      assert.deepEqual(reveal, c.reveal);
      assert.deepEqual(result.replay, c.replay);
      assert.equal(result.ok, c.reveal.problem === null && c.replay.mismatch === null);
    });
  }
});
