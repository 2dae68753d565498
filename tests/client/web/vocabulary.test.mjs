// The browser's modules read the generated vocabulary.js (written from the Python
// sources; tests/client/web/test_vocabulary.py checks it is current) instead of keeping
// copies: the wire's checks, the defaults, the close codes' meaning, the phase table.

import assert from "node:assert/strict";
import { said } from "../../../client/web/js/catalog.js";
import { LANGUAGES, loadCatalog } from "./_vectors.mjs";
import { test } from "node:test";

import { Encoder } from "../../../client/web/js/msgpack.js";
import { closedBecause, POLICY, shouldReconnect } from "../../../client/web/js/connection.js";
import { DEFAULT_RULES, initialView } from "../../../client/web/js/view.js";
import * as vocabulary from "../../../client/web/js/vocabulary.js";
import { WireError, decodeServerMessage } from "../../../client/web/js/wire.js";

const pack = (value) => new Encoder({ useBigInt64: true }).encode(value);

test("every export is frozen, all the way down", () => {
  const open = [];
  const walk = (value, path) => {
    if (value === null || typeof value !== "object") return;
    if (!Object.isFrozen(value)) open.push(path);
    for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
  };
  for (const [name, value] of Object.entries(vocabulary)) walk(value, name);
  assert.deepEqual(open, []);
});

test("the rules default to the vocabulary's, on the wire and in a fresh view", () => {
  const state = { room: "r8k2", phase: "waiting", rules: {}, seats: [{ seat: 0 }, { seat: 1 }] };
  const welcome = decodeServerMessage(pack({ type: "welcome", v: 1, seq: 1, state }));
  assert.deepEqual(welcome.state.rules, vocabulary.RULE_DEFAULTS);
  assert.deepEqual(Object.keys(welcome.state.rules), vocabulary.RULE_NAMES);
  assert.equal(initialView().rules, DEFAULT_RULES);
  assert.equal(DEFAULT_RULES, vocabulary.RULE_DEFAULTS);
});

test("the field bounds are the protocol's", () => {
  const state = (changes) => ({ room: "r8k2", phase: "waiting", rules: {}, seats: [{ seat: 0 }, { seat: 1 }], ...changes });
  const welcome = (changes) => pack({ type: "welcome", v: 1, seq: 1, state: state(changes) });
  const [, most] = vocabulary.INTEGERS.spectators;
  assert.equal(decodeServerMessage(welcome({ spectators: most })).state.spectators, most);
  assert.throws(() => decodeServerMessage(welcome({ spectators: most + 1 })), WireError);
  const name = "👵".repeat(vocabulary.TEXTS.name.max); // characters, not UTF-16 units
  const seats = [{ seat: 0, name }, { seat: 1 }];
  assert.equal(decodeServerMessage(welcome({ seats })).state.seats[0].name, name);
  const hidden = [{ seat: 0, name: "Ann\u202e" }, { seat: 1 }]; // a bidi override (Cf)
  assert.throws(() => decodeServerMessage(welcome({ seats: hidden })), /printable/);
  const code = "x".repeat(vocabulary.TEXTS.error_code_text.max + 1);
  assert.throws(() => decodeServerMessage(pack({ type: "error", code })), WireError);
});

test("every close code the server sends has its own words in every catalog", () => {
  const codes = new Set([...Object.values(vocabulary.CLOSE_AFTER_ERROR), ...vocabulary.RETRY_CLOSE_CODES, ...vocabulary.ROOM_ENDED_CLOSE_CODES]);
  for (const tag of LANGUAGES) {
    const reasons = loadCatalog(tag).messages.close.reason;
    for (const code of codes) {
      assert.ok(Object.hasOwn(reasons, String(code)), `${tag}: ${code}`);
      assert.deepEqual(closedBecause(code), said("close.reason", { code }));
    }
  }
  for (const code of codes) assert.equal(shouldReconnect(code), vocabulary.RETRY_CLOSE_CODES.includes(code));
  assert.equal(POLICY, vocabulary.RECONNECT_POLICY);
});

test("the phase table names a seat and a spectator, phases and error codes", () => {
  for (const [command, rows] of Object.entries(vocabulary.PHASE_TABLE)) {
    assert.deepEqual(Object.keys(rows), ["seat", "spectator"], command);
    for (const refusals of Object.values(rows)) {
      for (const phase of Object.keys(refusals)) assert.ok(vocabulary.ENUMS.room_phase.includes(phase), phase);
    }
  }
  assert.deepEqual(vocabulary.PHASE_TABLE.ready.spectator, { waiting: "not_seated", playing: "not_seated", over: "not_seated" });
});
