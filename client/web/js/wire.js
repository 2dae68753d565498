// The wire: one msgpack value per binary frame (protocol/PROTOCOL.md §1-§5).
//
// decodeServerMessage(bytes) checks a server frame as strictly as the Python client's
// codec does (types, ranges, lengths, patterns; bin and ext values refused; unknown
// fields ignored) and returns a plain object with every optional field filled in with
// its default. encodeClientMessage(message) writes a client message; integers stay
// integers (anything above 32 bits goes out as a 64-bit integer, never a float).
// Field names are the wire's own (snake_case), so this code reads like PROTOCOL.md.

import { Decoder } from "../vendor/msgpack/Decoder.mjs";
import { Encoder } from "../vendor/msgpack/Encoder.mjs";

export const PROTOCOL_VERSION = 1;
export const MAX_SERVER_MESSAGE_BYTES = 65536;

/** A server frame that is not a valid message (the reason names the field and value). */
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

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_DEAL = 2n ** 64n - 1n;

function show(value) {
  let text;
  try {
    text = typeof value === "bigint" ? `${value}` : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  text = text === undefined ? String(value) : text;
  return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
}

function bad(path, expected, value) {
  throw new WireError("bad_value", `${path} must be ${expected}, not ${show(value)}`);
}

// --- field checks: (value, path) -> value ------------------------------------------------
function int(low, high) {
  const big = typeof high === "bigint";
  return (value, path) => {
    let number = value;
    if (typeof value === "bigint") {
      if (!big && (value > MAX_SAFE || value < -MAX_SAFE)) bad(path, `an int in ${low}..${high}`, value);
      number = big && (value > MAX_SAFE || value < -MAX_SAFE) ? value : Number(value);
    } else if (!Number.isInteger(value)) {
      bad(path, `an int in ${low}..${high}`, value);
    }
    if (number < low || number > high) bad(path, `an int in ${low}..${high}`, value);
    return number;
  };
}

const bool = (value, path) => (typeof value === "boolean" ? value : bad(path, "true or false", value));

function text(min, max, pattern = null, printable = false) {
  return (value, path) => {
    if (typeof value !== "string" || value.length < min || value.length > max) {
      bad(path, `a string of ${min}..${max} characters`, value);
    }
    if (pattern !== null && !pattern.test(value)) bad(path, `a string matching ${pattern.source}`, value);
    if (printable && (UNPRINTABLE.test(value) || value.trim() === "")) {
      bad(path, "printable text with a visible character", value);
    }
    return value;
  };
}

function oneOf(...words) {
  return (value, path) => (words.includes(value) ? value : bad(path, `one of ${words.join(", ")}`, value));
}

function list(item, max = 64) {
  return (value, path) => {
    if (!Array.isArray(value) || value.length > max) bad(path, `a list of at most ${max}`, value);
    return value.map((entry, index) => item(entry, `${path}[${index}]`));
  };
}

function pair(first, second) {
  return (value, path) => {
    if (!Array.isArray(value) || value.length !== 2) bad(path, "a pair", value);
    return [first(value[0], `${path}[0]`), second(value[1], `${path}[1]`)];
  };
}

const nil = (check) => (value, path) => (value === null ? null : check(value, path));

// A record: { field: [check, required?, default] }; unknown fields are ignored.
const REQUIRED = Symbol("required");
function record(fields) {
  return (value, path) => {
    if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Uint8Array) {
      bad(path, "a map", value);
    }
    const out = {};
    for (const [name, [check, fallback]] of Object.entries(fields)) {
      if (!Object.hasOwn(value, name)) {
        if (fallback === REQUIRED) {
          throw new WireError("missing_field", `${path}.${name} is missing`);
        }
        out[name] = typeof fallback === "function" ? fallback() : fallback;
        continue;
      }
      out[name] = check(value[name], `${path}.${name}`);
    }
    return out;
  };
}

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const seat = int(0, 3);
const seq = int(0, Number.MAX_SAFE_INTEGER); // 2**63-1 on the wire: beyond 2**53 in no lifetime
const steps = seq;
const count = int(0, 52);
const depth = int(0, 52);
const deal = int(0, MAX_DEAL);
const card = text(2, 2, /^[2-9TJQKA][SHDC]$/);
const name = text(1, 24, null, true);
const code = text(4, 32, /^[A-Za-z0-9-]+$/);
const auto = oneOf("off", "calm", "quick");
const rematchDeal = oneOf("new", "same");
const req = (check) => [check, REQUIRED];
const opt = (check, fallback) => [check, fallback];

const rules = record({
  players: opt(oneOfInt(2, 3, 4), 2),
  face_down: opt(oneOfInt(1, 3), 1),
  aces: opt(oneOf("high", "low"), "high"),
  short_war: opt(oneOf("lose", "last_card"), "lose"),
  won_cards: opt(oneOf("shuffle", "fixed"), "shuffle"),
  round_limit: opt(nil(int(1, 1_000_000)), null),
  tie_break: opt(oneOf("draw", "battle"), "draw"),
});

function oneOfInt(...numbers) {
  const check = int(Math.min(...numbers), Math.max(...numbers));
  return (value, path) => {
    const number = check(value, path);
    return numbers.includes(number) ? number : bad(path, `one of ${numbers.join(", ")}`, value);
  };
}

const seatRecord = record({
  seat: req(seat),
  name: opt(nil(name), null),
  computer: opt(bool, false),
  connected: opt(bool, false),
  ready: opt(bool, false),
  auto: opt(auto, "off"),
  out: opt(bool, false),
  count: opt(count, 0),
  face_up: opt(list(card, 52), () => []),
  face_down: opt(count, 0),
  finish_vote: opt(bool, false),
  rematch_vote: opt(nil(rematchDeal), null),
});

const termination = oneOf("all_cards", "opponents_short", "both_short", "round_limit", "time_limit", "endless");
const summary = record({
  rounds: req(steps),
  wars: req(steps),
  longest_war: req(depth),
  biggest_haul: req(count),
  deal: req(deal),
});
const result = record({ winner: req(nil(seat)), termination: req(termination), summary: req(summary) });

const state = record({
  room: req(text(1, 32, /^[A-Za-z0-9-]+$/)),
  phase: req(oneOf("waiting", "playing", "over")),
  rules: req(rules),
  seats: req(list(seatRecord, 4)),
  game: opt(int(1, Number.MAX_SAFE_INTEGER), 1),
  step: opt(steps, 0),
  round: opt(steps, 0),
  war_depth: opt(depth, 0),
  war_seats: opt(list(seat, 4), () => []),
  waiting_for: opt(list(seat, 4), () => []),
  spectators: opt(int(0, Number.MAX_SAFE_INTEGER), 0),
  minutes: opt(nil(int(1, 1440)), null),
  seconds_left: opt(nil(int(0, Number.MAX_SAFE_INTEGER)), null),
  deal: opt(nil(deal), null),
  result: opt(nil(result), null),
});

const counts = list(count, 4);
const event = { seq: req(seq), step: req(steps), round: req(steps) };

const SERVER_MESSAGES = {
  welcome: record({
    v: req(int(0, 255)),
    seq: req(seq),
    seat: opt(nil(seat), null),
    token: opt(nil(text(16, 128, /^[A-Za-z0-9_-]+$/)), null),
    player_code: opt(nil(code), null),
    watch_code: opt(nil(code), null),
    state: req(state),
  }),
  snapshot: record({ seq: req(seq), state: req(state) }),
  error: record({ code: req(text(1, 64)), message: opt(text(0, 500), "") }),
  player_joined: record({ seq: req(seq), seat: req(seat), name: req(name), computer: opt(bool, false) }),
  player_left: record({ seq: req(seq), seat: req(seat) }),
  connection_changed: record({ seq: req(seq), seat: req(seat), connected: req(bool) }),
  ready_changed: record({ seq: req(seq), seat: req(seat), ready: req(bool) }),
  waiting_for: record({ seq: req(seq), seats: req(list(seat, 4)) }),
  auto_play_changed: record({ seq: req(seq), seat: req(seat), mode: req(auto) }),
  finish_voted: record({ seq: req(seq), seat: req(seat) }),
  rematch_voted: record({ seq: req(seq), seat: req(seat), deal: req(rematchDeal) }),
  spectators_changed: record({ seq: req(seq), count: req(int(0, Number.MAX_SAFE_INTEGER)) }),
  game_started: record({
    seq: req(seq),
    game: req(int(1, Number.MAX_SAFE_INTEGER)),
    counts: req(counts),
    deal: opt(nil(deal), null),
  }),
  time_up: record({ seq: req(seq) }),
  cards_turned: record({ ...event, depth: req(depth), cards: req(list(pair(seat, card), 4)) }),
  cards_laid_down: record({ ...event, depth: req(depth), counts: req(list(pair(seat, count), 4)) }),
  war_declared: record({ ...event, depth: req(depth), seats: req(list(seat, 4)) }),
  cards_taken: record({ ...event, seat: req(seat), count: req(count), counts: req(counts) }),
  cards_returned: record({ ...event, counts: req(counts) }),
  player_out: record({ ...event, seat: req(seat), reason: req(oneOf("no_cards", "short_war")) }),
  game_over: record({
    seq: req(seq),
    step: req(steps),
    winner: req(nil(seat)),
    termination: req(termination),
    summary: req(summary),
    counts: req(counts),
  }),
};

/** Check a decoded value (a map with "type") and return the message, defaults filled. */
export function checkServerMessage(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Uint8Array) {
    throw new WireError("bad_message", `a message must be a map, not ${show(value)}`);
  }
  const type = value.type;
  if (typeof type !== "string") throw new WireError("bad_message", "a message needs a string type");
  const check = Object.hasOwn(SERVER_MESSAGES, type) ? SERVER_MESSAGES[type] : null;
  if (check === null) throw new WireError("unknown_type", `unknown message type ${show(type)}`);
  return { type, ...check(value, type) };
}

/** Decode one server frame (an ArrayBuffer or Uint8Array) into a checked message. */
export function decodeServerMessage(data) {
  if (typeof data === "string") throw new WireError("binary_only", "messages are binary frames, not text");
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.byteLength > MAX_SERVER_MESSAGE_BYTES) {
    throw new WireError("too_large", `message of ${bytes.byteLength} bytes exceeds the limit`);
  }
  if (bytes.byteLength === 0) throw new WireError("malformed", "empty message");
  let value;
  try {
    value = decoder.decode(bytes);
  } catch (error) {
    throw new WireError("malformed", `not one msgpack value: ${error.message}`);
  }
  return checkServerMessage(value);
}

function wireValue(value) {
  if (typeof value === "number" && Number.isInteger(value) && (value >= 2 ** 32 || value < -(2 ** 31))) {
    return BigInt(value); // above 32 bits the encoder would write a float for a number
  }
  if (Array.isArray(value)) return value.map(wireValue);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, wireValue(item)]));
  }
  return value;
}

/** Encode a client message ({type, ...fields}) as one binary frame. */
export function encodeClientMessage(message) {
  return encoder.encode(wireValue(message));
}
