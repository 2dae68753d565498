// The wire (PROTOCOL.md): server frames checked as strictly as the Python client does.

import { Decoder, Encoder } from "./msgpack.js";
import {
  ENUMS,
  FACE_DOWN_COUNTS,
  INTEGERS,
  MAX_ITEMS,
  MAX_PLAYERS,
  MAX_SERVER_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  RULE_DEFAULTS,
  RULE_NAMES,
  TEXTS,
  UNPRINTABLE_CATEGORIES,
} from "./vocabulary.js";

export { MAX_SERVER_MESSAGE_BYTES, PROTOCOL_VERSION };

/** A server frame that is not a valid message; `code` is the protocol's error code. */
export class WireError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "WireError";
    this.code = code;
  }
}

const decoder = new Decoder({
  // deal numbers use all 64 bits
  useBigInt64: true,
  maxStrLength: MAX_SERVER_MESSAGE_BYTES,
  maxBinLength: 0,
  maxArrayLength: 128,
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
    // a bigint, or a map holding one
    text = String(value);
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
    // a bigint only beyond 2**53 (a deal)
    return number;
  };
}

function oneOf(...allowed) {
  const base = typeof allowed[0] === "number" ? int(-SAFE, SAFE) : (v) => v;
  return (value, path) => {
    const got = base(value, path);
    return allowed.includes(got) ? got : bad(path, `one of ${allowed.join(", ")}`, value);
  };
}

// As protocol/fields.py: lengths in characters (code points), patterns matched whole.
const UNPRINTABLE = new RegExp("[" + UNPRINTABLE_CATEGORIES.map((c) => `\\p{${c}}`).join("") + "]", "u");
function text({ min, max, pattern = null, printable = false, normalize = false }) {
  const whole = pattern === null ? null : new RegExp(`^(?:${pattern})$`);
  return (given, path) => {
    const value = normalize && typeof given === "string" ? given.normalize("NFC").trim() : given;
    const length = typeof value === "string" ? [...value].length : -1;
    if (length < min || length > max) bad(path, `a string of ${min}..${max} characters`, value);
    if (whole !== null && !whole.test(value)) bad(path, `a string matching ${pattern}`, value);
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

// A count the page does arithmetic on stays a number: the wire allows up to 2**63-1, no
// room gets past 2**53-1 (seq, steps, rounds, games). A deal keeps all 64 bits.
const counted = ([low, high]) => int(low, typeof high === "bigint" ? SAFE : high);
const seat = counted(INTEGERS.seat);
const seq = counted(INTEGERS.seq);
const steps = counted(INTEGERS.steps);
const round = counted(INTEGERS.round);
const count = counted(INTEGERS.card_count);
const depth = counted(INTEGERS.depth);
const deal = int(...INTEGERS.deal);
const card = text(TEXTS.card);
const name = text(TEXTS.name);
const code = text(TEXTS.code);
const hex = text(TEXTS.hex64);
const enumOf = (values) => oneOf(...values);
const auto = enumOf(ENUMS.auto_play);
const rematch = enumOf(ENUMS.rematch_deal);
const seats = list(seat, MAX_PLAYERS);
const counts = list(count, MAX_PLAYERS);
const empty = () => [];
const standings = [list(counted(INTEGERS.place), MAX_PLAYERS), empty];
const seatCount = counted(INTEGERS.seat_count);
const computerNumber = counted(INTEGERS.computer_number);
const termination = enumOf(ENUMS.termination);
const fairness = record({ server_seed: hex, seeds: list(nil(hex), MAX_PLAYERS) });
const summary = record({ rounds: round, wars: round, longest_war: depth, biggest_haul: count, deal });
const sayText = text(TEXTS.say_text);
const reaction = enumOf(ENUMS.reaction);
// A talk line has a text or a reaction, never both (the other key is left out).
const talkLine = (value, path) => {
  const line = record({ seat: [nil(seat), null], text: [nil(sayText), null], reaction: [nil(reaction), null] })(value, path);
  if ((line.text === null) === (line.reaction === null)) bad(path, "a talk line with a text or a reaction", value);
  return line.text === null ? { seat: line.seat, reaction: line.reaction } : { seat: line.seat, text: line.text };
};
const eveningGame = record({
  game: counted(INTEGERS.game_number),
  deal,
  winner: nil(seat),
  termination,
  rounds: round,
  names: list(nil(name), MAX_PLAYERS),
});
const evening = list(eveningGame, MAX_ITEMS.evening);

// The rules: every setting optional, its default vocabulary/'s; an enum setting takes the
// values of the enum of its name.
const RULE_CHECKS = {
  players: counted(INTEGERS.players),
  face_down: enumOf(FACE_DOWN_COUNTS),
  round_limit: nil(counted(INTEGERS.round_limit)),
};
const rules = record(Object.fromEntries(RULE_NAMES.map((key) => [key, [RULE_CHECKS[key] ?? enumOf(ENUMS[key]), RULE_DEFAULTS[key]]])));

const state = record({
  room: text(TEXTS.room_id),
  phase: enumOf(ENUMS.room_phase),
  rules,
  seats: list(
    record({
      seat,
      name: [nil(name), null],
      computer: [bool, false],
      computer_number: [nil(computerNumber), null],
      connected: [bool, false],
      ready: [bool, false],
      auto: [auto, "off"],
      out: [bool, false],
      count: [count, 0],
      face_up: [list(card, MAX_ITEMS.face_up), empty],
      face_down: [count, 0],
      finish_vote: [bool, false],
      rematch_vote: [nil(rematch), null],
      seed_commitment: [nil(hex), null],
    }),
    MAX_ITEMS.seats,
  ),
  game: [counted(INTEGERS.game_number), 1],
  step: [steps, 0],
  round: [round, 0],
  war_depth: [depth, 0],
  war_seats: [seats, empty],
  waiting_for: [seats, empty],
  spectators: [counted(INTEGERS.spectators), 0],
  minutes: [nil(counted(INTEGERS.minutes)), null],
  seconds_left: [nil(counted(INTEGERS.seconds_left)), null],
  deal: [nil(deal), null],
  result: [nil(record({ winner: nil(seat), termination, summary, standings })), null],
  talk: [list(talkLine, MAX_ITEMS.talk), empty],
  talk_setting: [enumOf(ENUMS.talk_setting), "players"],
  evening: [evening, empty],
  deal_commitment: [nil(hex), null],
  fairness: [nil(fairness), null],
  seat_request: [nil(record({ seat, seconds: counted(INTEGERS.request_seconds) })), null],
  voids: [list(counted(INTEGERS.voids), MAX_PLAYERS), empty],
  awaiting_commitments: [bool, false],
});

const event = { seq, step: steps, round };
/** Every server message's fields (tests/client/web/wire.test.mjs: the same as vocabulary.js's SERVER_MESSAGES). */
export const SERVER = {
  welcome: {
    v: counted(INTEGERS.version),
    seq,
    seat: [nil(seat), null],
    token: [nil(text(TEXTS.token)), null],
    player_code: [nil(code), null],
    watch_code: [nil(code), null],
    state,
    addresses: [nil(list(text(TEXTS.page_url), MAX_ITEMS.page_urls)), null],
    outside: [nil(text(TEXTS.page_url)), null],
    path_key: [nil(text(TEXTS.path_key)), null],
  },
  snapshot: { seq, state },
  error: { code: text(TEXTS.error_code_text), message: [text(TEXTS.error_text), ""] },
  room_info: {
    seq,
    host: [nil(name), null],
    players: seatCount,
    free: [seatCount, 0],
    away: [seatCount, 0],
    phase: enumOf(ENUMS.room_phase),
  },
  second_path_ready: { after: int(...INTEGERS.path_after) },
  player_joined: { seq, seat, name, computer: [bool, false], computer_number: [nil(computerNumber), null] },
  player_left: { seq, seat },
  connection_changed: { seq, seat, connected: bool, rejoined: [bool, false] },
  ready_changed: { seq, seat, ready: bool },
  waiting_for: { seq, seats },
  auto_play_changed: { seq, seat, mode: auto, away: [bool, false] },
  finish_voted: { seq, seat },
  rematch_voted: { seq, seat, deal: rematch },
  spectators_changed: { seq, count: counted(INTEGERS.spectators) },
  game_started: {
    seq,
    game: counted(INTEGERS.game_number),
    counts,
    deal: [nil(deal), null],
    deal_commitment: [nil(hex), null],
    seed_commitments: [list(nil(hex), MAX_PLAYERS), empty],
  },
  deal_voided: { seq, seat, voids: counted(INTEGERS.voids) },
  time_up: { seq },
  cards_turned: { ...event, depth, cards: list(pair(seat, card), MAX_PLAYERS) },
  cards_laid_down: { ...event, depth, counts: list(pair(seat, count), MAX_PLAYERS) },
  war_declared: { ...event, depth, seats },
  cards_taken: { ...event, seat, count, counts },
  cards_returned: { ...event, counts },
  player_out: { ...event, seat, reason: enumOf(ENUMS.out_reason) },
  game_over: {
    seq,
    step: steps,
    winner: nil(seat),
    termination,
    summary,
    counts,
    standings,
    evening: [evening, empty],
    fairness: [nil(fairness), null],
  },
  seat_request_waiting: { seq, seat, seconds: counted(INTEGERS.request_seconds) },
  seat_requested: { seq, seat, seconds: counted(INTEGERS.request_seconds) },
  seat_request_ended: {
    seq,
    seat,
    outcome: enumOf(ENUMS.request_outcome),
    by: [nil(seat), null],
    reclaim: [counted(INTEGERS.request_seconds), 0],
  },
  reacted: { seq, seat: [nil(seat), null], reaction },
  said: { seq, seat: [nil(seat), null], text: sayText },
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
