// The wire (PROTOCOL.md): server frames checked as strictly as the Python client does.

import { Decoder } from "../vendor/msgpack/Decoder.mjs";
import { Encoder } from "../vendor/msgpack/Encoder.mjs";

export const PROTOCOL_VERSION = 1;
export const MAX_SERVER_MESSAGE_BYTES = 65536;

/** A server frame that is not a valid message; `code` is the protocol's error code. */
export class WireError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "WireError";
    this.code = code;
  }
}

const decoder = new Decoder({
  useBigInt64: true, // deal numbers use all 64 bits
  maxStrLength: MAX_SERVER_MESSAGE_BYTES,
  maxBinLength: 0,
  maxArrayLength: 64,
  maxMapLength: 32,
  maxExtLength: 0,
});
const encoder = new Encoder({ useBigInt64: true });
const SAFE = Number.MAX_SAFE_INTEGER;

function show(value) {
  let text;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value); // a bigint, or a map holding one
  }
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function bad(path, expected, value) {
  throw new WireError("bad_value", `${path} must be ${expected}, not ${show(value)}`);
}

// --- field checks: (value, path) -> value ------------------------------------------------
function int(low, high) {
  return (value, path) => {
    const number = typeof value === "bigint" && value >= -SAFE && value <= SAFE ? Number(value) : value;
    const fits = typeof high === "bigint" ? typeof number === "bigint" || Number.isInteger(number) : Number.isInteger(number);
    if (!fits || number < low || number > high) bad(path, `an int in ${low}..${high}`, value);
    return number; // a bigint only beyond 2**53 (a deal)
  };
}

function oneOf(...allowed) {
  const base = typeof allowed[0] === "number" ? int(-SAFE, SAFE) : (v) => v;
  return (value, path) => {
    const got = base(value, path);
    return allowed.includes(got) ? got : bad(path, `one of ${allowed.join(", ")}`, value);
  };
}

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
function text(min, max, pattern = null, printable = false) {
  return (value, path) => {
    if (typeof value !== "string" || value.length < min || value.length > max) {
      bad(path, `a string of ${min}..${max} characters`, value);
    }
    if (pattern !== null && !pattern.test(value)) bad(path, `a string matching ${pattern.source}`, value);
    if (printable && (UNPRINTABLE.test(value) || !value.trim())) bad(path, "printable text with a visible character", value);
    return value;
  };
}

const bool = (value, path) => (typeof value === "boolean" ? value : bad(path, "true or false", value));
const nil = (check) => (value, path) => (value === null ? null : check(value, path));
const list = (item, max) => (value, path) => {
  if (!Array.isArray(value) || value.length > max) bad(path, `a list of at most ${max}`, value);
  return value.map((entry, i) => item(entry, `${path}[${i}]`));
};
const pair = (first, second) => (value, path) => {
  if (!Array.isArray(value) || value.length !== 2) bad(path, "a pair", value);
  return [first(value[0], `${path}[0]`), second(value[1], `${path}[1]`)];
};

// A record: {field: check} for a required field, {field: [check, default]} for an optional
// one (a function default makes a fresh value). Unknown fields are ignored.
const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);
function record(fields) {
  return (value, path) => {
    if (!isMap(value)) bad(path, "a map", value);
    const out = {};
    for (const [name, spec] of Object.entries(fields)) {
      const [check, fallback] = Array.isArray(spec) ? spec : [spec];
      if (Object.hasOwn(value, name)) out[name] = check(value[name], `${path}.${name}`);
      else if (!Array.isArray(spec)) throw new WireError("missing_field", `${path}.${name} is missing`);
      else out[name] = typeof fallback === "function" ? fallback() : fallback;
    }
    return out;
  };
}

const seat = int(0, 3);
const seq = int(0, SAFE); // 2**63-1 on the wire: past 2**53 in no lifetime
const count = int(0, 52);
const many = int(0, SAFE);
const deal = int(0, 2n ** 64n - 1n);
const card = text(2, 2, /^[2-9TJQKA][SHDC]$/);
const name = text(1, 24, null, true);
const code = text(4, 32, /^[A-Za-z0-9-]+$/);
const auto = oneOf("off", "calm", "quick");
const rematch = oneOf("new", "same");
const seats = list(seat, 4);
const counts = list(count, 4);
const empty = () => [];
const termination = oneOf("all_cards", "opponents_short", "both_short", "round_limit", "time_limit", "endless");
const summary = record({ rounds: many, wars: many, longest_war: count, biggest_haul: count, deal });

const state = record({
  room: text(1, 32, /^[A-Za-z0-9-]+$/),
  phase: oneOf("waiting", "playing", "over"),
  rules: record({
    players: [oneOf(2, 3, 4), 2],
    face_down: [oneOf(1, 3), 1],
    aces: [oneOf("high", "low"), "high"],
    short_war: [oneOf("lose", "last_card"), "lose"],
    both_short: [oneOf("play_on", "end"), "play_on"],
    won_cards: [oneOf("shuffle", "fixed"), "shuffle"],
    fixed_order: [oneOf("winner", "seat0"), "winner"],
    round_limit: [nil(int(1, 1_000_000)), null],
    tie_break: [oneOf("draw", "battle"), "draw"],
  }),
  seats: list(
    record({
      seat,
      name: [nil(name), null],
      computer: [bool, false],
      connected: [bool, false],
      ready: [bool, false],
      auto: [auto, "off"],
      out: [bool, false],
      count: [count, 0],
      face_up: [list(card, 52), empty],
      face_down: [count, 0],
      finish_vote: [bool, false],
      rematch_vote: [nil(rematch), null],
    }),
    4,
  ),
  game: [int(1, SAFE), 1],
  step: [many, 0],
  round: [many, 0],
  war_depth: [count, 0],
  war_seats: [seats, empty],
  waiting_for: [seats, empty],
  spectators: [many, 0],
  minutes: [nil(int(1, 1440)), null],
  seconds_left: [nil(many), null],
  deal: [nil(deal), null],
  result: [nil(record({ winner: nil(seat), termination, summary })), null],
});

const event = { seq, step: many, round: many };
const SERVER = {
  welcome: {
    v: int(0, 255),
    seq,
    seat: [nil(seat), null],
    token: [nil(text(16, 128, /^[A-Za-z0-9_-]+$/)), null],
    player_code: [nil(code), null],
    watch_code: [nil(code), null],
    state,
  },
  snapshot: { seq, state },
  error: { code: text(1, 64), message: [text(0, 500), ""] },
  player_joined: { seq, seat, name, computer: [bool, false] },
  player_left: { seq, seat },
  connection_changed: { seq, seat, connected: bool, rejoined: [bool, false] },
  ready_changed: { seq, seat, ready: bool },
  waiting_for: { seq, seats },
  auto_play_changed: { seq, seat, mode: auto, away: [bool, false] },
  finish_voted: { seq, seat },
  rematch_voted: { seq, seat, deal: rematch },
  spectators_changed: { seq, count: many },
  game_started: { seq, game: int(1, SAFE), counts, deal: [nil(deal), null] },
  time_up: { seq },
  cards_turned: { ...event, depth: count, cards: list(pair(seat, card), 4) },
  cards_laid_down: { ...event, depth: count, counts: list(pair(seat, count), 4) },
  war_declared: { ...event, depth: count, seats },
  cards_taken: { ...event, seat, count, counts },
  cards_returned: { ...event, counts },
  player_out: { ...event, seat, reason: oneOf("no_cards", "short_war") },
  game_over: { seq, step: many, winner: nil(seat), termination, summary, counts },
};
const CHECKS = Object.fromEntries(Object.entries(SERVER).map(([type, fields]) => [type, record(fields)]));

/** Check a decoded value (a map with "type"); return the message with defaults filled. */
export function checkServerMessage(value) {
  if (!isMap(value)) throw new WireError("bad_message", `a message must be a map, not ${show(value)}`);
  const type = value.type;
  if (typeof type !== "string") throw new WireError("bad_message", "a message needs a string type");
  if (!Object.hasOwn(CHECKS, type)) throw new WireError("unknown_type", `unknown message type ${show(type)}`);
  return { type, ...CHECKS[type](value, type) };
}

/** Decode one server frame (an ArrayBuffer or Uint8Array) into a checked message. */
export function decodeServerMessage(data) {
  if (typeof data === "string") throw new WireError("binary_only", "messages are binary frames, not text");
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.byteLength > MAX_SERVER_MESSAGE_BYTES) throw new WireError("too_large", `a frame of ${bytes.byteLength} bytes`);
  if (!bytes.byteLength) throw new WireError("malformed", "empty message");
  let value;
  try {
    value = decoder.decode(bytes);
  } catch (error) {
    throw new WireError("malformed", `not one msgpack value: ${error.message}`);
  }
  return checkServerMessage(value);
}

// Above 32 bits the encoder writes a number as a float: such integers go as bigints.
function wireValue(value) {
  if (Number.isInteger(value) && (value >= 2 ** 32 || value < -(2 ** 31))) return BigInt(value);
  if (Array.isArray(value)) return value.map(wireValue);
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wireValue(v)]));
  return value;
}

/** Encode a client message ({type, ...fields}) as one binary frame. */
export const encodeClientMessage = (message) => encoder.encode(wireValue(message));
