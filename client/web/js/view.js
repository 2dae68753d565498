// The view state and its reducer, as client/state/view.py (README.md).

import { COMPUTER, named, numbered, openSeat } from "./catalog.js";
import { withLine } from "./talk.js";
import { RECENT_LIMIT, RULE_DEFAULTS } from "./vocabulary.js";

/** The rules a view shows before its welcome: every setting's default (vocabulary/). */
export const DEFAULT_RULES = RULE_DEFAULTS;
const OPEN_SEAT = { name: null, computer: false, computer_number: null, connected: false, ready: false, auto: "off" };

export function initialView() {
  return {
    my_seat: null, room: null, phase: "waiting", rules: DEFAULT_RULES, seats: [], game: 1, step: 0,
    round: 0, war_depth: 0, war_seats: [], waiting_for: [], spectators: 0, minutes: null,
    seconds_left: null, deal: null, result: null, player_code: null, watch_code: null,
    time_up: false, left: [], last_flip: null, last_taken: null, last_error: null,
    recent: [], talk: [], talk_setting: "players", evening: [], last_seq: null, needs_resync: false,
    seat_request: null, asking_for: null,
  };
}

// --- questions a renderer asks
export const welcomed = (view) => view.last_seq !== null;

export const spectating = (view) => welcomed(view) && view.my_seat === null;

export function seatOf(view, seat) {
  if (seat === null || seat === undefined || seat < 0 || seat >= view.seats.length) return null;
  return view.seats[seat];
}

export const mine = (view) => seatOf(view, view.my_seat);

/** The name at `seat`, or "seat 2" while it is open. */
export function nameOf(view, seat) {
  const record = seatOf(view, seat);
  return record === null || record.name === null ? `seat ${seat + 1}` : record.name;
}

// A server older than the seat field computer_number names the computer's seats
// "Computer" (the room's only one) or "Computer 1".."Computer 3" (PROTOCOL.md, "seat").
const OLD_COMPUTER_NAME = /^Computer(?: ([1-9]))?$/;

/** The number of a seat the room was created with for the computer (1, 2, 3), else null
 * (a person's seat, even once the computer plays it for someone who left). */
export function computerNumber(view, seat) {
  const record = seatOf(view, seat);
  if (record === null || !record.computer) return null;
  if (record.computer_number !== undefined && record.computer_number !== null) return record.computer_number;
  const old = view.seats.some((s) => s.computer_number !== undefined && s.computer_number !== null) ? null : OLD_COMPUTER_NAME.exec(record.name ?? "");
  return old === null ? null : Number(old[1] ?? 1);
}

/** True for the room's one computer opponent: the only seat created for the computer,
 * which the sentences call "the computer" (several are "Computer 1", "Computer 2"…). */
export const theComputer = (view, seat) =>
  computerNumber(view, seat) !== null && view.seats.filter((s) => computerNumber(view, s.seat) !== null).length === 1;

/** `seat` as a person of the sentences, never "you": its name, the computer (the room's
 * only one), "Computer 2" in the viewer's words (several), or an open seat by its number. */
export function seatPerson(view, seat) {
  const record = seatOf(view, seat);
  if (record === null || record.name === null) return openSeat(seat + 1);
  if (theComputer(view, seat)) return COMPUTER;
  const n = computerNumber(view, seat);
  return n === null ? named(record.name) : numbered(n);
}

/** `seat`'s name as a label in `words` (a tile, the standings, the evening's score): the
 * name, "Ordenador" for the room's only computer, "Ordenador 2" for one of several. */
export function seatLabel(view, seat, words) {
  if (theComputer(view, seat)) return words.text("seat.the_computer");
  const n = computerNumber(view, seat);
  return n === null ? nameOf(view, seat) : words.word(numbered(n));
}

export const openSeats = (view) => view.seats.filter((s) => s.name === null).map((s) => s.seat);

export function myTurn(view) {
  const me = mine(view);
  return view.phase === "playing" && me !== null && view.waiting_for.includes(me.seat) && !me.ready;
}

/** The voters (present people; for finishing, still in the game) yet to vote, as
 * protocol/votes.py: the finish vote while playing, the rematch after the game. */
export function stillToVote(view) {
  const present = (s) => s.name !== null && !s.computer && s.connected;
  if (view.phase === "playing") return view.seats.filter((s) => present(s) && !s.out && !s.finish_vote).map((s) => s.seat);
  if (view.phase === "over") return view.seats.filter((s) => present(s) && s.rematch_vote === null).map((s) => s.seat);
  return [];
}

/** Awaited seats whose player (a person) is away. */
export function awayWaited(view) {
  return view.waiting_for.filter((s) => {
    const record = seatOf(view, s);
    return record !== null && !(record.connected || record.computer || view.left.includes(s));
  });
}

// --- the reducer
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
    case "seat_request_waiting": // to the asker, before any welcome
      return { ...view, asking_for: message.seat };
    default:
      break;
  }
  if (view.last_seq === null || view.needs_resync || message.seq <= view.last_seq) return view;
  if (message.seq > view.last_seq + 1) return { ...view, needs_resync: true };
  return { ...roomMessage(view, message), last_seq: message.seq, recent: [...view.recent, message].slice(-RECENT_LIMIT) };
}

export function applyAll(view, messages) {
  return messages.reduce(apply, view);
}

function fromState(view, state, seq) {
  const sameRoom = state.room === view.room;
  return {
    ...state,
    my_seat: view.my_seat,
    deal: state.result === null ? state.deal : state.result.summary.deal,
    time_up: view.time_up && sameRoom && state.game === view.game && state.phase === "playing",
    player_code: view.player_code,
    watch_code: view.watch_code,
    left: sameRoom ? view.left : [],
    last_flip: state.war_depth || state.seats.some((s) => s.face_up.length) ? view.last_flip : null,
    last_taken: sameRoom ? view.last_taken : null,
    recent: sameRoom ? view.recent : [],
    last_error: view.last_error,
    last_seq: seq,
    needs_resync: false,
    // a request open as this viewpoint came in (or was missed): it is asked too
    seat_request: state.seat_request?.seat ?? null,
    asking_for: null,
  };
}

function withSeat(view, seat, changes) {
  if (seat < 0 || seat >= view.seats.length) return view;
  const seats = view.seats.slice();
  seats[seat] = { ...seats[seat], ...changes };
  return { ...view, seats };
}

// clearTable clears the table but, with keepOut, not the cards out seats left there.
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
        computer_number: m.computer_number,
        connected: true,
      });
    case "player_left":
      if (view.phase === "waiting") return withSeat(view, m.seat, OPEN_SEAT); // the seat opens again
      // Once started the computer plays the seat, name kept; its votes are dropped.
      return withSeat({ ...view, left: withItem(view.left, m.seat) }, m.seat, {
        computer: true,
        connected: false,
        ready: false,
        finish_vote: false,
        rematch_vote: null,
      });
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
    case "deal_voided":
      return view; // fair.js follows it (a fresh deal, a fresh seed to commit to)
    case "game_over":
      return gameOver(view, m);
    case "seat_requested":
      return { ...view, seat_request: m.seat };
    case "seat_request_ended":
      return { ...view, seat_request: null };
    case "said":
      return withLine(view, { seat: m.seat, text: m.text });
    case "reacted":
      return withLine(view, { seat: m.seat, reaction: m.reaction });
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
    // each seat's commitment to its seed for this deal (null: none; a finish waits for the seeds)
    seed_commitment: m.seed_commitments?.[record.seat] ?? null,
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
  // The step already seen left the table as it ends; one that jumps ahead clears it.
  const clear = m.step > view.step;
  let next = newStep(view, m.step);
  next = withCounts(next, m.counts, clear);
  return {
    ...next,
    phase: "over",
    result: { winner: m.winner, termination: m.termination, summary: m.summary, standings: m.standings },
    deal: m.summary.deal,
    round: m.summary.rounds,
    seconds_left: view.minutes !== null ? 0 : null,
    war_depth: 0,
    war_seats: [],
    waiting_for: [],
    evening: m.evening.length ? m.evening : view.evening,
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
        // a new round; cards an out player forfeited in a round given back stay until taken
        next = withCounts(
          next,
          next.seats.map((s) => s.count),
          true,
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
