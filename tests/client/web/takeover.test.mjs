// A seat request open as the page comes in (a join, a resume, a reload): the welcome's
// state carries it (state.seat_request), and the page asks the question with its two
// buttons exactly as after a seat_requested (client/web/js/takeover.js, view.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { Catalog } from "../../../client/web/js/catalog.js";
import { describe } from "../../../client/web/js/sentences.js";
import { SeatQuestion, answer, canAnswer } from "../../../client/web/js/takeover.js";
import { apply, initialView } from "../../../client/web/js/view.js";
import { checkServerMessage } from "../../../client/web/js/wire.js";
import { loadCatalog } from "./_vectors.mjs";

const en = new Catalog(loadCatalog("en"), { strict: true });
const QUESTION = "Someone wants to take Ben's seat from another device — let them?";

function state(request = { seat: 1, seconds: 30 }) {
  return {
    room: "r8k2",
    phase: "playing",
    rules: {},
    seats: [
      { seat: 0, name: "Ann", connected: true },
      { seat: 1, name: "Ben" },
    ],
    seat_request: request,
  };
}

const welcome = (seat, request) => checkServerMessage({ type: "welcome", v: 1, seq: 5, seat, state: state(request) });

/** The page's #seat-request panel and its two buttons, as plain objects. */
function fakeDoc() {
  const elements = {};
  for (const id of ["seat-request", "seat-request-text", "seat-allow", "seat-refuse"]) {
    elements[id] = {
      hidden: true,
      textContent: "",
      listeners: [],
      addEventListener(kind, listener) {
        this.listeners.push(listener);
      },
      click() {
        for (const listener of this.listeners) listener();
      },
    };
  }
  return { getElementById: (id) => elements[id], elements };
}

test("the wire takes a state's seat request, and nil by default", () => {
  assert.deepEqual(welcome(0).state.seat_request, { seat: 1, seconds: 30 });
  const bare = state();
  delete bare.seat_request;
  assert.equal(checkServerMessage({ type: "snapshot", seq: 5, state: bare }).state.seat_request, null);
  assert.throws(() => welcome(0, { seat: 1 }), /seat_request.seconds is missing/);
});

test("a welcome during a request asks a seated player, as seat_requested does", () => {
  const before = initialView();
  const message = welcome(0);
  const view = apply(before, message);
  assert.equal(view.seat_request, 1);
  assert.ok(canAnswer(view));
  assert.deepEqual(answer(view, true), { type: "answer_seat_request", seat: 1, allow: true });
  const lines = describe(before, message, view, 0, { words: en });
  assert.equal(lines[lines.length - 1], QUESTION);
  const watching = apply(before, welcome(null));
  assert.ok(!canAnswer(watching));
  const told = describe(before, welcome(null), watching, null, { words: en });
  assert.equal(told[told.length - 1], "Someone asks to take Ben's seat from another device.");
  const own = apply(before, welcome(1)); // the seat's own device came back: not asked
  assert.ok(!canAnswer(own));
  assert.ok(!describe(before, welcome(1), own, 1, { words: en }).includes(QUESTION));
  assert.equal(apply(before, welcome(0, null)).seat_request, null);
});

test("a snapshot that brings a request asks once", () => {
  const view = apply(initialView(), welcome(0, null));
  const snapshot = checkServerMessage({ type: "snapshot", seq: 9, state: state() });
  const after = apply(view, snapshot);
  assert.equal(after.seat_request, 1);
  assert.deepEqual(describe(view, snapshot, after, 0, { words: en }), [QUESTION]);
  assert.deepEqual(describe(after, snapshot, apply(after, snapshot), 0, { words: en }), []);
});

test("the page's question and its buttons after a welcome during a request", () => {
  const doc = fakeDoc();
  const sent = [];
  let view = apply(initialView(), welcome(0));
  const panel = new SeatQuestion(doc, (allow) => sent.push(answer(view, allow)), en);
  panel.draw(view);
  assert.equal(doc.elements["seat-request"].hidden, false);
  assert.equal(doc.elements["seat-request-text"].textContent, QUESTION);
  doc.elements["seat-allow"].click();
  assert.deepEqual(sent, [{ type: "answer_seat_request", seat: 1, allow: true }]);
  view = apply(view, { type: "seat_request_ended", seq: 6, seat: 1, outcome: "allowed", by: 0, reclaim: 600 });
  panel.draw(view);
  assert.equal(doc.elements["seat-request"].hidden, true);
});
