// The page's fair-deal check against a server changed by its host (client/web/js/fair.js,
// issue 31): what the page pins at the start of a game — the deal commitment, every seat's
// commitment, the rules — holds to the end, and a later difference fails the check at
// once; an early time_up fails; a seat whose seed was accepted cannot be said dropped.
// The messages are as the page's wire decodes them; every check is said in each language.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe as suite, test } from "node:test";

import { Catalog } from "../../../client/web/js/catalog.js";
import { Fair } from "../../../client/web/js/fair.js";
import { LANGUAGES, loadCatalog } from "./_vectors.mjs";

const sha = (text) => createHash("sha256").update(text).digest("hex");
const hash = (hex) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");
const ANN = sha("ann");
const BEN = sha("ben");
const OTHER = sha("ben, tried again");
const SERVER = sha("server");
const RULES = { players: 2, face_down: 1, aces: "high", short_war: "lose", both_short: "play_on", won_cards: "shuffle", fixed_order: "winner", taken_back: "as_won", round_limit: null, tie_break: "draw" };

const seat = (n, name, committed) => ({ seat: n, name, computer: false, connected: true, ready: false, auto: "off", out: false, count: 26, face_up: [], face_down: 0, seed_commitment: committed });
const state = (phase, { step = 0, seats = [hash(ANN), hash(BEN)], rules = RULES, minutes = null, secondsLeft = null, commitment = hash(SERVER) } = {}) => ({
  room: "r8k2fair00",
  phase,
  rules,
  seats: [seat(0, "Ann", seats[0]), seat(1, "Ben", seats[1])],
  game: 1,
  step,
  minutes,
  seconds_left: secondsLeft,
  deal: null,
  deal_commitment: commitment,
  fairness: null,
});
const welcome = (s) => ({ type: "welcome", seq: 1, seat: 0, token: "t", player_code: null, watch_code: null, state: s, addresses: [] });
const snapshot = (s) => ({ type: "snapshot", seq: 9, state: s });
const started = (seats = [hash(ANN), hash(BEN)]) => ({ type: "game_started", seq: 2, game: 1, counts: [26, 26], deal: null, deal_commitment: hash(SERVER), seed_commitments: seats });

/** `fair` with every room message given the room's next seq as it is followed: these
 * streams are about what is pinned, not about seq (the seq suite below has its own). */
function numbered(fair) {
  const follow = fair.follow.bind(fair);
  const own = new Set(["welcome", "snapshot", "error"]);
  fair.follow = (message, view) => follow(own.has(message.type) ? message : { ...message, seq: (fair.lastSeq ?? 0) + 1 }, view);
  return fair;
}

/** A page seated at seat 0 with Ann's seed, its clock at `now.t` seconds. */
function page(now = { t: 0 }) {
  const fair = new Fair();
  fair.clock = () => now.t;
  fair.seeds.set(1, ANN);
  fair.names = ["Ann", "Ben"]; // as the table shows them (the view's, in the page)
  return numbered(fair);
}

async function failedAtOnce(fair, message) {
  const check = fair.follow(message);
  assert.notEqual(check, null, "the page says it at once");
  const result = await check;
  assert.equal(result.ok, false);
  return result;
}

const english = new Catalog(loadCatalog("en"), { strict: true });

suite("the page pins a fair game at its start", () => {
  test("a seat commitment changed by a snapshot after the reveals fails at once", async () => {
    const fair = page();
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    assert.equal(fair.follow(snapshot(state("playing"))), null); // the same: nothing to say
    const result = await failedAtOnce(fair, snapshot(state("playing", { seats: [hash(ANN), hash(OTHER)] })));
    assert.equal(english.say(result.problem), "the commitment shown for Ben changed after the game started");
    assert.deepEqual(fair.game.seed_commitments, [hash(ANN), hash(BEN)], "the pin never moves");
  });

  test("a computer seat that gains a commitment later fails", async () => {
    const fair = page();
    fair.follow(welcome(state("waiting", { seats: [hash(ANN), null] })));
    fair.follow(started([hash(ANN), null]));
    const result = await failedAtOnce(fair, snapshot(state("playing", { seats: [hash(ANN), hash(OTHER)] })));
    assert.equal(english.say(result.problem), "the commitment shown for Ben changed after the game started");
  });

  test("a page that joins late pins the first state it sees", async () => {
    const fair = page();
    fair.follow(welcome(state("playing", { step: 12 })));
    assert.equal(fair.game.pinned, true);
    const result = await failedAtOnce(fair, snapshot(state("playing", { step: 14, commitment: sha("x") })));
    assert.equal(english.say(result.problem), "the server showed two different deal commitments for this game");
  });

  test("a rules change mid-game fails, and the check keeps the pinned rules", async () => {
    const fair = page();
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    const changed = { ...RULES, short_war: "last_card" };
    const result = await failedAtOnce(fair, snapshot(state("playing", { step: 3, rules: changed })));
    assert.equal(english.say(result.problem), "the rules shown changed after the game started");
    assert.equal(fair.game.rules.short_war, "lose");
  });

  test("a fair game whose seat commitments were never shown fails at game over", async () => {
    const fair = page();
    fair.follow(welcome(state("waiting")));
    fair.follow(started([]));
    const over = { type: "game_over", seq: 5, step: 0, winner: null, termination: "time_up", counts: [26, 26], summary: { rounds: 0, wars: 0, longest_war: 0, biggest_haul: 0, deal: 1n }, standings: [], fairness: { server_seed: SERVER, seeds: [ANN, BEN] } };
    const result = await fair.follow(over);
    assert.equal(result.ok, false);
    assert.equal(english.say(result.problem), "the table was not shown one seed commitment per seat");
  });

  test("the fingerprint covers the seat commitments", async () => {
    const one = page();
    one.follow(welcome(state("waiting")));
    one.follow(started());
    const two = page();
    two.follow(welcome(state("waiting")));
    two.follow(started([hash(ANN), hash(OTHER)]));
    const [a, b] = [await one.printing, await two.printing];
    assert.match(a, /^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    assert.notEqual(a, b);
    assert.equal(one.fingerprint, a);
  });
});

suite("the clock and my seed", () => {
  test("a time_up before the limit could run out fails at once; one on time does not", async () => {
    const now = { t: 100 };
    const fair = page(now);
    fair.follow(welcome(state("waiting", { minutes: 5 })));
    fair.follow(started());
    now.t = 160;
    const result = await failedAtOnce(fair, { type: "time_up", seq: 40 });
    assert.equal(english.say(result.problem), "the time limit was said to run out 240 s before it could have");
    const onTime = page(now);
    now.t = 100;
    onTime.follow(welcome(state("waiting", { minutes: 5 })));
    onTime.follow(started());
    now.t = 398; // within the network's slack
    assert.equal(onTime.follow({ type: "time_up", seq: 40 }), null);
  });

  test("a page that reloaded mid-game times the limit from seconds_left", async () => {
    const now = { t: 1000 };
    const fair = page(now);
    fair.follow(welcome(state("playing", { step: 8, minutes: 5, secondsLeft: 120 })));
    now.t = 1030;
    const result = await failedAtOnce(fair, { type: "time_up", seq: 40 });
    assert.equal(result.problem.values.seconds, 90);
  });

  test("my seed accepted, then my seat said to void the deal: failed at once", async () => {
    const fair = page();
    fair.seat = 0;
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    await fair.game.printing;
    await fair.mine();
    const view = { step: 0, game: 1, my_seat: 0 };
    const ready = fair.outgoing({ type: "ready", step: 0 }, view);
    assert.equal(ready.seed, ANN);
    fair.follow({ type: "ready_changed", seq: 3, seat: 0, ready: true });
    const result = await failedAtOnce(fair, { type: "deal_voided", seq: 4, seat: 0, voids: 1 });
    assert.equal(english.say(result.problem), "the server says Ann's seed was not used, but this client sent it and it was accepted");
  });
});

suite("every new failure is said in every language", () => {
  const findings = [
    { code: "seat_commitment_changed", seat: 1 },
    { code: "rules_changed" },
    { code: "time_up_early", seconds: 42 },
    { code: "my_seed_dropped", seat: 0 },
  ];
  for (const lang of LANGUAGES) {
    test(lang, async () => {
      const { checkSaid } = await import("../../../client/web/js/fairwords.js");
      const words = new Catalog(loadCatalog(lang), { strict: true });
      for (const found of findings) {
        const text = words.say(checkSaid(found, ["Ann", "Ben"]));
        assert.ok(text.length > 10 && !text.includes("{"), `${lang} ${found.code}: ${text}`);
        if (found.seconds) assert.ok(text.includes("42"), text);
        if (found.seat !== undefined) assert.ok(text.includes(found.seat ? "Ben" : "Ann"), text);
      }
    });
  }
});

suite("seeds survive the page's life", () => {
  const rematchAfter = async (first) => {
    const fair = page();
    fair.seat = 0;
    fair.follow(first);
    await fair.preparing.done;
    const view = { step: 40, game: 1, my_seat: 0, phase: "over" };
    return [fair, fair.outgoing({ type: "rematch", deal: "new" }, view)];
  };
  for (const [how, first] of [
    ["joined late", welcome(state("playing", { step: 20 }))],
    ["reloaded after the game ended", welcome(state("over", { step: 80 }))],
    ["took a seat over (the old device's commitment in its seat)", welcome(state("playing", { step: 20, seats: [sha("old device"), hash(BEN)] }))],
  ]) {
    test(`a page that ${how} commits to its rematch`, async () => {
      const [fair, rematch] = await rematchAfter(first);
      assert.match(rematch.seed_commitment ?? "", /^[0-9a-f]{64}$/);
      assert.equal(hash(fair.seeds.get(2)), rematch.seed_commitment);
      assert.deepEqual(fair.kept(), { seed: fair.seeds.get(2), seed_game: 2 }, "kept with the seat token");
    });
  }

  test("a page reloaded before its first ready reveals the seed kept in storage", async () => {
    const fair = numbered(new Fair());
    fair.restore({ seed: ANN, seed_game: 1 });
    fair.place({ seat: 0, state: { game: 1 } }, false);
    fair.follow(welcome(state("playing")));
    await fair.mine();
    const ready = fair.outgoing({ type: "ready", step: 0 }, { step: 0, game: 1, my_seat: 0 });
    assert.equal(ready.seed, ANN);
  });
});

suite("a void", () => {
  test("another seat's void releases the pin, commits anew, and pins the fresh deal", async () => {
    const fair = page();
    fair.seat = 0;
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    const first = await fair.printing;
    assert.equal(fair.follow({ type: "deal_voided", seq: 5, seat: 1, voids: 1 }), null);
    assert.equal(fair.game.pinned, false);
    const commit = await fair.commitDue({ my_seat: 0, game: 1 });
    assert.equal(commit.type, "commit");
    assert.equal(hash(fair.seeds.get(1)), commit.seed_commitment);
    assert.equal(fair.commitDue({ my_seat: 0, game: 1 }), null, "once a void");
    const fresh = { ...started([commit.seed_commitment, null]), deal_commitment: sha("fresh") };
    assert.equal(fair.follow(fresh), null);
    assert.deepEqual(fair.game.seed_commitments, [commit.seed_commitment, null]);
    assert.notEqual(await fair.printing, first);
    assert.equal(fair.game.voids, 1);
  });

  test("a page that reloads while the room awaits commitments commits too", async () => {
    const fair = page();
    fair.seat = 0;
    fair.follow(welcome({ ...state("playing", { seats: [null, null], commitment: null }), awaiting_commitments: true, voids: [0, 1] }));
    const commit = await fair.commitDue({ my_seat: 0, game: 1 });
    assert.match(commit.seed_commitment, /^[0-9a-f]{64}$/);
  });

  test("a void after the first card is a changed commitment", async () => {
    const fair = page();
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    fair.follow({ type: "cards_turned", seq: 6, step: 1, round: 1, depth: 0, cards: [[0, "2H"], [1, "3H"]] });
    const result = await failedAtOnce(fair, { type: "deal_voided", seq: 7, seat: 1, voids: 1 });
    assert.equal(english.say(result.problem), "the server showed two different deal commitments for this game");
  });
});

suite("a void this page missed", () => {
  test("a state with more voids than pinned releases the pin and pins the fresh deal", async () => {
    const fair = page();
    fair.seat = 0;
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    const fresh = { ...state("playing", { seats: [sha("new"), null], commitment: sha("fresh") }), voids: [0, 1] };
    assert.equal(fair.follow(welcome(fresh)), null, "a void, told by the voids: no failure");
    assert.equal(fair.game.deal_commitment, sha("fresh"));
    assert.equal(fair.game.voids, 1);
  });

  test("the same with this page's seat voided after its seed was accepted fails", async () => {
    const fair = page();
    fair.seat = 0;
    fair.follow(welcome(state("waiting")));
    fair.follow(started());
    await fair.mine();
    fair.outgoing({ type: "ready", step: 0 }, { step: 0, game: 1, my_seat: 0 });
    fair.follow({ type: "ready_changed", seq: 3, seat: 0, ready: true });
    const fresh = { ...state("playing", { seats: [null, sha("new")], commitment: sha("fresh") }), voids: [1, 0] };
    const result = await failedAtOnce(fair, welcome(fresh));
    assert.equal(result.problem.key, "check.my_seed_dropped");
  });
});
