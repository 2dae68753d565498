// Replaying a deal against what a viewer was shown: server/engine/check.py in JavaScript
// (docs/fairness.md). Pinned to the Python check by tests/vectors/engine/checks.json.
// A mismatch carries its facts (the take's seats and counts, the end's first field that
// differs): ../fairwords.js words it in the viewer's language.
//
// shown = {flips, takes, laid, wars, outs, whole, end}, what one viewer was shown:
//   flips: [{step, depth, cards: [[seat, "QH"], ...]}] (cards_turned as shown)
//   takes: [{step, seat, count, counts}]                 (cards_taken as shown)
//   laid:  [{step, depth, counts: [[seat, n], ...]}]     (cards_laid_down as shown)
//   wars:  [{step, depth, seats}]                        (war_declared as shown)
//   outs:  [{step, seat, reason}]                        (player_out as shown)
//   whole: [[first, last], ...] the steps seen whole (connected, no seq missed): every
//          event the deal gives there must have been shown (a "missing" mismatch)
//   end:   {step, winner, termination, counts, rounds, wars, longest_war, biggest_haul,
//          standings (optional: each seat's place, compared when given)}
//          or null (the viewer has not seen the end)

import { Game } from "./game.js";
import { cardLabel } from "./rules.js";

/** A take as a mismatch writes it: "seat 0 takes 6 -> 29/23". */
export const describeTake = (seat, count, counts) => `seat ${seat} takes ${count} -> ${counts.join("/")}`;

/** An end as a mismatch writes it (server/engine/check.py, describe_end). */
export function describeEnd(end) {
  const winner = end.winner === null ? "none" : String(end.winner);
  return (
    `step ${end.step} winner ${winner} ${end.termination} counts ${end.counts.join("/")} ` +
    `rounds ${end.rounds} wars ${end.wars} longest ${end.longest_war} haul ${end.biggest_haul}`
  );
}

const cardsText = (cards) => cards.map(([seat, code]) => `${seat}:${code}`).join(" ") || "none";
const mismatch = (step, what, seat, expected, shown, facts = {}) => ({ step, what, seat, expected, shown, facts });
const END_FIELDS = ["step", "winner", "termination", "counts", "rounds", "wars", "longest_war", "biggest_haul"];
const same = (a, b) => (Array.isArray(a) ? a.join("/") === b.join("/") : a === b);

function byStep(items) {
  const map = new Map();
  for (const item of items) {
    if (!map.has(item.step)) map.set(item.step, []);
    map.get(item.step).push(item);
  }
  return map;
}

const missing = (step, event, seat = null) => mismatch(step, "missing", seat, event, "none", { event });

class Checker {
  constructor(game, shown) {
    this.game = game;
    this.flips = byStep(shown.flips ?? []);
    this.takes = byStep(shown.takes ?? []);
    this.laid = byStep(shown.laid ?? []);
    this.wars = byStep(shown.wars ?? []);
    this.outs = byStep(shown.outs ?? []);
    this.whole = shown.whole ?? [];
    this.matched = { flips: 0, cards: 0, takes: 0, others: 0 };
  }

  lastShown() {
    const shown = [this.flips, this.takes, this.laid, this.wars, this.outs];
    return Math.max(0, ...shown.flatMap((items) => [...items.keys()]));
  }

  compare(events) {
    const step = this.game.steps;
    const seenWhole = this.whole.some(([first, last]) => first <= step && step <= last);
    return (
      this.compareFlips(step, events) ??
      this.compareTakes(step, events) ??
      this.compareLaid(step, events) ??
      this.compareWars(step, events) ??
      this.compareOuts(step, events) ??
      (seenWhole ? this.compareWhole(step, events) : null)
    );
  }

  compareFlips(step, events) {
    const rules = this.game.rules;
    const turned = new Map(events.filter((e) => e.type === "cards_turned").map((e) => [e.depth, e]));
    for (const flip of this.flips.get(step) ?? []) {
      const event = turned.get(flip.depth);
      if (event === undefined) return mismatch(step, "flip", null, "none", cardsText(flip.cards));
      const expected = new Map(event.cards.map(([seat, card]) => [seat, cardLabel(card, rules)]));
      const shown = new Map(flip.cards);
      const seats = [...new Set([...expected.keys(), ...shown.keys()])].sort((a, b) => a - b);
      for (const seat of seats) {
        const want = expected.get(seat) ?? "none";
        const got = shown.get(seat) ?? "none";
        if (want !== got) return mismatch(step, "card", seat, want, got);
      }
      this.matched.flips += 1;
      this.matched.cards += shown.size;
    }
    return null;
  }

  compareTakes(step, events) {
    const taken = events.filter((e) => e.type === "cards_taken");
    for (const take of this.takes.get(step) ?? []) {
      const shownText = describeTake(take.seat, take.count, take.counts);
      const facts = { seat: take.seat, count: take.count };
      if (!taken.length) return mismatch(step, "take", null, "none", shownText, { ...facts, deal_seat: null, deal_count: null });
      const want = describeTake(taken[0].seat, taken[0].count, taken[0].counts);
      if (want !== shownText) return mismatch(step, "take", null, want, shownText, { ...facts, deal_seat: taken[0].seat, deal_count: taken[0].count });
      this.matched.takes += 1;
    }
    return null;
  }

  compareLaid(step, events) {
    const laid = new Map(events.filter((e) => e.type === "cards_laid_down").map((e) => [e.depth, e]));
    for (const shown of this.laid.get(step) ?? []) {
      const want = new Map(laid.get(shown.depth)?.counts ?? []);
      const got = new Map(shown.counts);
      const seats = [...new Set([...want.keys(), ...got.keys()])].sort((a, b) => a - b);
      for (const seat of seats) {
        if (want.get(seat) !== got.get(seat)) {
          return mismatch(step, "laid", seat, String(want.get(seat) ?? "none"), String(got.get(seat) ?? "none"));
        }
      }
      this.matched.others += 1;
    }
    return null;
  }

  compareWars(step, events) {
    const declared = new Map(events.filter((e) => e.type === "war_declared").map((e) => [e.depth, e]));
    for (const shown of this.wars.get(step) ?? []) {
      const event = declared.get(shown.depth);
      const want = event === undefined ? "none" : event.seats.join(" ");
      const got = shown.seats.join(" ");
      if (want !== got) return mismatch(step, "war", null, want, got, { depth: shown.depth });
      this.matched.others += 1;
    }
    return null;
  }

  compareOuts(step, events) {
    const outs = new Map(events.filter((e) => e.type === "player_out").map((e) => [e.seat, e.reason]));
    for (const shown of this.outs.get(step) ?? []) {
      const want = outs.get(shown.seat) ?? "none";
      if (want !== shown.reason) return mismatch(step, "out", shown.seat, want, shown.reason);
      this.matched.others += 1;
    }
    return null;
  }

  // Every event of `step` the deal gives was shown (the viewer saw it whole).
  compareWhole(step, events) {
    const depths = (items) => new Set((items.get(step) ?? []).map((item) => item.depth));
    const [flips, laid, wars] = [depths(this.flips), depths(this.laid), depths(this.wars)];
    const outs = new Set((this.outs.get(step) ?? []).map((out) => out.seat));
    for (const event of events) {
      if (event.type === "cards_turned" && !flips.has(event.depth)) return missing(step, "flip");
      if (event.type === "cards_laid_down" && !laid.has(event.depth)) return missing(step, "laid");
      if (event.type === "war_declared" && !wars.has(event.depth)) return missing(step, "war");
      if (event.type === "cards_taken" && !(this.takes.get(step) ?? []).length) return missing(step, "take", event.seat);
      if (event.type === "player_out" && !outs.has(event.seat)) return missing(step, "out", event.seat);
    }
    return null;
  }

  replay(end) {
    const game = this.game;
    const timed = end !== null && end.termination === "time_limit";
    const until = Math.max(this.lastShown(), timed ? end.step : 0);
    while (game.steps < until) {
      if (game.phase === "over") return mismatch(game.steps + 1, "end", null, "the game is over", "a step", { field: "over" });
      const found = this.compare(game.step());
      if (found !== null) return found;
    }
    if (end === null) return null;
    if (timed && game.phase !== "over") game.stopByTime();
    else if (!timed) game.finish();
    return this.compareEnd(end);
  }

  compareEnd(end) {
    const game = this.game;
    if (game.outcome === null) return mismatch(end.step, "end", null, "the game goes on", describeEnd(end), { field: "goes_on" });
    const ended = { step: game.steps, ...game.outcome, counts: game.counts, ...game.summary, standings: game.standings };
    // the places too, where they were shown (a server before 0.3 sends none)
    const fields = end.standings?.length ? [...END_FIELDS, "standings"] : END_FIELDS;
    const field = fields.find((name) => !same(ended[name], end[name]));
    return field === undefined ? null : mismatch(end.step, "end", null, describeEnd(ended), describeEnd(end), { field });
  }
}

/**
 * Replay `new Game(rules, deal)` and compare it with what a viewer was `shown`; returns
 * {steps, flips, cards, takes, end, mismatch} (mismatch: {step, what, seat, expected,
 * shown, facts} or null). A time_limit end is replayed by stepping to its step and stopping the
 * game there.
 */
export function checkReplay(rules, deal, shown) {
  const end = shown.end ?? null;
  const checker = new Checker(new Game(rules, deal), shown);
  const found = checker.replay(end);
  return {
    steps: checker.game.steps,
    ...checker.matched,
    end: end !== null && found === null,
    mismatch: found,
  };
}
