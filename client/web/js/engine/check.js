// Replaying a deal against what a viewer was shown: server/engine/check.py in JavaScript
// (docs/fairness.md). Pinned to the Python check by tests/vectors/engine/checks.json.
// A mismatch carries its facts (the take's seats and counts, the end's first field that
// differs): ../fairwords.js words it in the viewer's language.
//
// shown = {flips, takes, end}, what one viewer was shown:
//   flips: [{step, depth, cards: [[seat, "QH"], ...]}] (cards_turned as shown)
//   takes: [{step, seat, count, counts}]                 (cards_taken as shown)
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

class Checker {
  constructor(game, flips, takes) {
    this.game = game;
    this.flips = byStep(flips);
    this.takes = byStep(takes);
    this.matched = { flips: 0, cards: 0, takes: 0 };
  }

  lastShown() {
    return Math.max(0, ...this.flips.keys(), ...this.takes.keys());
  }

  compare(events) {
    const { steps: step, rules } = this.game;
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
  const checker = new Checker(new Game(rules, deal), shown.flips ?? [], shown.takes ?? []);
  const found = checker.replay(end);
  return {
    steps: checker.game.steps,
    ...checker.matched,
    end: end !== null && found === null,
    mismatch: found,
  };
}
