// The time limit's countdown, as client/words/countdown.py counts it (the same cases).

import assert from "node:assert/strict";
import { said } from "../../../client/web/js/catalog.js";
import { test } from "node:test";

import { clockText, follow, noCountdown, secondsLeft, warning } from "../../../client/web/js/countdown.js";
import { initialView } from "../../../client/web/js/view.js";

const playing = (left, extra = {}) => ({ ...initialView(), phase: "playing", minutes: 5, seconds_left: left, game: 1, ...extra });

test("the clock text", () => {
  assert.equal(clockText(299), "4:59");
  assert.equal(clockText(5), "0:05");
  assert.equal(clockText(3725), "1:02:05");
  assert.equal(clockText(-3), "0:00");
});

test("a start sets the deadline and the one-minute line comes once", () => {
  const before = initialView();
  let countdown = follow(noCountdown(), before, { type: "game_started" }, playing(300), 100);
  assert.equal(secondsLeft(countdown, 100), 300);
  assert.equal(secondsLeft(countdown, 100.2), 300); // rounded up
  assert.deepEqual(warning(countdown, 300)[1], null);
  let line;
  [countdown, line] = warning(countdown, 340);
  assert.deepEqual(line, said("clock.one_minute"));
  assert.equal(warning(countdown, 341)[1], null);
});

test("a late look says how much is left; a near end at a welcome needs no line", () => {
  const late = follow(noCountdown(), initialView(), { type: "snapshot" }, playing(300), 0);
  assert.deepEqual(warning(late, 270)[1], said("clock.less_than_minute", { clock: "0:30" }));
  const near = follow(noCountdown(), initialView(), { type: "welcome" }, playing(50), 0);
  assert.equal(warning(near, 10)[1], null);
});

test("time up and game over stop it; no limit, no clock", () => {
  const up = follow(noCountdown(), initialView(), { type: "time_up" }, playing(0, { time_up: true }), 5);
  assert.equal(secondsLeft(up, 50), 0);
  const over = follow(noCountdown(), initialView(), { type: "game_over" }, { ...playing(0), phase: "over" }, 5);
  assert.ok(over.up);
  const none = follow(noCountdown(), initialView(), { type: "welcome" }, { ...playing(null), minutes: null }, 5);
  assert.equal(secondsLeft(none, 5), null);
  const same = playing(10);
  assert.equal(follow(up, same, { type: "welcome" }, same, 5), up); // ignored: unchanged
});
