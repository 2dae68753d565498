// One deal of War under one set of rules, flip by flip: a port of the Python engine's step
// path (server/engine/_state.py and _step.py), for the browser to replay a revealed deal
// (docs/fairness.md). The same deal with the same rules gives the same events, step by
// step, as the Python engine: tests/vectors/engine/steps.json pins both, and a property
// test plays random rules and deals on both. Events are plain objects named as the wire
// names them (cards as numbers here; `cardLabel` writes them).

import { Pcg32, dealNumber } from "./rng.js";
import { makeRules, deckSize, strengths } from "./rules.js";

const BATTLE = "battle";
const WAR = "war";
const OVER = "over";
/** Rounds given back in a row after which a game with shuffled take-backs is endless. */
export const MOST_GIVEN_BACK = 100;

const leader = (counts) => {
  const best = Math.max(...counts);
  return counts.filter((c) => c === best).length === 1 ? counts.indexOf(best) : null;
};

/** Each seat's place at the end (1 is first; shared places have the same number):
 * seats still in by their cards, then the later out the better (server/engine/outcome.py). */
export function standings(counts, outAt) {
  const merit = counts.map((count, seat) => (outAt[seat] === null ? [1, count] : [0, outAt[seat]]));
  const better = (a, b) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
  return merit.map((mine) => 1 + merit.filter((other) => better(other, mine)).length);
}

export class Game {
  /** `rules`: a rules object (`makeRules` fills in and checks it); `deal`: 0 .. 2**64-1. */
  constructor(rules, deal) {
    this.rules = makeRules(rules);
    this.deal = dealNumber(deal);
    this.rng = Pcg32.forDeal(this.deal);
    this.strength = strengths(this.rules);
    const n = this.rules.players;
    const deck = [...Array(deckSize(this.rules)).keys()];
    this.rng.shuffle(deck);
    const dealt = deck.length - (deck.length % n);
    this.piles = [...Array(n).keys()].map((seat) => deck.slice(0, dealt).filter((_, i) => i % n === seat));
    this.active = [...Array(n).keys()];
    this.up = this.active.map(() => []);
    this.down = this.active.map(() => 0);
    this.mine = this.active.map(() => []);
    this.laid = [];
    this.tags = []; // flip * 4 + seat of each laid card (docs of server/engine/_state.py)
    this.flips = 0;
    this.warSeats = [];
    this.depth = 0;
    this.phase = BATTLE;
    this.rounds = 0;
    this.wars = 0;
    this.longest = 0;
    this.haul = 0;
    this.steps = 0;
    this.outcome = null;
    this.timeStop = false;
    this.shortRound = false;
    this.givenBack = null;
    this.givenBackAt = -1;
    this.givenBacks = 0;
    this.outAt = this.active.map(() => null);
    this.seen = this.rules.won_cards === "fixed" ? new Set([this.position()]) : null;
  }

  get counts() {
    return this.piles.map((pile) => pile.length);
  }

  get summary() {
    return { rounds: this.rounds, wars: this.wars, longest_war: this.longest, biggest_haul: this.haul, deal: this.deal };
  }

  /** Each seat's place once the game is over, else null. */
  get standings() {
    return this.outcome === null ? null : standings(this.counts, this.outAt);
  }

  /** Every pile in order and the cards left on the table with who laid them, as a key. */
  position() {
    const piles = this.piles.map((pile) => pile.join(".")).join("|");
    return this.laid.length ? `${piles}#${this.laid.join(".")}#${this.tags.join(".")}` : piles;
  }

  /** Play the next flip (a round's first flip, or one war); its events. */
  step() {
    if (this.phase === OVER) throw new Error(`game ${this.deal} is over; step is refused in phase 'over'`);
    this.steps += 1;
    const events = [];
    if (this.phase === BATTLE) this.battle(events);
    else this.war(events);
    return events;
  }

  /** Play the rest out (step by step: the same game as the Python engine's finish). */
  finish() {
    while (this.phase !== OVER) this.step();
    return this.outcome;
  }

  /** The clock stopped the game: between rounds it ends now by counts (or plays on with
   * tie_break battle until a leader); during a war, when the round is taken. */
  stopByTime() {
    if (this.phase === OVER) throw new Error(`game ${this.deal} is over; stop_by_time is refused`);
    const events = [];
    if (this.timeStop) return events;
    this.timeStop = true;
    if (this.phase === BATTLE) this.checkLimit(events, "time_limit");
    return events;
  }

  battle(events) {
    const turned = [];
    const flip = this.flips * 4;
    this.flips += 1;
    for (const seat of this.active) {
      const card = this.piles[seat].shift();
      this.lay(seat, card, flip, true);
      turned.push([seat, card]);
    }
    events.push({ type: "cards_turned", round: this.rounds + 1, depth: 0, cards: turned });
    this.compare(events, turned);
  }

  lay(seat, card, flip, faceUp) {
    if (faceUp) this.up[seat].push(card);
    this.mine[seat].push(card);
    this.laid.push(card);
    this.tags.push(flip + seat);
  }

  compare(events, turned) {
    const best = Math.max(...turned.map(([, card]) => this.strength[card]));
    const tied = turned.filter(([, card]) => this.strength[card] === best).map(([seat]) => seat);
    if (tied.length === 1) {
      this.take(events, tied[0]);
      return;
    }
    this.depth += 1;
    this.warSeats = tied;
    this.phase = WAR;
    events.push({ type: "war_declared", round: this.rounds + 1, depth: this.depth, seats: tied });
  }

  war(events) {
    const round = this.rounds + 1;
    const need = this.rules.face_down + 1;
    const seats = this.warSeats;
    const lose = this.rules.short_war === "lose";
    const short = seats.filter((seat) => (lose ? this.piles[seat].length < need : !this.piles[seat].length));
    if (short.length === seats.length) {
      this.giveBack(events);
      return;
    }
    if (lose) {
      for (const seat of short) {
        this.shortRound = true;
        this.out(events, seat, "short_war");
      }
    }
    const playing = lose ? seats.filter((seat) => !short.includes(seat)) : [...seats];
    const counts = [];
    let flip = this.flips * 4;
    this.flips += 2; // this war's face-down cards, then its face-up cards
    for (const seat of seats) {
      const pile = this.piles[seat];
      let count;
      if (lose && short.includes(seat)) count = pile.length; // forfeited into the prize
      else if (playing.length === 1) count = 0; // the last one in takes the table as it is
      else count = pile.length ? Math.min(need - 1, pile.length - 1) : 0;
      for (let i = 0; i < count; i += 1) this.lay(seat, pile.shift(), flip, false);
      this.down[seat] += count;
      counts.push([seat, count]);
    }
    events.push({ type: "cards_laid_down", round, depth: this.depth, counts });
    if (playing.length === 1) {
      this.take(events, playing[0]);
      return;
    }
    const turned = [];
    flip += 4;
    for (const seat of playing) {
      const pile = this.piles[seat];
      let card;
      if (pile.length) {
        card = pile.shift();
        this.lay(seat, card, flip, true);
      } else {
        card = this.up[seat][this.up[seat].length - 1]; // last_card: it stands again
      }
      turned.push([seat, card]);
    }
    events.push({ type: "cards_turned", round, depth: this.depth, cards: turned });
    this.compare(events, turned);
  }

  /** Take `seats`' cards off the table; cards left keep their order, flips renumbered. */
  clearTable(seats) {
    for (const seat of seats) {
      this.up[seat] = [];
      this.mine[seat] = [];
      this.down[seat] = 0;
    }
    if (this.mine.some((cards) => cards.length)) {
      const left = new Set(this.mine.flat());
      const kept = this.laid.map((card, i) => [card, this.tags[i]]).filter(([card]) => left.has(card));
      const renumber = new Map();
      for (const [, tag] of kept) if (!renumber.has(tag >> 2)) renumber.set(tag >> 2, renumber.size);
      this.laid = kept.map(([card]) => card);
      this.tags = kept.map(([, tag]) => renumber.get(tag >> 2) * 4 + (tag & 3));
      this.flips = renumber.size;
    } else {
      this.laid = [];
      this.tags = [];
      this.flips = 0;
    }
    this.warSeats = [];
    this.depth = 0;
  }

  /** The table in the order it goes under the winner's pile (before a shuffle). */
  prize(winner) {
    if (this.rules.won_cards === "shuffle" || this.rules.fixed_order === "seat0") return [...this.laid];
    const n = this.rules.players;
    const keys = this.tags.map((tag) => (tag >> 2) * 4 + ((((tag & 3) - winner) % n) + n) % n);
    return [...this.laid.keys()].sort((a, b) => keys[a] - keys[b]).map((i) => this.laid[i]);
  }

  take(events, winner) {
    const won = this.prize(winner);
    if (this.rules.won_cards === "shuffle") this.rng.shuffle(won);
    this.piles[winner].push(...won);
    this.haul = Math.max(this.haul, won.length);
    this.rounds += 1;
    if (this.depth) {
      this.wars += 1;
      this.longest = Math.max(this.longest, this.depth);
    }
    this.clearTable([...Array(this.rules.players).keys()]);
    events.push({ type: "cards_taken", round: this.rounds, seat: winner, count: won.length, counts: this.counts });
    this.endOfRound(events);
  }

  /** Everyone in the war ran out: every player still in takes their cards back (shuffled
   * as won cards are with taken_back as_won and won_cards shuffle); the round is not
   * counted. */
  giveBack(events) {
    const everyone = this.active.every((seat) => this.warSeats.includes(seat));
    const shuffle = this.rules.won_cards === "shuffle" && this.rules.taken_back === "as_won";
    for (const seat of this.active) {
      if (shuffle) this.rng.shuffle(this.mine[seat]);
      this.piles[seat].push(...this.mine[seat]);
    }
    this.clearTable([...this.active]);
    this.givenBacks += 1;
    const counts = this.counts;
    events.push({ type: "cards_returned", round: this.rounds + 1, counts });
    if (everyone || this.rules.both_short === "end") {
      this.end(events, leader(counts), "both_short");
      return;
    }
    this.phase = BATTLE;
    this.shortRound = false;
    if (this.timeStop) this.checkLimit(events, "time_limit");
    else if (this.rules.round_limit !== null && this.rounds >= this.rules.round_limit) this.checkLimit(events, "round_limit");
    if (this.phase !== OVER && this.repeated()) this.end(events, leader(counts), "endless");
  }

  repeated() {
    let seen = this.seen;
    if (seen === null) {
      if (this.givenBack === null || this.givenBackAt !== this.rounds) {
        this.givenBack = new Set();
        this.givenBackAt = this.rounds;
      }
      seen = this.givenBack;
    }
    const position = this.position();
    if (seen.has(position)) return true;
    seen.add(position);
    // shuffled take-backs can keep the positions new for ever (_step.py, MOST_GIVEN_BACK)
    return this.seen === null && this.rules.taken_back === "as_won" && seen.size >= MOST_GIVEN_BACK;
  }

  endOfRound(events) {
    this.phase = BATTLE;
    const short = this.shortRound;
    this.shortRound = false;
    for (const seat of [...this.active]) if (!this.piles[seat].length) this.out(events, seat, "no_cards");
    if (this.active.length === 1) {
      this.end(events, this.active[0], short ? "opponents_short" : "all_cards");
      return;
    }
    if (this.timeStop) this.checkLimit(events, "time_limit");
    else if (this.rules.round_limit !== null && this.rounds >= this.rules.round_limit) this.checkLimit(events, "round_limit");
    if (this.phase !== OVER && this.seen !== null) {
      const position = this.position();
      if (this.seen.has(position)) this.end(events, leader(this.counts), "endless");
      else this.seen.add(position);
    }
  }

  out(events, seat, reason) {
    this.active.splice(this.active.indexOf(seat), 1);
    const during = reason === "short_war" ? 1 : 0; // the round being played, or just taken
    this.outAt[seat] = this.rounds + this.givenBacks + during;
    events.push({ type: "player_out", round: this.rounds + during, seat, reason });
  }

  checkLimit(events, why) {
    const lead = leader(this.counts);
    if (lead !== null || this.rules.tie_break === "draw") this.end(events, lead, why);
  }

  end(events, winner, termination) {
    this.outcome = { winner, termination };
    this.phase = OVER;
    this.warSeats = [];
    events.push({ type: "game_over", outcome: this.outcome, summary: this.summary });
  }
}
