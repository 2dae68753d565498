// Fair deals at the browser table (protocol/PROTOCOL.md §10, docs/fairness.md): this
// page's seeds, the fingerprint from the start of a game, the check at game over, and the
// game record it can export for `war-sim verify`.
//
// Small on purpose: it is loaded when a player sits down. The engine and the hashes are
// not: the check imports ./engine/fairness.js at game over (a dynamic import()), the
// fingerprint (./fingerprint.js and the rules it lists) is imported when a game is pinned,
// not in a waiting room, and a seed's commitment is hashed by crypto.subtle where the page
// has it (a secure context), else by the vendored SHA-256 (./sha256.js, 6 KiB), imported
// when the player sits down.

import { mine as mySeat, myTurn, seatPerson } from "./view.js";

/** What the table shows of a fair deal (fairview.js), imported when a game is on
 * (session.js, `held`), with the fingerprint (ready before the game is pinned): from here,
 * not from a module of the first load, so that a page preloading fair.js (a players' link:
 * address.js, `JOIN_NEEDS`) does not bring them: a modulepreload follows static imports. */
export const loadView = () => Promise.all([import("./fairview.js"), import("./fingerprint.js")]).then(([view]) => view);

const SEED_BYTES = 32;
/** Seconds a time_up may come before the time limit by this page's clock: the message
 * that started the clock (or told what was left of it) took time to arrive. */
export const TIME_SLACK = 5;
const DECK = { ranks: 13, suits: 4 };
const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** A fresh secret seed, as 64 hex digits (crypto.getRandomValues: in every context). */
export const newSeed = () => toHex(globalThis.crypto.getRandomValues(new Uint8Array(SEED_BYTES)));

export const fromHex = (hex) => Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));

/** SHA-256 of bytes: crypto.subtle where the page has it (a secure context), else the
 * vendored one, imported then. */
async function digest(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) return new Uint8Array(await subtle.digest("SHA-256", bytes));
  const { sha256 } = await import("./sha256.js");
  return sha256(bytes);
}

/** SHA-256 of a seed (hex) as 64 hex digits: its commitment. */
export async function commitment(seedHex) {
  return toHex(await digest(fromHex(seedHex)));
}

// The game events that carry a step (a stretch seen whole runs to the last of them).
const STEP_EVENTS = new Set(["cards_turned", "cards_taken", "cards_laid_down", "war_declared", "player_out", "cards_returned"]);

// Steps from `first` on are seen whole (a stretch open already goes on).
function openRun(game, first) {
  if (game.runFrom === null) Object.assign(game, { runFrom: first, runLast: first - 1 });
}

// The stretch seen whole ends (`cut`: by a lost connection: its last step may have been cut off).
function closeRun(game, cut) {
  if (game.runFrom === null) return;
  const last = cut ? game.runLast - 1 : game.runLast;
  if (last >= game.runFrom) game.runs.push([game.runFrom, last]);
  game.runFrom = null;
}

function seenAt(game, step) {
  openRun(game, step);
  game.runLast = Math.max(game.runLast, step);
}

/** Every stretch of steps the page saw whole: the closed ones, and the open one up to the
 * last step shown (all of it once the game is over). */
export function seenWhole(game) {
  const runs = [...game.runs];
  if (game.runFrom !== null) {
    const last = game.ended ? game.runLast : game.runLast - 1;
    if (last >= game.runFrom) runs.push([game.runFrom, last]);
  }
  return runs;
}

const sameList = (a, b) => (a === null || b === null ? a === b : a.length === b.length && a.every((x, i) => x === b[i]));
const sameRules = (a, b) => Object.keys({ ...a, ...b }).every((name) => a[name] === b[name]);

// One line of a game record: the message as JSON, a deal's 64 bits kept exact.
const BIG = "\u0000big:";
function recordLine(message) {
  const body = message.type === "welcome" && message.token !== null ? { ...message, token: "<hidden>" } : message;
  const text = JSON.stringify(body, (_key, value) => (typeof value === "bigint" ? `${BIG}${value}` : value));
  return text.replace(/"\\u0000big:(\d+)"/g, "$1");
}

/**
 * This page's part in fair deals, for one seat (or a spectator): `seeds` maps a game
 * number to the seed (hex) this page committed to; `follow` takes every message and
 * returns, at a game over, a promise of the check.
 */
export class Fair {
  constructor() {
    this.seeds = new Map();
    this.unplaced = null;
    this.next = null; // {game, seed, commitment}: ready for a rematch vote
    this.lines = []; // the record of the current game: the last welcome, then the game
    this.game = null; // what the table was shown of the current game
    this.rules = null;
    this.seat = null;
    this.revealed = null;
    this.names = []; // each seat's name as the table shows it (the view's), for the check's words
    this.minutes = null; // the room's time limit
    this.clock = () => performance.now() / 1000; // seconds; tests give their own
    this.sentSeed = null; // the game whose seed this page sent with a ready
    this.preparing = null; // {game, done}: the rematch's seed being hashed
    this.recommit = null; // the game whose fresh deal waits for this page's commit
    this.voids = []; // each seat's voids this evening, as last told
    // What this page saw whole (protocol/record.py, docs/fairness.md "What is shown"): the
    // last room message's seq, a gap inside a connection (nothing read until a snapshot),
    // and whether a connection was just opened (its welcome may excuse the steps missed)
    this.lastSeq = null;
    this.gap = false;
    this.live = false;
    this.fresh = false;
    this.welcomeMessage = null; // the last welcome: the rules and this page's seat, for the record
  }

  /** A new connection opened: its first message, a welcome, may excuse the steps missed. */
  connected() {
    this.live = true;
    this.fresh = true;
  }

  // Whether `message` is read, by its seq as the view applies it (a repeat, or a message
  // past a gap, is not); a welcome that shows messages missed (a new connection's) ends
  // the stretch seen whole, cut.
  inOrder(message) {
    const fresh = this.fresh;
    this.fresh = false;
    const seq = message.seq;
    if (message.type === "welcome") {
      const missed = this.lastSeq !== null && seq > this.lastSeq;
      if (missed && (fresh || !this.live) && this.game !== null) closeRun(this.game, !this.game.ended);
    }
    if (typeof seq !== "number") return true; // an error: no seq
    if (message.type === "seat_request_waiting" || message.type === "room_info") return true; // to one connection
    if (message.type === "welcome" || message.type === "snapshot" || this.lastSeq === null) {
      this.lastSeq = seq;
      this.gap = false;
      return true;
    }
    if (seq > this.lastSeq + 1) this.gap = true; // this connection missed nothing
    const read = !this.gap && seq === this.lastSeq + 1;
    if (read) this.lastSeq = seq;
    return read;
  }

  /** `opening` (create_room or join_room) with a fresh seed's commitment. */
  async opening(opening) {
    if (opening.type !== "create_room" && opening.type !== "join_room") return opening;
    const seed = newSeed();
    this.unplaced = seed;
    return { ...opening, seed_commitment: await commitment(seed) };
  }

  /** A seed kept with the seat ({seed, seed_game} of the stored seat), if any. */
  restore(stored) {
    if (typeof stored?.seed === "string" && /^[0-9a-f]{64}$/.test(stored.seed) && Number.isInteger(stored.seed_game)) {
      if (!this.seeds.has(stored.seed_game)) this.seeds.set(stored.seed_game, stored.seed);
    }
  }

  /** A welcome: of the opening (`opened`: its seed is the seat's for the game it sat down
   * in, a seed kept from an older seat gives way), or of a resume (the kept seed stays). */
  place(welcome, opened = false) {
    this.seat = welcome.seat;
    if (this.unplaced !== null && welcome.seat !== null && opened) {
      this.seeds.set(welcome.state.game, this.unplaced);
      this.unplaced = null;
    }
  }

  /** What to keep with the seat token: the newest seed and its game. */
  kept() {
    if (!this.seeds.size) return {};
    const game = Math.max(...this.seeds.keys());
    return { seed: this.seeds.get(game), seed_game: game };
  }

  /** `message` as it should go now: the first ready of a game reveals its seed (the one
   * the table shows this seat committed to), a rematch commits to the next game's. */
  outgoing(message, view) {
    if (message.type === "ready" && view.step === 0 && this.canReveal(view)) {
      this.sentSeed = view.game;
      return { ...message, seed: this.seeds.get(view.game) };
    }
    if (message.type === "rematch" && this.next !== null && this.next.game === view.game + 1) {
      this.seeds.set(this.next.game, this.next.seed);
      return { ...message, seed_commitment: this.next.commitment };
    }
    return message;
  }

  /** The ready that reveals this game's seed now, if the seat plays by itself (auto-play)
   * and the game waits for its first ready (else auto-play would turn the first cards
   * without it); or null. Once a game. */
  revealDue(view) {
    const me = mySeat(view);
    if (me === null || me.auto === "off" || view.step !== 0 || !myTurn(view) || this.revealed === view.game) return null;
    if (!this.canReveal(view)) return null;
    this.revealed = view.game;
    return { type: "ready", step: 0 };
  }

  /** Whether `message` turns auto-play on, or votes to finish, while the game waits for
   * this seat's first ready: its seed goes first, with a ready (a finish plays the deal
   * out, and the deal waits for every committed seed). */
  autoFirst(message, view) {
    const starts = (message.type === "set_auto_play" && message.mode !== "off") || message.type === "vote_finish";
    return starts && view.step === 0 && myTurn(view) && this.canReveal(view);
  }

  canReveal(view) {
    const game = this.game;
    if (game === null || !game.pinned || game.number !== view.game) return false;
    const shown = game.seed_commitments?.[view.my_seat] ?? null;
    return this.seeds.has(view.game) && shown !== null && shown === game.mySeedCommitment;
  }

  // The seed for a rematch, hashed ahead (a tap must send at once); `preparing` is the
  // promise of it.
  prepare(game) {
    if (this.next?.game === game || this.preparing?.game === game) return this.preparing?.done;
    const seed = this.seeds.get(game) ?? newSeed();
    const done = commitment(seed).then((committed) => {
      this.next = { game, seed, commitment: committed };
    });
    this.preparing = { game, done };
    return done;
  }

  /** Follow one received message (`view`: the table after it, whose names the check's
   * words use); a promise of the check at a game over, or at once when the game differs
   * from what was pinned at its start; else null. */
  follow(message, view = null) {
    // each seat as the table says it (a computer seat in the viewer's words, view.js)
    if (view !== null) this.names = view.seats.map((seat) => (seat.name === null ? null : seatPerson(view, seat.seat)));
    if (!this.inOrder(message)) return null; // a repeat, or past a gap: not shown
    const line = recordLine(message);
    if (message.type === "welcome") this.welcomeMessage = message;
    // Each game starts a new record (an evening of rematches must not grow it for hours):
    // the welcome, whose state gives the rules and the seat, then this game's messages.
    // The messages between them are not kept: the welcome is written with the seq just
    // before the game's start, so that the record's seq runs on (docs/fairness.md).
    if (message.type === "game_started" && this.welcomeMessage !== null && !this.afterVoid(message)) {
      this.lines = [recordLine({ ...this.welcomeMessage, seq: message.seq - 1 })];
    }
    this.lines.push(line);
    const broken = this.game?.broken ?? null;
    if (message.type === "welcome" || message.type === "snapshot") this.state(message);
    else if (message.type === "game_started") this.started(message);
    else if (this.game === null) return null;
    else if (message.type === "deal_voided") {
      this.voided(message.seat);
      this.voids = this.voids.length ? this.voids.map((n, seat) => (seat === message.seat ? message.voids : n)) : this.voids;
    }
    else if (message.type === "ready_changed") this.accepted(message.seat);
    else if (message.type === "time_up") this.timeUp();
    else if (message.type === "cards_turned") {
      this.accepted(this.seat);
      this.game.flips.push({ step: message.step, depth: message.depth, cards: message.cards });
    } else if (message.type === "cards_taken") this.game.takes.push({ step: message.step, seat: message.seat, count: message.count, counts: message.counts });
    else if (message.type === "cards_laid_down") this.game.laid.push({ step: message.step, depth: message.depth, counts: message.counts });
    else if (message.type === "war_declared") this.game.wars.push({ step: message.step, depth: message.depth, seats: message.seats });
    else if (message.type === "player_out") this.game.outs.push({ step: message.step, seat: message.seat, reason: message.reason });
    else if (message.type === "game_over") {
      this.game.ended = true;
      return this.over(message);
    }
    if (STEP_EVENTS.has(message.type)) seenAt(this.game, message.step);
    if (this.game !== null && broken === null && this.game.broken) return this.failed(this.game);
    return null;
  }

  /** The seats of the current fair deal that add no seed (the computer, a seat whose
   * client sent no commitment). */
  noSeed() {
    if (!this.game?.deal_commitment || !this.game.seed_commitments) return [];
    return this.game.seed_commitments.flatMap((c, seat) => (c === null ? [seat] : []));
  }

  /** The fingerprint of what the current game pinned, or null (a deal shown, none
   * claimed, or still being hashed: `printing` is then a promise of it). */
  get fingerprint() {
    return this.game?.print ?? null;
  }

  get printing() {
    return this.game?.printing ?? null;
  }

  state(message) {
    if (message.type === "welcome") this.place(message);
    const state = message.state;
    // the next game's seed, hashed ahead: a page that joined late, reloaded or took a seat
    // over commits to its rematch as one that saw the game start does
    if (this.seat !== null) this.prepare(state.game + 1);
    const rules = { ...state.rules, ...DECK };
    this.rules = rules;
    this.minutes = state.minutes ?? null;
    if (this.game === null || this.game.number !== state.game) this.begin(state.game, state.step, null);
    const game = this.game;
    if (state.phase === "playing") openRun(game, state.step + 1);
    if (state.seconds_left !== null && state.seconds_left !== undefined && state.phase === "playing") {
      game.deadline = Math.max(game.deadline ?? 0, this.clock() + state.seconds_left);
    }
    if (state.phase === "over" && state.fairness) game.fairness = state.fairness;
    if (state.awaiting_commitments && this.seat !== null) this.recommit = state.game; // came back meanwhile
    if (state.phase === "waiting" && !game.pinned) return; // the commitments are fixed when the game starts
    if (state.deal !== null && state.phase !== "over") game.shown_deal ??= state.deal;
    const committed = state.deal_commitment ?? null;
    const voids = state.voids ?? [];
    if (game.pinned && voids.length && voids.some((n, seat) => n !== (this.voids[seat] ?? 0))) {
      // voids this page missed (away, a gap): the deal it pinned was voided
      const rose = voids.flatMap((n, seat) => (n > (this.voids[seat] ?? 0) ? [seat] : []));
      for (const seat of rose.length ? rose : [null]) this.voided(seat);
    }
    if (voids.length) this.voids = [...voids];
    if (state.awaiting_commitments) {
      // a void (its deal_voided missed, if the deal was pinned): the fresh deal's
      // game_started pins it
      if (game.pinned) this.voided(null);
      return;
    }
    const seats = state.seats.map((seat) => seat.seed_commitment ?? null);
    const shown = committed === null && seats.every((c) => c === null) ? null : seats;
    this.pin(game, committed, shown, rules);
  }

  // A game_started that follows a deal_voided of the same game: the fresh deal of it.
  afterVoid(message) {
    const game = this.game;
    return game !== null && game.number === message.game && game.voids > 0 && !game.pinned;
  }

  started(message) {
    if (!this.afterVoid(message)) this.begin(message.game, 0, message.deal);
    const game = this.game;
    closeRun(game, false);
    openRun(game, 1);
    game.shown_deal = message.deal;
    const seats = message.seed_commitments.length ? [...message.seed_commitments] : null;
    this.pin(game, message.deal_commitment ?? null, seats, this.rules);
    if (this.minutes !== null && game.deadline === null) game.deadline = this.clock() + this.minutes * 60;
    if (this.seat !== null) this.prepare(message.game + 1);
  }

  begin(number, firstStep, shownDeal) {
    this.game = {
      number,
      firstStep,
      shown_deal: shownDeal,
      pinned: false,
      deal_commitment: null,
      seed_commitments: null,
      rules: this.rules,
      broken: null,
      voids: 0,
      deadline: null,
      accepted: false,
      print: null,
      printing: null,
      flips: [],
      takes: [],
      laid: [],
      wars: [],
      outs: [],
      runs: [], // the stretches of steps [first, last] seen whole, closed
      runFrom: null, // the first step of the stretch being seen whole now
      runLast: 0, // the last step shown in it
      ended: false,
      mySeedCommitment: null,
    };
  }

  /** Pin what `game` shows now (its deal commitment, every seat's commitment, the rules),
   * or compare it with what was pinned: the first difference breaks the check, at once. */
  pin(game, dealCommitment, seats, rules) {
    if (!game.pinned) {
      Object.assign(game, { pinned: true, deal_commitment: dealCommitment, seed_commitments: seats, rules });
      this.mine();
      this.print(game);
      return;
    }
    if (dealCommitment !== game.deal_commitment) this.differs(game, { code: "commitment_changed" });
    else if (!sameRules(rules, game.rules)) this.differs(game, { code: "rules_changed" });
    else if (!sameList(seats, game.seed_commitments)) {
      const pinned = game.seed_commitments ?? [];
      const shown = seats ?? [];
      const most = Math.min(pinned.length, shown.length);
      let seat = 0;
      while (seat < most && pinned[seat] === shown[seat]) seat += 1;
      this.differs(game, { code: "seat_commitment_changed", seat });
    }
  }

  differs(game, finding) {
    game.broken ??= finding;
  }

  // The fingerprint of the pinned game, hashed (crypto.subtle is asynchronous), by
  // ./fingerprint.js, imported the first time (a waiting room never needs it). A malformed
  // game rejects: no line; the check at game over says so.
  print(game) {
    if (game.deal_commitment === null || game.seed_commitments === null) return;
    const pinned = { game: game.number, deal_commitment: game.deal_commitment, seed_commitments: game.seed_commitments, rules: game.rules };
    game.printing = import("./fingerprint.js")
      .then((module) => module.fingerprint(pinned, digest))
      .then((print) => {
        if (game.pinned && game.deal_commitment === pinned.deal_commitment) game.print = print;
        return print;
      });
    game.printing.catch(() => {});
  }

  /** deal_voided: the current deal is void before any card; the next game_started of
   * this game pins a fresh one, and this page commits to a fresh seed (commitDue). A void
   * naming this page's seat once its seed was accepted is false: its seed did come. */
  voided(seat) {
    const game = this.game;
    if (seat === this.seat && game.accepted) return this.differs(game, { code: "my_seed_dropped", seat });
    if (game.flips.length || game.fairness) return this.differs(game, { code: "commitment_changed" });
    Object.assign(game, { voids: game.voids + 1, pinned: false, deal_commitment: null, seed_commitments: null, print: null, printing: null, accepted: false });
    this.recommit = game.number;
    this.revealed = null; // auto-play reveals the fresh seed as it did the first
    return undefined;
  }

  /** The commit a fresh deal waits for from this page (after a deal_voided, or a state
   * that says the room awaits commitments): a promise of the message, its fresh seed
   * already in `seeds` (keep it with the seat before sending); or null. Once a void. */
  commitDue(view) {
    if (this.recommit === null || view.my_seat === null || view.game !== this.recommit) return null;
    this.recommit = null;
    const seed = newSeed();
    this.seeds.set(view.game, seed);
    this.sentSeed = null;
    return commitment(seed).then((committed) => ({ type: "commit", seed_commitment: committed }));
  }

  // This seat's ready (with its seed) went through: its seed is in the deal from now on.
  accepted(seat) {
    const game = this.game;
    if (seat !== null && seat === this.seat && this.sentSeed === game.number && game.flips.length === 0) game.accepted = true;
  }

  // A time_up before the time limit could have run out, by this page's clock.
  timeUp() {
    const game = this.game;
    const now = this.clock();
    if (game.deadline !== null && now < game.deadline - TIME_SLACK) {
      this.differs(game, { code: "time_up_early", seconds: Math.floor(game.deadline - now) });
    }
  }

  async mine() {
    const game = this.game;
    const seed = this.seeds.get(game.number);
    if (seed !== undefined) game.mySeedCommitment = await commitment(seed);
  }

  // The check's result, failed now: what differs from what was pinned (faircheck.js).
  async failed(game) {
    return (await import("./faircheck.js")).failed(this, game);
  }

  /** The record of the current (or last) game so far, one server message a line, after
   * the last welcome (what `war-sim verify` reads). */
  record() {
    return `${this.lines.join("\n")}\n`;
  }

  /** The check at game over (faircheck.js, imported then with the engine's checks: never
   * with the first load). */
  async over(message) {
    const game = this.game; // this game's, whatever comes while the check loads
    return (await import("./faircheck.js")).over(this, game, message);
  }
}
