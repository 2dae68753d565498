// Fair deals at the browser table (protocol/PROTOCOL.md §10, docs/fairness.md): this
// page's seeds, the fingerprint from the start of a game, the check at game over, and the
// game record it can export for `war-sim verify`.
//
// Small on purpose: it is loaded with the page. The engine and the hashes are not: the
// check imports ./engine/fairness.js at game over (a dynamic import()), and a seed's
// commitment is hashed by crypto.subtle where the page has it (a secure context), else by
// the vendored SHA-256 (./sha256.js, 6 KiB), imported when the player sits down.

import { said } from "./catalog.js";
import { fingerprint } from "./fingerprint.js";
import { mine as mySeat, myTurn, seatPerson } from "./view.js";

const SEED_BYTES = 32;
const DECK = { ranks: 13, suits: 4 };
const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** A fresh secret seed, as 64 hex digits (crypto.getRandomValues: in every context). */
export const newSeed = () => toHex(globalThis.crypto.getRandomValues(new Uint8Array(SEED_BYTES)));

const fromHex = (hex) => Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));

/** SHA-256 of a seed (hex) as 64 hex digits: its commitment. */
export async function commitment(seedHex) {
  const bytes = fromHex(seedHex);
  const subtle = globalThis.crypto?.subtle;
  if (subtle) return toHex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
  const { sha256 } = await import("./sha256.js");
  return toHex(sha256(bytes));
}

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
    this.welcome = null; // the last welcome's line: the rules and this page's seat
    this.game = null; // what the table was shown of the current game
    this.rules = null;
    this.seat = null;
    this.revealed = null;
    this.names = []; // each seat's name as the table shows it (the view's), for the check's words
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

  /** Whether `message` turns auto-play on while the game waits for this seat's first ready. */
  autoFirst(message, view) {
    return message.type === "set_auto_play" && message.mode !== "off" && view.step === 0 && myTurn(view) && this.canReveal(view);
  }

  canReveal(view) {
    const shown = this.game?.seed_commitments?.[view.my_seat] ?? null;
    return this.seeds.has(view.game) && shown !== null && shown === this.game.mySeedCommitment;
  }

  // The seed for a rematch, hashed ahead (a tap must send at once).
  async prepare(game) {
    if (this.next?.game === game) return;
    const seed = this.seeds.get(game) ?? newSeed();
    this.next = { game, seed, commitment: await commitment(seed) };
  }

  /** Follow one received message (`view`: the table after it, whose names the check's
   * words use); a promise of the check at a game over, else null. */
  follow(message, view = null) {
    // each seat as the table says it (a computer seat in the viewer's words, view.js)
    if (view !== null) this.names = view.seats.map((seat) => (seat.name === null ? null : seatPerson(view, seat.seat)));
    const line = recordLine(message);
    if (message.type === "welcome") this.welcome = line;
    // Each game starts a new record (an evening of rematches must not grow it for hours):
    // the welcome, whose state gives the rules and the seat, then this game's messages.
    if (message.type === "game_started" && this.welcome !== null) this.lines = [this.welcome];
    this.lines.push(line);
    if (message.type === "welcome" || message.type === "snapshot") this.state(message);
    else if (message.type === "game_started") this.started(message);
    else if (this.game === null) return null;
    else if (message.type === "seed_dropped") this.dropped(message.seat);
    else if (message.type === "cards_turned") this.game.flips.push({ step: message.step, depth: message.depth, cards: message.cards });
    else if (message.type === "cards_taken") this.game.takes.push({ step: message.step, seat: message.seat, count: message.count, counts: message.counts });
    else if (message.type === "game_over") return this.over(message);
    return null;
  }

  /** The seats of the current fair deal that add no seed (the computer, a dropped seat). */
  noSeed() {
    if (!this.game?.deal_commitment || !this.game.seed_commitments) return [];
    return this.game.seed_commitments.flatMap((c, seat) => (c === null ? [seat] : []));
  }

  /** The fingerprint of the current game's commitment, or null (a deal shown, or none). */
  get fingerprint() {
    return this.game?.deal_commitment ? fingerprint(this.game.deal_commitment) : null;
  }

  state(message) {
    if (message.type === "welcome") this.place(message);
    const state = message.state;
    this.rules = { ...state.rules, ...DECK };
    if (this.game === null || this.game.number !== state.game) this.begin(state.game, state.step, state.deal_commitment, null);
    const game = this.game;
    game.deal_commitment ??= state.deal_commitment;
    if (state.deal !== null && state.phase !== "over") game.shown_deal ??= state.deal;
    game.seed_commitments = state.seats.map((seat) => seat.seed_commitment);
    if (state.phase === "over" && state.fairness) game.fairness = state.fairness;
    this.mine();
  }

  started(message) {
    this.begin(message.game, 0, message.deal_commitment, message.deal);
    if (message.seed_commitments.length) this.game.seed_commitments = [...message.seed_commitments];
    this.mine();
    if (this.seat !== null) this.prepare(message.game + 1);
  }

  begin(number, firstStep, dealCommitment, shownDeal) {
    this.game = { number, firstStep, deal_commitment: dealCommitment, shown_deal: shownDeal, seed_commitments: null, flips: [], takes: [], mySeedCommitment: null };
  }

  async mine() {
    const seed = this.seeds.get(this.game.number);
    const game = this.game;
    if (seed !== undefined) game.mySeedCommitment = await commitment(seed);
  }

  dropped(seat) {
    if (this.game.seed_commitments && seat < this.game.seed_commitments.length) this.game.seed_commitments[seat] = null;
  }

  /** The record of the current (or last) game so far, one server message a line, after
   * the last welcome (what `war-sim verify` reads). */
  record() {
    return `${this.lines.join("\n")}\n`;
  }

  async over(message) {
    const game = this.game;
    const end = { step: message.step, winner: message.winner, termination: message.termination, counts: message.counts, ...message.summary };
    const shown = { flips: game.flips, takes: game.takes, end };
    const [{ checkFairDeal }, { checkReplay }, { checkSaid }] = await Promise.all([
      import("./engine/fairness.js"),
      import("./engine/check.js"),
      import("./fairwords.js"),
    ]);
    const names = this.names;
    const words = (found) => checkSaid(found, names);
    const finish = (result) => ({ game: game.number, fingerprint: this.fingerprint, ...result });
    if (game.shown_deal !== null && game.shown_deal !== undefined) {
      const replay = checkReplay(this.rules, game.shown_deal, shown);
      const problem = replay.mismatch === null ? null : words(replay.mismatch);
      return finish({ ok: problem === null, chosen: true, problem, proved: [] });
    }
    if (!game.deal_commitment) return finish({ ok: null, chosen: false, problem: said("fair.no_commitment"), proved: [] });
    if (!message.fairness) return finish({ ok: false, chosen: false, problem: said("fair.no_seeds"), proved: [] });
    const claim = {
      rules: this.rules,
      deal_commitment: game.deal_commitment,
      server_seed: message.fairness.server_seed,
      seeds: message.fairness.seeds,
      deal: message.summary.deal,
      seed_commitments: game.seed_commitments,
    };
    const seed = this.seeds.get(game.number);
    // a seat readied without its seed was dropped, and the table told: nothing of mine to find
    const dropped = this.seat !== null && game.seed_commitments?.[this.seat] === null;
    const mine = this.seat !== null && seed !== undefined && !dropped ? { seat: this.seat, seed: fromHex(seed) } : {};
    const result = checkFairDeal(claim, shown, mine);
    const proved = result.reveal.proved.map(words);
    if (dropped && seed !== undefined) proved.push(said("fair.my_seed_unused"));
    let problem = result.reveal.problem === null || result.reveal.problem === undefined ? null : words(result.reveal.problem);
    if (result.replay !== null) {
      if (result.replay.mismatch === null) proved.push(said("fair.every_card"));
      else problem = words(result.replay.mismatch);
    }
    return finish({ ok: result.ok, chosen: false, problem, proved });
  }
}
