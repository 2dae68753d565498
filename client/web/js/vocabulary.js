// The words both clients share, written from the Python sources by
// tools/generate_vocabulary.py (`make vocabulary`): the enums, bounds and defaults
// of vocabulary/ and protocol/, what the close codes mean to client/net/policy.py, and the
// phase table of server/core/room/phases.py. Never edit it by hand;
// tests/client/web/test_vocabulary.py fails when it is out of date.

const frozen = (value) => {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) frozen(item);
    Object.freeze(value);
  }
  return value;
};

/** The protocol version this client speaks. */
export const PROTOCOL_VERSION = 1;

/** The largest server frame a client accepts. */
export const MAX_SERVER_MESSAGE_BYTES = 131072;

/** Every enum of the wire: its values, in order. */
export const ENUMS = frozen({
  aces: ["high", "low"],
  short_war: ["lose", "last_card"],
  both_short: ["play_on", "end"],
  won_cards: ["shuffle", "fixed"],
  fixed_order: ["winner", "seat0"],
  taken_back: ["as_won", "as_laid"],
  tie_break: ["draw", "battle"],
  termination: ["all_cards", "opponents_short", "both_short", "round_limit", "time_limit", "endless"],
  out_reason: ["no_cards", "short_war"],
  auto_play: ["off", "calm", "quick"],
  rematch_deal: ["new", "same"],
  room_phase: ["waiting", "playing", "over"],
  request_outcome: ["allowed", "away_long", "refused", "expired", "withdrawn", "returned"],
  talk_setting: ["all", "players", "reactions", "off"],
  reaction: [
    "clap",
    "wow",
    "laugh",
    "sad",
    "love",
    "party",
    "scared",
    "oops",
    "good_game",
    "well_played",
    "oh_no",
    "one_more",
  ],
});

/** The most players a game has (seats 0 to MAX_PLAYERS-1). */
export const MAX_PLAYERS = 4;

/** How many may play one game. */
export const PLAYER_COUNTS = frozen([2, 3, 4]);

/** Cards laid face down in a war. */
export const FACE_DOWN_COUNTS = frozen([1, 3]);

/** The highest round limit. */
export const MAX_ROUND_LIMIT = 1000000;

/** The longest time limit, in minutes. */
export const MAX_MINUTES = 1440;

/** The highest deal number. */
export const MAX_DEAL = 18446744073709551615n;

/** Every rule setting's default. */
export const RULE_DEFAULTS = frozen({
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

/** The rule settings, in order. */
export const RULE_NAMES = frozen(Object.keys(RULE_DEFAULTS));

/** Each integer field type's [lowest, highest]. */
export const INTEGERS = frozen({
  card_count: [0, 52],
  computer_number: [1, 3],
  computers: [0, 3],
  deal: [0, 18446744073709551615n],
  depth: [0, 52],
  face_down: [1, 3],
  game_number: [1, 9223372036854775807n],
  minutes: [1, 1440],
  path_after: [0, 2147483647],
  place: [1, 4],
  players: [2, 4],
  request_seconds: [0, 86400],
  round: [0, 9223372036854775807n],
  round_limit: [1, 1000000],
  seat: [0, 3],
  seat_count: [0, 4],
  seconds_left: [0, 86400],
  seq: [0, 9223372036854775807n],
  spectators: [0, 1000000],
  steps: [0, 9223372036854775807n],
  version: [0, 65535],
  voids: [0, 9223372036854775807n],
});

/**
 * Each text field type: its length in characters (code points), the pattern it matches whole
 * if any, printable if it may hold no character of UNPRINTABLE_CATEGORIES and not only spaces,
 * normalize if it is checked after NFC and stripping the spaces around it.
 */
export const TEXTS = frozen({
  card: { min: 2, max: 2, pattern: "[2-9TJQKA][SHDC]" },
  code: { min: 4, max: 32, pattern: "[A-Za-z0-9-]+" },
  error_code_text: { min: 1, max: 40, pattern: "[a-z][a-z0-9_]*" },
  error_text: { min: 0, max: 500 },
  hex64: { min: 64, max: 64, pattern: "[0-9a-f]{64}" },
  name: { min: 1, max: 24, printable: true },
  page_url: { min: 8, max: 200, pattern: "https?://[!-~]+" },
  password: { min: 1, max: 128, printable: true },
  path_key: { min: 22, max: 22, pattern: "[A-Za-z0-9_-]{22}" },
  room_id: { min: 1, max: 32, pattern: "[A-Za-z0-9-]+" },
  say_text: { min: 1, max: 120, printable: true, normalize: true },
  token: { min: 16, max: 128, pattern: "[A-Za-z0-9_-]+" },
});

/** The Unicode categories a printable text may not hold. */
export const UNPRINTABLE_CATEGORIES = frozen(["Cc", "Cf", "Cs", "Zl", "Zp"]);

/** The longest arrays of the room's state. */
export const MAX_ITEMS = frozen({ seats: 4, face_up: 52, page_urls: 16, talk: 50, evening: 100 });

/**
 * The errors after which the server closes the connection, and with which close code; any
 * other error leaves it open, unless no room was open yet (then 4004).
 */
export const CLOSE_AFTER_ERROR = frozen({
  unsupported_version: 4000,
  password_required: 4004,
  bad_password: 4004,
  ask_for_invitation: 4004,
  unknown_code: 4004,
  watch_code: 4004,
  bad_token: 4004,
  bad_path_key: 4004,
  room_full: 4004,
  spectators_full: 1013,
  too_many_rooms: 1013,
  too_many_connections: 1013,
  too_many_failures: 1008,
  binary_only: 1003,
  too_large: 1009,
  internal_error: 1011,
  seat_taken_back: 4002,
  store_unavailable: 1013,
});

/** Closes after which a client reconnects and resumes (1006: no close frame). */
export const RETRY_CLOSE_CODES = frozen([1006, 1011, 1012, 1013, 4001, 4005]);

/** Closes that end a room normally (a spectator, or anyone after game over, stops). */
export const ROOM_ENDED_CLOSE_CODES = frozen([1000, 4003]);

/** Refusals of a stored seat after which a client joins anew. */
export const STALE_SEAT_ERRORS = frozen(["bad_token", "unknown_code"]);

/** The reconnect backoff, in seconds. */
export const RECONNECT_POLICY = frozen({ base: 0.25, cap: 10.0, storeBase: 5.0, storeCap: 60.0, giveUpAfter: 300.0 });

/** How long before the time limit's end the one-minute line is said. */
export const WARN_SECONDS = 60;

/** The order the auto-play key steps through. */
export const AUTO_CYCLE = frozen(["off", "calm", "quick"]);

/** How many of the latest room messages a view keeps. */
export const RECENT_LIMIT = 16;

/**
 * Which room command a seat or a spectator may send in which phase: the phases in which the
 * server refuses it, with the error code; a phase not listed accepts it.
 */
export const PHASE_TABLE = frozen({
  ready: {
    seat: { waiting: "game_not_started", over: "game_over" },
    spectator: { waiting: "not_seated", playing: "not_seated", over: "not_seated" },
  },
  commit: {
    seat: { waiting: "game_not_started", over: "game_over" },
    spectator: { waiting: "not_seated", playing: "not_seated", over: "not_seated" },
  },
  set_auto_play: {
    seat: { over: "game_over" },
    spectator: { waiting: "not_seated", playing: "not_seated", over: "not_seated" },
  },
  vote_finish: {
    seat: { waiting: "game_not_started", over: "game_over" },
    spectator: { waiting: "not_seated", playing: "not_seated", over: "not_seated" },
  },
  rematch: {
    seat: { waiting: "game_not_started", playing: "game_in_progress" },
    spectator: { waiting: "not_seated", playing: "not_seated", over: "not_seated" },
  },
  leave: { seat: {  }, spectator: {  } },
  resync: { seat: {  }, spectator: {  } },
  answer_seat_request: {
    seat: {  },
    spectator: { waiting: "not_seated", playing: "not_seated", over: "not_seated" },
  },
  react: { seat: {  }, spectator: {  } },
  say: { seat: {  }, spectator: {  } },
});
