// The view state: what this seat (or this spectator) knows about the room, and its reducer.
//
// The same design as the Python client's client/view.py, line for line: apply(view,
// message) returns the next view and never changes the one it was given (it returns the
// very same object when the message changes nothing, so a caller can tell). No I/O, no
// clock, no randomness: the page never computes a game result, it records what the
// server said.
//
// Sequence numbers (PROTOCOL.md §5): welcome and snapshot replace the whole view and set
// last_seq; a room message with seq == last_seq + 1 is applied, one with seq <= last_seq
// is ignored (already included), one with seq > last_seq + 1 means messages were missed:
// the view is kept and needs_resync is set, and room messages are ignored until the next
// snapshot (or welcome). The connection sends resync when needs_resync turns on.
// (The Python view also keeps the latest messages in `recent`; nothing here reads them.)

export const DEFAULT_RULES = Object.freeze({
  players: 2,
  face_down: 1,
  aces: "high",
  short_war: "lose",
  won_cards: "shuffle",
  round_limit: null,
  tie_break: "draw",
});

/** The view before any message: not welcomed, no room. */
export function initialView() {
  return {
    my_seat: null,
    room: null,
    phase: "waiting",
    rules: DEFAULT_RULES,
    seats: [],
    game: 1,
    step: 0,
    round: 0,
    war_depth: 0,
    war_seats: [],
    waiting_for: [],
    spectators: 0,
    minutes: null,
    seconds_left: null,
    deal: null,
    result: null,
    player_code: null,
    watch_code: null,
    time_up: false,
    left: [],
    last_flip: null,
    last_taken: null,
    last_error: null,
    last_seq: null,
    needs_resync: false,
  };
}

// --- questions a renderer asks ---------------------------------------------------------
/** True once a welcome arrived (the view describes a room). */
export const welcomed = (view) => view.last_seq !== null;

/** True for a spectator (welcomed without a seat). */
export const spectating = (view) => welcomed(view) && view.my_seat === null;

/** The record of `seat`, or null if there is no such seat. */
export function seatOf(view, seat) {
  if (seat === null || seat === undefined || seat < 0 || seat >= view.seats.length) return null;
  return view.seats[seat];
}

/** My seat's record, or null for a spectator. */
export const mine = (view) => seatOf(view, view.my_seat);

/** The name at `seat`, or a stand-in such as "seat 2" while it is open. */
export function nameOf(view, seat) {
  const record = seatOf(view, seat);
  return record === null || record.name === null ? `seat ${seat + 1}` : record.name;
}

/** Seats nobody has taken yet. */
export const openSeats = (view) => view.seats.filter((s) => s.name === null).map((s) => s.seat);

/** True when the game waits for my ready (and I have not given it yet). */
export function myTurn(view) {
  const me = mine(view);
  return view.phase === "playing" && me !== null && view.waiting_for.includes(me.seat) && !me.ready;
}

/** Seats the game waits for whose player is away (a person, not connected). */
export function awayWaited(view) {
  return view.waiting_for.filter((s) => {
    const record = seatOf(view, s);
    return record !== null && !(record.connected || record.computer || view.left.includes(s));
  });
}

// --- the reducer -------------------------------------------------------------------------
/** The view after `message` (a checked server message from wire.js). */
export function apply(view, message) {
  switch (message.type) {
    case "welcome": {
      const fresh = fromState(view, message.state, message.seq);
      return {
        ...fresh,
        my_seat: message.seat,
        player_code: message.player_code,
        watch_code: message.watch_code,
      };
    }
    case "snapshot":
      return welcomed(view) ? fromState(view, message.state, message.seq) : view;
    case "error":
      return { ...view, last_error: message };
    default:
      break;
  }
  if (view.last_seq === null || view.needs_resync || message.seq <= view.last_seq) return view;
  if (message.seq > view.last_seq + 1) return { ...view, needs_resync: true };
  return { ...roomMessage(view, message), last_seq: message.seq };
}

/** Apply `messages` in order. */
export function applyAll(view, messages) {
  return messages.reduce(apply, view);
}

function fromState(view, state, seq) {
  const flip = state.war_depth || state.seats.some((s) => s.face_up.length) ? view.last_flip : null;
  const sameRoom = state.room === view.room;
  const sameGame = sameRoom && state.game === view.game;
  return {
    my_seat: view.my_seat,
    room: state.room,
    phase: state.phase,
    rules: state.rules,
    seats: state.seats,
    game: state.game,
    step: state.step,
    round: state.round,
    war_depth: state.war_depth,
    war_seats: state.war_seats,
    waiting_for: state.waiting_for,
    spectators: state.spectators,
    minutes: state.minutes,
    seconds_left: state.seconds_left,
    deal: state.result === null ? state.deal : state.result.summary.deal,
    result: state.result,
    time_up: view.time_up && sameGame && state.phase === "playing",
    player_code: view.player_code,
    watch_code: view.watch_code,
    left: sameRoom ? view.left : [],
    last_flip: flip,
    last_taken: sameRoom ? view.last_taken : null,
    last_error: view.last_error,
    last_seq: seq,
    needs_resync: false,
  };
}

function withSeat(view, seat, changes) {
  if (seat < 0 || seat >= view.seats.length) return view;
  const seats = view.seats.slice();
  seats[seat] = { ...seats[seat], ...changes };
  return { ...view, seats };
}

// New counts; clearTable clears every seat's table cards, except, with keepOut, those of
// seats that are out (left on the table: docs/rules.md).
function withCounts(view, counts, clearTable, keepOut = false) {
  const seats = view.seats.map((record) => {
    const count = record.seat < counts.length ? counts[record.seat] : record.count;
    if (clearTable && !(keepOut && record.out)) {
      return { ...record, count, face_up: [], face_down: 0 };
    }
    return { ...record, count };
  });
  return { ...view, seats };
}

const without = (items, item) => items.filter((x) => x !== item);
const withItem = (items, item) => (items.includes(item) ? items : [...items, item].sort((a, b) => a - b));

function roomMessage(view, m) {
  switch (m.type) {
    case "player_joined":
      return withSeat({ ...view, left: without(view.left, m.seat) }, m.seat, {
        name: m.name,
        computer: m.computer,
        connected: true,
      });
    case "player_left":
      return withSeat({ ...view, left: withItem(view.left, m.seat) }, m.seat, { connected: false, ready: false });
    case "connection_changed":
      return withSeat(view, m.seat, { connected: m.connected });
    case "ready_changed":
      return withSeat(view, m.seat, { ready: m.ready });
    case "waiting_for":
      return { ...view, waiting_for: m.seats };
    case "auto_play_changed":
      return withSeat(view, m.seat, { auto: m.mode });
    case "finish_voted":
      return withSeat(view, m.seat, { finish_vote: true });
    case "rematch_voted":
      return withSeat(view, m.seat, { rematch_vote: m.deal });
    case "spectators_changed":
      return { ...view, spectators: m.count };
    case "game_started":
      return gameStarted(view, m);
    case "time_up":
      return { ...view, time_up: true, seconds_left: view.minutes ? 0 : null };
    case "game_over":
      return gameOver(view, m);
    default:
      return gameEvent(view, m);
  }
}

function gameStarted(view, m) {
  const seats = view.seats.map((record) => ({
    ...record,
    ready: false,
    out: false,
    count: record.seat < m.counts.length ? m.counts[record.seat] : 0,
    face_up: [],
    face_down: 0,
    finish_vote: false,
    rematch_vote: null,
  }));
  return {
    ...view,
    phase: "playing",
    seats,
    game: m.game,
    step: 0,
    round: 0,
    war_depth: 0,
    war_seats: [],
    waiting_for: [],
    deal: m.deal,
    result: null,
    seconds_left: view.minutes === null ? null : view.minutes * 60,
    time_up: false,
    last_flip: null,
    last_taken: null,
  };
}

function gameOver(view, m) {
  // In the step the view has already seen, the events left the table as the game ends
  // (empty, or what out players left after cards_returned). A game_over that jumps ahead
  // (the rest of the game finished at once) clears it: a snapshot tells more.
  const clear = m.step > view.step;
  let next = newStep(view, m.step);
  next = withCounts(next, m.counts, clear);
  return {
    ...next,
    phase: "over",
    result: { winner: m.winner, termination: m.termination, summary: m.summary },
    deal: m.summary.deal,
    round: m.summary.rounds,
    seconds_left: view.minutes !== null ? 0 : null,
    war_depth: 0,
    war_seats: [],
    waiting_for: [],
  };
}

// A game event of a later step clears every ready flag (PROTOCOL.md §5).
function newStep(view, step) {
  if (step <= view.step) return view;
  const seats = view.seats.map((s) => (s.ready ? { ...s, ready: false } : s));
  return { ...view, step, seats };
}

function gameEvent(view, m) {
  let next = newStep(view, m.step);
  switch (m.type) {
    case "cards_turned": {
      if (m.depth === 0) {
        next = withCounts(
          next,
          next.seats.map((s) => s.count),
          true,
        );
      }
      for (const [seat, card] of m.cards) {
        const record = seatOf(next, seat);
        if (record === null || record.face_up.includes(card)) continue; // last_card: it stands again
        next = withSeat(next, seat, { face_up: [...record.face_up, card], count: Math.max(0, record.count - 1) });
      }
      return { ...next, last_flip: { step: m.step, depth: m.depth, cards: m.cards }, war_depth: m.depth };
    }
    case "cards_laid_down":
      for (const [seat, count] of m.counts) {
        const record = seatOf(next, seat);
        if (record !== null && count) {
          next = withSeat(next, seat, {
            face_down: record.face_down + count,
            count: Math.max(0, record.count - count),
          });
        }
      }
      return next;
    case "war_declared":
      return { ...next, war_depth: m.depth, war_seats: m.seats };
    case "cards_taken": {
      const faceUp = next.seats.map((s) => s.face_up);
      const faceDown = next.seats.map((s) => s.face_down);
      next = withCounts(next, m.counts, true);
      return {
        ...next,
        round: m.round,
        war_depth: 0,
        war_seats: [],
        last_taken: { round: m.round, seat: m.seat, count: m.count, face_up: faceUp, face_down: faceDown },
      };
    }
    case "cards_returned":
      // Players still in take their cards back; an out player's stay on the table.
      next = withCounts(next, m.counts, true, true);
      return { ...next, war_depth: 0, war_seats: [] };
    case "player_out":
      return withSeat(next, m.seat, { out: true });
    default:
      return view;
  }
}
