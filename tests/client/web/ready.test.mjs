// Issue 33, D16: "once, a seat showed ready in a double war it had not tapped for". The
// page shows a seat ready only from the room's word: its own ready_changed for the step
// the table is at (or the ready flags of a welcome's or a snapshot's state); a message of
// a later step clears every flag (view.js, newStep). Replayed here over every recorded
// game (tests/vectors/*.json: double wars, wars with a seat sitting out, a refused ready,
// drops, resyncs, a seat played calmly while its player is away) and over a double war
// written out: a seat is never ready without its own word for that step. A seat the
// server plays while its player is away (away, auto calm) is readied by the server: that
// seat shows "ready" without a tap, and says why (README, "The browser table").

import assert from "node:assert/strict";
import { test } from "node:test";

import { seatMarks } from "../../../client/web/js/render.js";
import { apply, initialView } from "../../../client/web/js/view.js";
import { checkServerMessage, decodeServerMessage } from "../../../client/web/js/wire.js";
import { frameOf, vectors } from "./_vectors.mjs";

/** Replay `messages` and check, after each, that every seat shown ready has its word. */
function replay(messages, where) {
  let view = initialView();
  let word = new Set(); // seats whose ready the room told for the step the table is at
  let checked = 0;
  for (const message of messages) {
    const before = view;
    view = apply(view, message);
    if (message.type === "welcome" || message.type === "snapshot") {
      word = new Set(message.state.seats.filter((s) => s.ready).map((s) => s.seat));
    } else if (view.step > before.step || message.type === "game_started") {
      word = new Set(); // a later step: no seat is ready for it yet
    }
    if (message.type === "ready_changed" && message.ready) word.add(message.seat);
    for (const seat of view.seats) {
      if (seat.ready) {
        assert.ok(word.has(seat.seat), `${where}: seat ${seat.seat} shown ready at step ${view.step} (after ${message.type} #${message.seq}) with no word of its own`);
        checked += 1;
      }
    }
  }
  return checked;
}

test("over every recorded game, a seat is shown ready only on its own word for the step", () => {
  let checked = 0;
  for (const [name, vector] of vectors()) {
    for (const viewpoint of vector.viewpoints) {
      const messages = viewpoint.steps.filter((step) => step.frame).map((step) => decodeServerMessage(frameOf(step)));
      checked += replay(messages, `${name}, ${viewpoint.who}`);
    }
  }
  assert.ok(checked > 100, `ready flags were checked (${checked})`);
});

test("a double war: the flag of the first war's ready does not stay for the second", () => {
  const seats = [0, 1, 2].map((seat) => ({ seat, name: ["Ann", "Ben", "Cy"][seat], connected: true, ready: false, auto: "off", count: 17 }));
  const state = { room: "r8k2", phase: "playing", rules: { players: 3 }, step: 3, seats, war_depth: 0 };
  const messages = [
    { type: "welcome", v: 1, seq: 10, seat: 0, token: null, state },
    { type: "cards_turned", seq: 11, step: 4, round: 3, depth: 0, cards: [[0, "KH"], [1, "KS"], [2, "5C"]] },
    { type: "war_declared", seq: 12, step: 4, round: 3, depth: 1, seats: [0, 1] },
    { type: "waiting_for", seq: 13, seats: [0, 1] },
    { type: "ready_changed", seq: 14, seat: 1, ready: true }, // Ben taps for the war
    { type: "waiting_for", seq: 15, seats: [0] },
    // Ann taps: the step is played; the war goes on, two deep
    { type: "cards_laid_down", seq: 16, step: 5, round: 3, depth: 1, counts: [[0, 1], [1, 1]] },
    { type: "cards_turned", seq: 17, step: 5, round: 3, depth: 1, cards: [[0, "9D"], [1, "9C"]] },
    { type: "war_declared", seq: 18, step: 5, round: 3, depth: 2, seats: [0, 1] },
    { type: "waiting_for", seq: 19, seats: [0, 1] },
  ].map(checkServerMessage);
  let view = initialView();
  for (const message of messages) view = apply(view, message);
  assert.equal(view.war_depth, 2);
  assert.deepEqual(view.seats.map((s) => s.ready), [false, false, false], "Ben has not tapped for the double war");
  assert.deepEqual(seatMarks(view, view.seats[1], 0), [["seat.not_ready"]]);
  assert.deepEqual(seatMarks(view, view.seats[2], 0), [["seat.sits_out"]]);
  assert.equal(replay(messages, "the double war"), 2, "Ben ready for the first war, over two messages");
});

test("a seat the server plays while its player is away says so beside its ready", () => {
  const seats = [
    { seat: 0, name: "Ann", connected: true, ready: false, auto: "off", count: 26 },
    { seat: 1, name: "Ben", connected: false, ready: false, auto: "off", count: 26 },
  ];
  const messages = [
    { type: "welcome", v: 1, seq: 5, seat: 0, token: null, state: { room: "r8k2", phase: "playing", rules: { players: 2 }, step: 7, seats } },
    { type: "auto_play_changed", seq: 6, seat: 1, mode: "calm", away: true },
    { type: "ready_changed", seq: 7, seat: 1, ready: true },
  ].map(checkServerMessage);
  let view = initialView();
  for (const message of messages) view = apply(view, message);
  const marks = seatMarks(view, view.seats[1], 0).map(([key]) => key);
  assert.deepEqual(marks, ["seat.away", "seat.ready", "seat.auto"]);
});
