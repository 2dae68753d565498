// The words on the table besides the sentences: the marks on a seat, the rules line, the
// line under the title, and what a key or tap asks for (client/intents.py's answers).

import assert from "node:assert/strict";
import { test } from "node:test";

import { cycleAuto, finish, rematch, setAuto, turnOver } from "../../../client/web/js/intents.js";
import { seatMarks, whereLine } from "../../../client/web/js/render.js";
import { DEFAULT_RULES, initialView } from "../../../client/web/js/view.js";

const seat = (n, extra = {}) => ({
  seat: n,
  name: ["Ann", "Ben", "Cy"][n],
  computer: false,
  connected: true,
  ready: false,
  auto: "off",
  out: false,
  count: 26,
  face_up: [],
  face_down: 0,
  finish_vote: false,
  rematch_vote: null,
  ...extra,
});
const table = (extra = {}) => ({
  ...initialView(),
  last_seq: 4,
  my_seat: 0,
  phase: "playing",
  step: 3,
  round: 2,
  seats: [seat(0), seat(1), seat(2, { computer: true, name: "Computer" })],
  rules: { ...DEFAULT_RULES, players: 3 },
  waiting_for: [0, 1],
  ...extra,
});

test("the marks on a seat", () => {
  const view = table({ war_depth: 1, war_seats: [0, 1], waiting_for: [0, 1] });
  assert.deepEqual(seatMarks(view, view.seats[0], 0), ["you", "your turn"]);
  assert.deepEqual(seatMarks(view, view.seats[1], 0), ["not ready"]);
  assert.deepEqual(seatMarks(view, view.seats[2], 0), ["sits out the war"]);
  const away = table({ seats: [seat(0, { auto: "calm" }), seat(1, { connected: false, ready: true, finish_vote: true })] });
  assert.deepEqual(seatMarks(away, away.seats[0], 0), ["you", "auto calm"]);
  assert.deepEqual(seatMarks(away, away.seats[1], 0), ["away", "ready ✓", "voted to finish"]);
  const over = table({ phase: "over", seats: [seat(0, { rematch_vote: "same", out: true })] });
  assert.deepEqual(seatMarks(over, over.seats[0], null), ["out of the game", "rematch: same deal"]);
  assert.deepEqual(seatMarks(table(), { ...seat(1), name: null }, 0), ["waiting for a player"]);
  assert.deepEqual(seatMarks(table({ left: [1] }), seat(1, { computer: true }), 0), ["left", "not ready"]);
});

test("the line under the title", () => {
  assert.equal(whereLine(initialView()), "");
  assert.equal(whereLine(table({ spectators: 2, deal: 2n ** 64n - 1n })), "round 3 · 2 watching · deal 18446744073709551615");
  assert.equal(whereLine(table({ my_seat: null, spectators: 3, game: 2 })), "game 2 · round 3 · you are watching with 2 more");
  assert.equal(whereLine(table({ rules: { ...DEFAULT_RULES, round_limit: 26 }, minutes: null })), "round 3 of 26");
  assert.equal(whereLine(table({ rules: { ...DEFAULT_RULES, round_limit: 2 } })), "round 3, tie-break");
  assert.equal(whereLine(table({ phase: "over", round: 1 })), "1 round");
  assert.equal(whereLine(table({ phase: "waiting", minutes: 10 })), "10-minute game");
  assert.equal(whereLine(table({ phase: "waiting", rules: { ...DEFAULT_RULES, round_limit: 50 } })), "50-round game");
});

test("what a tap asks for", () => {
  assert.deepEqual(turnOver(table()), { type: "ready", step: 3 });
  assert.equal(turnOver(table({ waiting_for: [1] })), "The game does not need your card now.");
  assert.equal(turnOver(table({ my_seat: null })), "Spectators watch; only players turn over.");
  assert.equal(turnOver(table({ phase: "over" })), "The game is not on.");
  assert.deepEqual(cycleAuto(table()), { type: "set_auto_play", mode: "calm" });
  assert.deepEqual(cycleAuto(table({ seats: [seat(0, { auto: "quick" })] })), { type: "set_auto_play", mode: "off" });
  assert.equal(setAuto(table({ phase: "over" }), "calm"), "The game is over.");
  assert.deepEqual(finish(table()), { type: "vote_finish" });
  assert.equal(finish(table({ seats: [seat(0, { finish_vote: true })] })), "You have voted to finish; waiting for the others.");
  assert.equal(rematch(table(), "new"), "A rematch comes after game over.");
  assert.deepEqual(rematch(table({ phase: "over" }), "same"), { type: "rematch", deal: "same" });
});
