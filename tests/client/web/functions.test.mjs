// The browser table's pure decisions against the shared vectors (tests/vectors/functions/,
// written from the Python client by `python -m tests.vectors.functions`; never edited by
// hand): the same answers as client/net/intents.py, client/net/policy.py and client/words/countdown.py.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { closedBecause, decide, shouldReconnect } from "../../../client/web/js/connection.js";
import { clockText, follow, noCountdown, secondsLeft, warning } from "../../../client/web/js/countdown.js";
import { cycleAuto, finish, rematch, setAuto, turnOver } from "../../../client/web/js/intents.js";
import { apply, initialView } from "../../../client/web/js/view.js";
import { SERVER, decodeServerMessage } from "../../../client/web/js/wire.js";
import { VECTORS } from "./_vectors.mjs";

const load = (name) => JSON.parse(readFileSync(join(VECTORS, "functions", `${name}.json`), "utf8"));
const frameOf = (text) => new Uint8Array(Buffer.from(text, "base64"));
const viewOf = (frames) => frames.reduce((view, text) => apply(view, decodeServerMessage(frameOf(text))), initialView());
const camel = (name) => name.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase());
const camelKeys = (object) => Object.fromEntries(Object.entries(object).map(([key, value]) => [camel(key), value]));

// A press as the page carries it out: controls.js's keys, the auto-play select ("a <mode>").
function press(view, { press: key, sent = null, asked = null }) {
  if (key.startsWith("a ")) return setAuto(view, key.slice(2));
  const keys = { space: () => turnOver(view, sent), a: () => cycleAuto(view, asked), f: () => finish(view) };
  keys.r = () => rematch(view, "new");
  keys.d = () => rematch(view, "same");
  return keys[key]();
}
const out = (intent) => ("key" in intent ? { say: intent } : { send: intent });

test("what a key asks for, as client/net/intents.py", () => {
  const vector = load("intents");
  for (const key of ["space", "a", "f", "r", "d"]) assert.ok(vector.cases.some((c) => c.press === key), key);
  for (const c of vector.cases) {
    assert.deepEqual(out(press(viewOf(vector.views[c.view]), c)), c.out, `${c.view}: ${c.press} ${JSON.stringify(c)}`);
  }
});

test("what to do when a connection ends, as client/net/policy.py", () => {
  const vector = load("reconnect");
  const standard = camelKeys(vector.policy);
  for (const c of vector.cases) {
    const ending = {
      url: vector.url, unreachable: null, final: false, closeCode: null, error: null, welcomed: false, everWelcomed: false,
      holdsToken: false, storedSeat: false, spectator: false, gameOver: false, closing: false, left: false,
      attempt: 0, troubleFor: 0, ...camelKeys(c.ending),
    };
    const policy = { ...standard, ...camelKeys(c.policy ?? {}) };
    assert.deepEqual(decide(ending, policy, c.jitter), c.decision, JSON.stringify(c));
  }
});

test("why a connection closed, and whether to come back, as client/net/policy.py", () => {
  for (const c of load("close-reasons").cases) {
    assert.deepEqual(closedBecause(c.code, c.error), c.reason, JSON.stringify(c));
    assert.equal(shouldReconnect(c.code), c.reconnect, JSON.stringify(c));
  }
});

test("the countdown, as client/words/countdown.py", () => {
  const vector = load("countdown");
  for (const script of vector.scripts) {
    let view = initialView();
    let countdown = noCountdown();
    for (const step of script.steps) {
      const where = `${script.about} at ${step.at}`;
      if (step.frame) {
        const message = decodeServerMessage(frameOf(step.frame));
        const before = view;
        view = apply(view, message);
        countdown = follow(countdown, before, message, view, step.at);
      } else {
        let line;
        [countdown, line] = warning(countdown, step.at);
        assert.deepEqual(line, step.line, where);
      }
      assert.deepEqual(countdown, step.countdown, where);
      assert.equal(secondsLeft(countdown, step.at), step.left, where);
    }
  }
  for (const [seconds, text] of vector.clock_text) assert.equal(clockText(seconds), text);
});

test("the codec checks every server message the protocol has, with its fields", () => {
  const fields = load("wire").server_messages;
  assert.deepEqual(Object.keys(SERVER), Object.keys(fields));
  for (const [type, names] of Object.entries(fields)) assert.deepEqual(Object.keys(SERVER[type]), names, type);
});

test("what the fair-deal check found, said as client/fair/words.py says it, in every language", async () => {
  const { checkSaid } = await import("../../../client/web/js/fairwords.js");
  const { Catalog } = await import("../../../client/web/js/catalog.js");
  const { LANGUAGES, loadCatalog } = await import("./_vectors.mjs");
  const vector = load("fair-checks");
  const words = Object.fromEntries(LANGUAGES.map((tag) => [tag, new Catalog(loadCatalog(tag), { strict: true })]));
  assert.ok(vector.cases.length > 30);
  for (const c of vector.cases) {
    const said = checkSaid(c.found, vector.names);
    assert.deepEqual(said, c.said, JSON.stringify(c.found));
    for (const tag of LANGUAGES) assert.equal(words[tag].say(said), c.text[tag], `${tag}: ${JSON.stringify(c.found)}`);
  }
});
