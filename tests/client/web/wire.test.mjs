// The page's codec: server frames are checked as strictly as the Python client checks
// them (PROTOCOL.md §2), and client messages keep integers integers.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Decoder, Encoder } from "../../../client/web/js/msgpack.js";
import { WireError, decodeServerMessage, encodeClientMessage } from "../../../client/web/js/wire.js";

const encoder = new Encoder({ useBigInt64: true });
const pack = (value) => encoder.encode(value);

function refused(value, code, pattern = /./) {
  const frame = value instanceof Uint8Array ? value : pack(value);
  assert.throws(() => decodeServerMessage(frame), (error) => {
    assert.ok(error instanceof WireError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

const seat = { seat: 0, name: "Ann", connected: true };
const state = { room: "r8k2", phase: "waiting", rules: {}, seats: [seat, { seat: 1 }] };

test("a welcome gets every default filled in", () => {
  const message = decodeServerMessage(pack({ type: "welcome", v: 1, seq: 1, state }));
  assert.equal(message.seat, null);
  assert.equal(message.token, null);
  assert.deepEqual(message.state.rules, {
    players: 2,
    face_down: 1,
    aces: "high",
    short_war: "lose",
    both_short: "play_on",
    won_cards: "shuffle",
    fixed_order: "winner",
    taken_back: "as_won",
    round_limit: null,
    tie_break: "draw",
  });
  assert.deepEqual(message.state.seats[1], {
    seat: 1,
    name: null,
    computer: false,
    computer_number: null,
    connected: false,
    ready: false,
    auto: "off",
    out: false,
    count: 0,
    face_up: [],
    face_down: 0,
    finish_vote: false,
    rematch_vote: null,
    seed_commitment: null,
  });
  assert.equal(message.state.game, 1);
  // a computer seat's number (1–3) is checked like any other field
  const computers = { ...state, seats: [seat, { seat: 1, name: "Computer", computer: true, computer_number: 1 }] };
  assert.equal(decodeServerMessage(pack({ type: "welcome", v: 1, seq: 1, state: computers })).state.seats[1].computer_number, 1);
  const wrong = { ...state, seats: [seat, { seat: 1, name: "Computer", computer: true, computer_number: 4 }] };
  assert.throws(() => decodeServerMessage(pack({ type: "welcome", v: 1, seq: 1, state: wrong })), /computer_number/);
  assert.equal(message.state.deal_commitment, null);
  assert.equal(message.state.fairness, null);
});

test("the fair-deal fields are checked: 64 lowercase hex digits, or nil", () => {
  const hex = "ab".repeat(32);
  const started = decodeServerMessage(pack({ type: "game_started", seq: 3, game: 1, counts: [26, 26], deal_commitment: hex, seed_commitments: [hex, null] }));
  assert.deepEqual(started.seed_commitments, [hex, null]);
  const over = { type: "game_over", seq: 9, step: 1, winner: 0, termination: "all_cards", counts: [52, 0] };
  const summary = { rounds: 1, wars: 0, longest_war: 0, biggest_haul: 2, deal: 1 };
  const fairness = { server_seed: hex, seeds: [hex, null] };
  assert.deepEqual(decodeServerMessage(pack({ ...over, summary, fairness })).fairness, fairness);
  for (const bad of ["AB".repeat(32), "ab".repeat(31), 7]) {
    assert.throws(() => decodeServerMessage(pack({ ...over, summary, fairness: { ...fairness, server_seed: bad } })), /bad_value|must/);
  }
  assert.deepEqual(decodeServerMessage(pack({ type: "deal_voided", seq: 4, seat: 1, voids: 2 })), { type: "deal_voided", seq: 4, seat: 1, voids: 2 });
  assert.throws(() => decodeServerMessage(pack({ type: "seed_dropped", seq: 4, seat: 1 })), /unknown message type/);
});

test("unknown fields are ignored, at any level", () => {
  const message = decodeServerMessage(
    pack({ type: "time_up", seq: 3, later: [1, 2], nested: { a: 1 } }),
  );
  assert.deepEqual(message, { type: "time_up", seq: 3 });
  const welcome = decodeServerMessage(
    pack({ type: "welcome", v: 1, seq: 1, state: { ...state, mood: "happy", rules: { colour: "red" } } }),
  );
  assert.equal(welcome.state.mood, undefined);
  assert.equal(welcome.state.rules.colour, undefined);
});

test("a 64-bit deal stays exact", () => {
  const deal = 2n ** 64n - 1n;
  const message = decodeServerMessage(pack({ type: "game_started", seq: 9, game: 1, counts: [26, 26], deal }));
  assert.equal(message.deal, deal);
  const small = decodeServerMessage(pack({ type: "game_started", seq: 9, game: 1, counts: [26, 26], deal: 42 }));
  assert.equal(small.deal, 42);
});

test("bad frames are refused with the protocol's codes", () => {
  refused(new Uint8Array(), "malformed");
  refused(new Uint8Array([0x92, 0x01]), "malformed"); // truncated
  refused(new Uint8Array([...pack({ type: "time_up", seq: 1 }), 0x00]), "malformed", /Extra/);
  refused(new Uint8Array([0xc4, 0x01, 0x00]), "malformed"); // bin
  refused(new Uint8Array([0xd6, 0xff, 0, 0, 0, 0]), "malformed"); // a timestamp (ext)
  refused(new Uint8Array([0xc1]), "malformed"); // reserved
  refused(pack(Array.from({ length: 129 }, () => 1)), "malformed"); // too long an array
  refused(new Uint8Array(131073), "too_large");
  assert.throws(() => decodeServerMessage("text"), (e) => e.code === "binary_only");
  refused(pack([1, 2]), "bad_message");
  refused(pack({ seq: 1 }), "bad_message");
  refused(pack({ type: "ready", step: 1 }), "unknown_type", /'?ready'?/);
  const polluting = JSON.parse('{"type": "time_up", "seq": 1, "__proto__": {"polluted": true}}');
  refused(pack(polluting), "malformed", /__proto__/); // the library refuses the key itself
  assert.equal({}.polluted, undefined);
  refused(pack({ type: "constructor" }), "unknown_type");
  refused(pack({ type: "player_left" }), "missing_field", /player_left\.seq/);
});

test("every field is checked: type, range, length, pattern", () => {
  refused({ type: "player_left", seq: 1, seat: 4 }, "bad_value", /player_left\.seat must be an int in 0\.\.3, not 4/);
  refused({ type: "player_left", seq: -1, seat: 0 }, "bad_value");
  refused({ type: "player_left", seq: 1.5, seat: 0 }, "bad_value");
  refused({ type: "player_left", seq: true, seat: 0 }, "bad_value");
  refused({ type: "player_left", seq: 2n ** 63n, seat: 0 }, "bad_value");
  refused({ type: "ready_changed", seq: 1, seat: 0, ready: 1 }, "bad_value", /true or false/);
  refused({ type: "player_joined", seq: 1, seat: 0, name: "" }, "bad_value");
  refused({ type: "player_joined", seq: 1, seat: 0, name: "a\u0007b" }, "bad_value", /printable/);
  refused({ type: "player_joined", seq: 1, seat: 0, name: "   " }, "bad_value", /printable/);
  refused({ type: "player_joined", seq: 1, seat: 0, name: "x".repeat(25) }, "bad_value");
  refused({ type: "auto_play_changed", seq: 1, seat: 0, mode: "fast" }, "bad_value", /one of off, calm, quick/);
  refused({ type: "cards_turned", seq: 1, step: 1, round: 1, depth: 0, cards: [[0, "1S"]] }, "bad_value", /cards\[0\]\[1\]/);
  refused({ type: "cards_turned", seq: 1, step: 1, round: 1, depth: 0, cards: [[0]] }, "bad_value", /a pair/);
  refused({ type: "cards_taken", seq: 1, step: 1, round: 1, seat: 0, count: 53, counts: [] }, "bad_value");
  refused({ type: "welcome", v: 1, seq: 1, state: { ...state, rules: { players: 5 } } }, "bad_value", /rules\.players/);
  refused({ type: "welcome", v: 1, seq: 1, state: { ...state, rules: { face_down: 2 } } }, "bad_value", /one of 1, 3/);
  refused({ type: "welcome", v: 1, seq: 1, state: { ...state, seats: "none" } }, "bad_value");
  refused({ type: "welcome", v: 1, seq: 1, token: "short", state }, "bad_value");
  refused({ type: "error", code: "" }, "bad_value");
  refused({ type: "error", code: "x", message: "m".repeat(501) }, "bad_value");
});

test("an error from the server needs only a code", () => {
  assert.deepEqual(decodeServerMessage(pack({ type: "error", code: "someday_new" })), {
    type: "error",
    code: "someday_new",
    message: "",
  });
});

test("client messages keep integers integers, at any size", () => {
  const decoder = new Decoder({ useBigInt64: true });
  const big = decoder.decode(encodeClientMessage({ type: "create_room", v: 1, name: "Ann", deal: 2 ** 53 - 1 }));
  assert.equal(big.deal, BigInt(2 ** 53 - 1)); // written as a 64-bit integer, not a float
  const huge = decoder.decode(encodeClientMessage({ type: "create_room", v: 1, name: "Ann", deal: 2n ** 64n - 1n }));
  assert.equal(huge.deal, 2n ** 64n - 1n);
  const frame = encodeClientMessage({ type: "ready", step: 7 });
  assert.deepEqual([...frame], [0x82, 0xa4, ...Buffer.from("type"), 0xa5, ...Buffer.from("ready"), 0xa4, ...Buffer.from("step"), 0x07]);
});

test("talk: a line has a text or a reaction, the said text is plain and normalized", () => {
  const talk = [{ seat: 1, reaction: "clap" }, { seat: null, text: "Go Grandma!" }];
  const evening = [{ game: 1, deal: 7, winner: 0, termination: "all_cards", rounds: 12, names: ["Grandma", "Ben"] }];
  const message = decodeServerMessage(pack({ type: "snapshot", seq: 3, state: { ...state, talk, talk_setting: "all", evening } }));
  assert.deepEqual(message.state.talk, talk);
  assert.equal(message.state.talk_setting, "all");
  assert.deepEqual(message.state.evening, evening);
  const plain = decodeServerMessage(pack({ type: "welcome", v: 1, seq: 1, state }));
  assert.deepEqual([plain.state.talk, plain.state.talk_setting, plain.state.evening], [[], "players", []]);
  refused({ type: "snapshot", seq: 3, state: { ...state, talk: [{ seat: 0 }] } }, "bad_value", /talk line/);
  refused({ type: "snapshot", seq: 3, state: { ...state, talk: [{ seat: 0, text: "hi", reaction: "clap" }] } }, "bad_value");
  refused({ type: "reacted", seq: 4, seat: 0, reaction: "applause" }, "bad_value");
  refused({ type: "said", seq: 4, seat: 0, text: "two\nlines" }, "bad_value");
  refused({ type: "said", seq: 4, seat: 0, text: "x".repeat(121) }, "bad_value");
  const said = decodeServerMessage(pack({ type: "said", seq: 4, seat: null, text: "<b>hi</b>" }));
  assert.deepEqual(said, { type: "said", seq: 4, seat: null, text: "<b>hi</b>" });
  const over = decodeServerMessage(
    pack({ type: "game_over", seq: 9, step: 3, winner: null, termination: "time_limit", summary: { rounds: 1, wars: 0, longest_war: 0, biggest_haul: 2, deal: 5 }, counts: [1, 1], evening }),
  );
  assert.deepEqual(over.evening, evening);
});
