// The page's connection with a stand-in WebSocket and clock: the opening, the stored seat,
// reconnecting with backoff and resuming, refusals, resync (as client/net/connection.py does).

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";

import { Decoder, Encoder } from "../../../client/web/js/msgpack.js";
import {
  Connection,
  POLICY,
  WARM_SECONDS,
  backoffDelay,
  closedBecause,
  decide,
  shouldReconnect,
  socketUrl,
  warm,
} from "../../../client/web/js/connection.js";
import { Catalog } from "../../../client/web/js/catalog.js";
import { Fair } from "../../../client/web/js/fair.js";
import { SeatStore } from "../../../client/web/js/store.js";
import { MemoryStorage } from "./_storage.mjs";
import { loadCatalog } from "./_vectors.mjs";

// The events and decisions with their said() reasons and notices said in English.
const en = new Catalog(loadCatalog("en"), { strict: true });
const told = (event) => {
  const out = { ...event };
  for (const name of ["reason", "notice", "text"]) if (out[name]?.key !== undefined) out[name] = en.say(out[name]);
  return out;
};

const encoder = new Encoder({ useBigInt64: true });
const decoder = new Decoder({ useBigInt64: true });

/** A world of stand-in sockets, timers and a clock. */
function world({ stored = null } = {}) {
  const sockets = [];
  const timers = [];
  const events = [];
  let clock = 0;
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      sockets.push(this);
    }
    send(bytes) {
      this.sent.push(decoder.decode(bytes));
    }
    close(code = 1000) {
      this.shut(code);
    }
    open() {
      this.readyState = 1;
      this.onopen();
    }
    receive(message) {
      const bytes = encoder.encode(message);
      this.onmessage({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), timeStamp: 1 });
    }
    shut(code, reason = "") {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.onclose({ code, reason });
    }
  }
  const storage = new MemoryStorage();
  const seats = new SeatStore(storage, () => 1_000_000);
  if (stored !== null) seats.put("K7MX-QD4R", stored);
  const make = (opening, options = {}) =>
    new Connection({
      url: "ws://war.test:8765/",
      opening,
      seats,
      onEvent: (event) => events.push(told(event)),
      WebSocketImpl: FakeSocket,
      setTimer: (fn, ms) => timers.push({ fn, ms }) - 1,
      clearTimer: (id) => {
        timers[id] = null;
      },
      now: () => clock,
      random: () => 0.5,
      ...options,
    });
  return {
    Socket: FakeSocket,
    sockets,
    timers,
    events,
    seats,
    storage,
    make,
    last: () => sockets[sockets.length - 1],
    tick(seconds) {
      clock += seconds;
    },
    fire() {
      const timer = timers.findLast((t) => t !== null);
      timers[timers.indexOf(timer)] = null;
      timer.fn();
      return timer.ms;
    },
    kinds: () => events.map((e) => e.kind),
  };
}

const seatRecords = [
  { seat: 0, name: "Ann", connected: true },
  { seat: 1, name: "Ben", connected: true },
];
const state = (extra = {}) => ({ room: "r8k2", phase: "playing", rules: {}, seats: seatRecords, ...extra });
const welcome = (token, extra = {}) => ({
  type: "welcome",
  v: 1,
  seq: 5,
  seat: 1,
  token,
  player_code: "K7MX-QD4R",
  watch_code: "9HWT-2CBN",
  state: state(),
  ...extra,
});

test("the first opening carries the protocol version, and the seat is kept", () => {
  const w = world();
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" });
  connection.start();
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "join_room", code: "K7MX-QD4R", name: "Ben", v: 1 }]);
  w.last().receive(welcome("token-one-0123456789"));
  assert.deepEqual(w.kinds(), ["received"]);
  assert.equal(w.events[0].view.my_seat, 1);
  const kept = w.seats.get("k7mxqd4r", "Ben");
  assert.equal(kept.token, "token-one-0123456789");
  assert.equal(kept.room, "r8k2");
  assert.equal(kept.name, "Ben");
  assert.ok(connection.send({ type: "ready", step: 0 }));
  assert.deepEqual(w.last().sent[1], { type: "ready", step: 0 });
});

test("a stored seat is resumed; a stale one is forgotten and the link joins anew", () => {
  const w = world({ stored: { room: "r8k2", token: "stale-token-0123456789", seat: 1, name: "Ben" } });
  w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }).start();
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "resume_seat", v: 1, room: "r8k2", token: "stale-token-0123456789" }]);
  w.last().receive({ type: "error", code: "bad_token", message: "unknown or superseded token" });
  w.last().shut(4004);
  assert.deepEqual(w.kinds(), ["received", "notice"]);
  assert.equal(w.seats.get("K7MX-QD4R", "Ben"), null);
  assert.equal(w.sockets.length, 2);
  w.last().open();
  assert.equal(w.last().sent[0].type, "join_room");
});

test("one browser, two names at one table: each join resumes its own seat", () => {
  const w = world({ stored: { room: "r8k2", token: "token-opa-0123456789", seat: 0, name: "Opa" } });
  w.make({ type: "join_room", code: "K7MX-QD4R", name: "Oma" }).start(); // another tab: Oma
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "join_room", code: "K7MX-QD4R", name: "Oma", v: 1 }], "not Opa's token");
  w.last().receive(welcome("token-oma-0123456789", { state: state({ seats: [{ seat: 0, name: "Opa" }, { seat: 1, name: "Oma" }] }) }));
  assert.equal(w.seats.get("K7MX-QD4R", "Opa").token, "token-opa-0123456789", "Opa's seat is still his");
  assert.equal(w.seats.get("K7MX-QD4R", "Oma").token, "token-oma-0123456789");
  w.make({ type: "join_room", code: "K7MX-QD4R", name: "Opa" }).start(); // Opa's tab reloads
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "resume_seat", v: 1, room: "r8k2", token: "token-opa-0123456789" }]);
});

test("a dropped connection reconnects with backoff and resumes with the newest token", () => {
  const w = world();
  w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }).start();
  w.last().open();
  w.last().receive(welcome("token-one-0123456789"));
  w.last().shut(1006);
  const reconnecting = w.events.at(-1);
  assert.equal(reconnecting.kind, "reconnecting");
  assert.equal(reconnecting.attempt, 1);
  assert.equal(reconnecting.reason, "the connection dropped");
  assert.equal(w.fire(), 187.5); // 0.25 s ceiling, equal jitter at 0.5: 0.125 + 0.0625
  w.last().shut(1006); // the server is still away: never opened
  assert.equal(w.events.at(-1).reason, "cannot reach the server: the server did not answer");
  assert.equal(w.events.at(-1).attempt, 2);
  assert.equal(w.fire(), 375);
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "resume_seat", v: 1, room: "r8k2", token: "token-one-0123456789" }]);
  w.last().receive(welcome("token-two-0123456789", { seq: 9 }));
  assert.equal(w.seats.get("K7MX-QD4R", "Ben").token, "token-two-0123456789");
  w.last().shut(1012); // a restart: attempts start over after a welcome
  assert.equal(w.events.at(-1).attempt, 1);
  assert.equal(w.events.at(-1).reason, "the server is restarting");
  w.fire();
  w.last().open();
  assert.equal(w.last().sent[0].token, "token-two-0123456789");
});

test("when the server cannot save games it waits longer", () => {
  const w = world();
  w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }).start();
  w.last().open();
  w.last().receive(welcome("token-one-0123456789"));
  w.last().receive({ type: "error", code: "store_unavailable", message: "the server cannot save games right now" });
  w.last().shut(1013);
  const event = w.events.at(-1);
  assert.equal(event.kind, "reconnecting");
  assert.equal(event.reason, "the server cannot save games right now");
  assert.equal(event.delay, POLICY.storeBase * 0.75);
  w.fire();
  w.last().open();
  w.last().receive({ type: "error", code: "store_unavailable", message: "the server cannot save games right now" });
  w.last().shut(1013);
  assert.equal(w.events.at(-1).reason, "the server still cannot save games");
  assert.equal(w.events.at(-1).delay, POLICY.storeBase * 2 * 0.75);
});

test("final closes end it with the reason; 4002 does not reconnect", () => {
  for (const [code, reason] of [
    [4002, "this seat was taken over by another window or device"],
    [4000, "the server speaks another protocol version"],
    [1008, "the server closed the connection after invalid messages"],
    [4999, "the server closed the connection (code 4999)"],
  ]) {
    const w = world();
    w.make({ type: "watch_room", code: "9HWT-2CBN" }).start();
    w.last().open();
    w.last().receive(welcome(null, { seat: null, player_code: null }));
    w.last().shut(code);
    assert.deepEqual(w.events.at(-1), { kind: "ended", ok: false, reason, code: null, closeCode: code });
    assert.equal(w.timers.length, 0);
  }
});

test("a refused opening ends with what the refusal means, in the client's words", () => {
  const w = world();
  w.make({ type: "join_room", code: "NOPE-NOPE", name: "Ben" }).start();
  w.last().open();
  w.last().receive({ type: "error", code: "unknown_code", message: "no room with this code" });
  w.last().shut(4004);
  assert.deepEqual(w.events.at(-1), {
    kind: "ended",
    ok: false,
    reason: "there is no game with that code",
    code: "unknown_code",
    closeCode: 4004,
  });
});

test("a server that cannot be reached at all ends at once", () => {
  const w = world();
  w.make({ type: "create_room", name: "Ann" }).start();
  w.last().shut(1006);
  assert.deepEqual(w.events.at(-1), {
    kind: "ended",
    ok: false,
    reason: "cannot connect to ws://war.test:8765/: the server did not answer",
    code: null,
    closeCode: null,
  });
});

test("reconnecting gives up after giveUpAfter seconds", () => {
  const w = world();
  w.make({ type: "watch_room", code: "9HWT-2CBN" }, { policy: { ...POLICY, giveUpAfter: 30 } }).start();
  w.last().open();
  w.last().receive(welcome(null, { seat: null, player_code: null }));
  w.last().shut(1006);
  w.tick(20);
  w.fire();
  w.last().shut(1006);
  assert.equal(w.events.at(-1).kind, "reconnecting");
  w.tick(11);
  w.fire();
  w.last().shut(1006);
  assert.deepEqual(w.events.at(-1), {
    kind: "ended",
    ok: false,
    reason: "gave up reconnecting: cannot reach the server: the server did not answer",
    code: null,
    closeCode: null,
  });
});

test("a spectator watches again after a drop", () => {
  const w = world();
  w.make({ type: "watch_room", code: "9HWT-2CBN" }).start();
  w.last().open();
  w.last().receive(welcome(null, { seat: null, player_code: null }));
  w.last().shut(1011);
  w.fire();
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "watch_room", code: "9HWT-2CBN", v: 1 }]);
});

test("a seq gap sends one resync; leaving forgets the seat", () => {
  const w = world();
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" });
  connection.start();
  w.last().open();
  w.last().receive(welcome("token-one-0123456789"));
  w.last().receive({ type: "spectators_changed", seq: 6, count: 1 });
  w.last().receive({ type: "spectators_changed", seq: 8, count: 2 });
  w.last().receive({ type: "spectators_changed", seq: 9, count: 3 });
  assert.deepEqual(w.last().sent.slice(1), [{ type: "resync" }]);
  assert.equal(connection.view.spectators, 1);
  assert.ok(connection.send({ type: "leave" }));
  assert.equal(w.seats.get("K7MX-QD4R", "Ben"), null);
  w.last().shut(1000);
  assert.deepEqual(w.events.at(-1), { kind: "ended", ok: true, reason: "you left the room", code: null, closeCode: 1000 });
});

test("close() while waiting to reconnect ends it at once", () => {
  const w = world();
  const connection = w.make({ type: "watch_room", code: "9HWT-2CBN" });
  connection.start();
  w.last().open();
  w.last().receive(welcome(null, { seat: null, player_code: null }));
  w.last().shut(1006);
  assert.ok(connection.waiting);
  connection.close();
  assert.deepEqual(w.events.at(-1), { kind: "ended", ok: true, reason: "closed", code: null, closeCode: null });
  assert.ok(!connection.waiting);
});

test("a bad frame from the server is a notice, and nothing else changes", () => {
  const w = world();
  const connection = w.make({ type: "watch_room", code: "9HWT-2CBN" });
  connection.start();
  w.last().open();
  w.last().onmessage({ data: new Uint8Array([0xc1]).buffer, timeStamp: 1 });
  assert.equal(w.events[0].kind, "notice");
  assert.match(w.events[0].text, /^ignored a bad message from the server: not one msgpack value/);
  assert.equal(connection.view.last_seq, null);
});

test("the pure decisions", () => {
  assert.equal(backoffDelay(0, 0.25, 10, 0), 0.125);
  assert.equal(backoffDelay(3, 0.25, 10, 1), 2);
  assert.equal(backoffDelay(40, 0.25, 10, 1), 10);
  for (const code of [null, 1006, 1011, 1012, 1013, 4001, 4005]) assert.ok(shouldReconnect(code), code);
  for (const code of [1000, 1001, 1003, 1008, 1009, 4000, 4002, 4003, 4004]) assert.ok(!shouldReconnect(code), code);
  assert.equal(en.say(closedBecause(null)), "the connection dropped");
  assert.equal(en.say(closedBecause(1012)), "the server is restarting");
  assert.equal(en.say(closedBecause(1013, { code: "too_many_rooms", message: "" })), "the server has as many rooms as it can hold");
  assert.equal(socketUrl(new URL("http://192.168.1.20:8765/#join=K7MX-QD4R")), "ws://192.168.1.20:8765/");
  assert.equal(socketUrl(new URL("https://war.example.org/family/?x=1#watch=AB")), "wss://war.example.org/family/");
});

// client/net/policy.py's table of cases, case by case.
const ending = (changes = {}) => ({
  url: "ws://war.test/",
  unreachable: null,
  closeCode: null,
  error: null,
  welcomed: false,
  everWelcomed: true,
  holdsToken: true,
  storedSeat: false,
  spectator: false,
  gameOver: false,
  closing: false,
  left: false,
  attempt: 0,
  troubleFor: 0,
  ...changes,
});

test("the reconnect policy, as client/net/policy.py decides", () => {
  const d = (changes) => told(decide(ending(changes), POLICY, 0.5));
  assert.deepEqual(d({ closing: true }), { kind: "stop", ok: true, reason: "closed", code: null });
  assert.deepEqual(d({ left: true }), { kind: "stop", ok: true, reason: "you left the room", code: null });
  assert.equal(d({ storedSeat: true, error: { code: "bad_token", message: "" }, closeCode: 4004 }).kind, "join_anew");
  assert.equal(d({ storedSeat: true, welcomed: true, error: { code: "bad_token", message: "x" }, closeCode: 4004 }).kind, "stop");
  assert.equal(d({ unreachable: "refused", everWelcomed: false }).reason, "cannot connect to ws://war.test/: refused");
  assert.deepEqual(d({ unreachable: "refused" }), { kind: "retry", delay: 0.1875, reason: "cannot reach the server: refused", reopen: "resume" });
  assert.equal(d({ error: { code: "store_unavailable", message: "no disk" }, closeCode: 1013, attempt: 2 }).delay, 15);
  assert.deepEqual(d({ closeCode: 4003, spectator: true }), { kind: "stop", ok: true, reason: "the room was closed", code: null });
  assert.deepEqual(d({ closeCode: 1000, gameOver: true }), { kind: "stop", ok: true, reason: "the server ended the connection", code: null });
  assert.equal(d({ closeCode: 1000 }).ok, false);
  assert.equal(d({ closeCode: 4004, everWelcomed: false, error: { code: "room_full", message: "full" } }).code, "room_full");
  assert.equal(d({ closeCode: 1012, holdsToken: false, spectator: true }).reopen, "watch");
  assert.equal(d({ closeCode: 1012, holdsToken: false }).reopen, "first");
  assert.equal(d({ closeCode: 1012, troubleFor: 301 }).reason, "gave up reconnecting: the server is restarting");
});

test("a finish vote before this seat's first Turn over sends its seed first, with a ready (issue 31)", async () => {
  const seed = "ab".repeat(32);
  const committed = createHash("sha256").update(Buffer.from(seed, "hex")).digest("hex");
  const fair = new Fair();
  fair.seeds.set(1, seed);
  const w = world();
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }, { fair });
  connection.start();
  w.last().open();
  const seats = [
    { seat: 0, name: "Ann", connected: true, seed_commitment: "cd".repeat(32) },
    { seat: 1, name: "Ben", connected: true, seed_commitment: committed },
  ];
  const fresh = state({ seats, game: 1, step: 0, waiting_for: [0, 1], deal_commitment: "ef".repeat(32) });
  w.last().receive(welcome("token-one-0123456789", { state: fresh }));
  await fair.game.printing; // the page hashes its own seed's commitment meanwhile
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(connection.send({ type: "vote_finish" }));
  const [ready, vote] = w.last().sent.slice(-2);
  assert.deepEqual(ready, { type: "ready", step: 0, seed });
  assert.deepEqual(vote, { type: "vote_finish" });
  // once readied (its seed revealed), a vote is sent alone
  w.last().receive({ type: "ready_changed", seq: 6, seat: 1, ready: true });
  w.last().receive({ type: "waiting_for", seq: 7, seats: [0] });
  const before = w.last().sent.length;
  assert.ok(connection.send({ type: "vote_finish" }));
  assert.deepEqual(w.last().sent.slice(before), [{ type: "vote_finish" }]);
});

test("a socket opened ahead (the join page's) carries the join: no new socket, the opening at once", () => {
  const w = world();
  const ahead = warm("ws://war.test:8765/", { WebSocketImpl: w.Socket, now: () => 0 });
  assert.equal(ahead.ws.binaryType, "arraybuffer");
  ahead.ws.readyState = 1; // it opened while the name was typed
  w.tick(WARM_SECONDS - 1);
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }, { warm: ahead });
  connection.start();
  assert.equal(w.sockets.length, 1);
  assert.deepEqual(ahead.ws.sent, [{ type: "join_room", code: "K7MX-QD4R", name: "Ben", v: 1 }]);
  ahead.ws.receive(welcome("token-one-0123456789"));
  assert.deepEqual(w.kinds(), ["received"]);
});

test("a socket opened ahead and still connecting sends the join once it opens", () => {
  const w = world();
  const ahead = warm("ws://war.test:8765/", { WebSocketImpl: w.Socket, now: () => 0 });
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }, { warm: ahead });
  connection.start();
  assert.equal(w.sockets.length, 1);
  assert.deepEqual(ahead.ws.sent, []);
  ahead.ws.open();
  assert.deepEqual(ahead.ws.sent, [{ type: "join_room", code: "K7MX-QD4R", name: "Ben", v: 1 }]);
});

test("a socket opened ahead too long ago, or closed, is not used: a new one carries the join", () => {
  for (const [age, state] of [[WARM_SECONDS, 1], [0, 3], [0, 2]]) {
    const w = world();
    const ahead = warm("ws://war.test:8765/", { WebSocketImpl: w.Socket, now: () => 0 });
    ahead.ws.readyState = state;
    w.tick(age);
    const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }, { warm: ahead });
    connection.start();
    assert.equal(w.sockets.length, 2, `age ${age}, state ${state}`);
    assert.equal(ahead.ws.readyState, 3);
    assert.deepEqual(ahead.ws.sent, []);
    w.last().open();
    assert.deepEqual(w.last().sent, [{ type: "join_room", code: "K7MX-QD4R", name: "Ben", v: 1 }]);
  }
});

// --- the second path (PROTOCOL.md §11) ---------------------------------------------------
const KEY = "Pk0_-abcdefghijklmnopq";
const talk = (seq, text) => ({ type: "said", seq, seat: 0, text });

/** Ben seated on a connection whose welcome offers a second path; its second socket open. */
function twoPaths({ after = 1 } = {}) {
  const w = world();
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" });
  connection.start();
  const first = w.last();
  first.open();
  first.receive(welcome("token-one-0123456789", { path_key: KEY }));
  assert.equal(w.sockets.length, 2, "a welcome with a path_key opens a second socket");
  const second = w.last();
  assert.equal(second.url, "ws://war.test:8765/");
  second.open();
  second.receive({ type: "second_path_ready", after });
  return { w, connection, first, second };
}
const saidTexts = (w) => w.events.filter((e) => e.message?.type === "said").map((e) => e.message.text);

test("no path_key, no second socket", () => {
  const w = world();
  w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" }).start();
  w.last().open();
  w.last().receive(welcome("token-one-0123456789"));
  assert.equal(w.sockets.length, 1);
});

test("the second path says its key and how many were sent first, then every send goes on both", () => {
  const w = world();
  const connection = w.make({ type: "join_room", code: "K7MX-QD4R", name: "Ben" });
  connection.start();
  const first = w.last();
  first.open();
  first.receive(welcome("token-one-0123456789", { path_key: KEY }));
  const second = w.last();
  // sent while the second socket connects: on the first alone, and counted
  assert.ok(connection.send({ type: "react", reaction: "clap" }));
  second.open();
  assert.deepEqual(second.sent, [{ type: "second_path", v: 1, key: KEY, after: 2 }]);
  assert.ok(connection.send({ type: "ready", step: 0 }));
  assert.deepEqual(first.sent.slice(1), [{ type: "react", reaction: "clap" }, { type: "ready", step: 0 }]);
  assert.deepEqual(second.sent.slice(1), [{ type: "ready", step: 0 }]);
});

test("each message is delivered once, in order, whichever socket brought it first", () => {
  const { w, first, second } = twoPaths({ after: 1 });
  second.receive(talk(6, "one")); // index 1: the second path is ahead
  first.receive(talk(6, "one")); // its copy: dropped
  second.receive(talk(8, "three")); // index 2 on the second: due after "one"
  first.receive(talk(8, "three"));
  // the first ahead now: index 3 on the first, then the second's late copy
  first.receive(talk(9, "four"));
  second.receive(talk(9, "four"));
  assert.deepEqual(saidTexts(w), ["one", "three", "four"]);
  assert.deepEqual(
    w.events.map((e) => e.kind),
    ["received", "received", "received", "received"],
  );
});

test("a message the second path brings early waits for the first's earlier ones", () => {
  // the server had sent 3 on the first (welcome, a, b) when the second attached: the second's
  // first message is index 3, which waits until the first delivered a and b
  const { w, first, second } = twoPaths({ after: 3 });
  second.receive(talk(8, "c"));
  second.receive(talk(9, "d"));
  assert.deepEqual(saidTexts(w), []);
  first.receive(talk(6, "a"));
  assert.deepEqual(saidTexts(w), ["a"]);
  first.receive(talk(7, "b"));
  assert.deepEqual(saidTexts(w), ["a", "b", "c", "d"]);
  first.receive(talk(8, "c"));
  first.receive(talk(9, "d"));
  assert.deepEqual(saidTexts(w), ["a", "b", "c", "d"]);
});

test("a second path too far ahead is closed by the page and opened again after 2 s", () => {
  const { w, connection, first, second } = twoPaths({ after: 2 });
  for (let i = 0; i < 16; i++) second.receive(talk(7 + i, `ahead ${i}`));
  assert.equal(second.readyState, 1);
  second.receive(talk(23, "one too many"));
  assert.equal(second.readyState, 3, "closed: more than 16 messages ahead");
  assert.equal(w.sockets.length, 2);
  // the first brings everything, each once
  first.receive(talk(6, "a"));
  for (let i = 0; i < 16; i++) first.receive(talk(7 + i, `ahead ${i}`));
  assert.deepEqual(saidTexts(w), ["a", ...Array.from({ length: 16 }, (_, i) => `ahead ${i}`)]);
  assert.equal(w.fire(), 2000);
  const again = w.last();
  assert.equal(w.sockets.length, 3);
  again.open();
  assert.deepEqual(again.sent, [{ type: "second_path", v: 1, key: KEY, after: 1 }]);
  assert.ok(connection.send({ type: "ready", step: 0 }));
  assert.deepEqual(again.sent[1], { type: "ready", step: 0 });
});

test("a second path that keeps closing is tried three more times, after 2, 4 and 8 s", () => {
  const { w, first, second } = twoPaths();
  second.shut(4006); // replaced, say
  const delays = [];
  for (;;) {
    const timer = w.timers.findLast((t) => t !== null);
    if (timer === undefined) break;
    delays.push(w.fire());
    w.last().open();
    w.last().receive({ type: "error", code: "bad_path_key", message: "" });
    w.last().shut(4004);
  }
  assert.deepEqual(delays, [2000, 4000, 8000]);
  assert.equal(w.sockets.length, 5);
  // the first connection carries on alone, and nothing of the second reached the table
  assert.equal(first.readyState, 1);
  first.receive(talk(6, "still here"));
  assert.deepEqual(saidTexts(w), ["still here"]);
  assert.ok(!w.kinds().includes("notice") && !w.kinds().includes("reconnecting"));
});

test("when the first connection closes the second is closed and not opened again", () => {
  const { w, first, second } = twoPaths();
  first.shut(1006);
  assert.equal(second.readyState, 3);
  assert.deepEqual(w.kinds().slice(-1), ["reconnecting"]);
  w.fire(); // the first's reconnect: one new socket, the second path waits for its welcome
  assert.equal(w.sockets.length, 3);
  const resumed = w.last();
  resumed.open();
  assert.equal(resumed.sent[0].type, "resume_seat");
  resumed.receive(welcome("token-two-0123456789", { path_key: "Zz0_-abcdefghijklmnopq" }));
  assert.equal(w.sockets.length, 4);
  w.last().open();
  assert.deepEqual(w.last().sent, [{ type: "second_path", v: 1, key: "Zz0_-abcdefghijklmnopq", after: 1 }]);
  assert.ok(w.timers.every((t) => t === null));
});

test("a second path closed because its first connection closed is not opened again", () => {
  const { w, first, second } = twoPaths();
  second.shut(4006, "first connection closed"); // the first's own close is still on the way
  assert.ok(w.timers.every((t) => t === null));
  assert.equal(w.sockets.length, 2);
  assert.equal(first.readyState, 1);
});

test("close() closes both sockets", () => {
  const { w, connection, first, second } = twoPaths();
  connection.close();
  assert.equal(first.readyState, 3);
  assert.equal(second.readyState, 3);
  assert.deepEqual(w.kinds().slice(-1), ["ended"]);
  assert.ok(w.timers.every((t) => t === null));
});

test("a frame that cannot be decoded counts all the same: the next copy is not taken for it", () => {
  const { w, first, second } = twoPaths({ after: 1 });
  first.onmessage({ data: new Uint8Array([0xc1]).buffer, timeStamp: 1 }); // index 1: not msgpack
  second.onmessage({ data: new Uint8Array([0xc1]).buffer, timeStamp: 1 }); // its copy: dropped
  second.receive(talk(6, "after the bad one"));
  first.receive(talk(6, "after the bad one"));
  assert.deepEqual(saidTexts(w), ["after the bad one"]);
  assert.equal(w.events.filter((e) => e.kind === "notice").length, 1);
});
