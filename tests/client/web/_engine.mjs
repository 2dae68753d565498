// Helpers for the engine's JavaScript tests: the shared engine vectors and the one-line
// form of an event that tests/vectors/generate_engine.py writes (`compact`, the same
// format), and a game played step by step as the generator plays it.

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { Game } from "../../../client/web/js/engine/game.js";
import { cardLabel } from "../../../client/web/js/engine/rules.js";
import { VECTORS } from "./_vectors.mjs";

/** One of tests/vectors/engine/*.json, parsed. */
export const engineVector = (name) => JSON.parse(readFileSync(join(VECTORS, "engine", name), "utf8"));

/** An event in one line, as generate_engine.compact writes it. */
export function compact(event, rules) {
  const cards = (pairs) => pairs.map(([seat, card]) => `${seat}:${cardLabel(card, rules)}`).join(" ");
  const r = event.round;
  switch (event.type) {
    case "cards_turned":
      return `r${r} d${event.depth} turn ${cards(event.cards)}`;
    case "cards_laid_down":
      return `r${r} d${event.depth} down ${event.counts.map(([s, n]) => `${s}:${n}`).join(" ")}`;
    case "war_declared":
      return `r${r} war${event.depth} ${event.seats.join(",")}`;
    case "cards_taken":
      return `r${r} take ${event.seat} ${event.count} -> ${event.counts.join("/")}`;
    case "cards_returned":
      return `r${r} returned -> ${event.counts.join("/")}`;
    case "player_out":
      return `r${r} out ${event.seat} ${event.reason}`;
    case "game_over": {
      const { outcome: o, summary: s } = event;
      const winner = o.winner === null ? "none" : o.winner;
      return (
        `over winner=${winner} ${o.termination} rounds=${s.rounds} wars=${s.wars}` +
        ` longest=${s.longest_war} haul=${s.biggest_haul} deal=${s.deal}`
      );
    }
    default:
      throw new Error(`unknown event ${event.type}`);
  }
}

/** Every step's events of `deal`, the clock stopping the game after `stopAt` steps. */
export function play(rules, deal, stopAt) {
  const game = new Game(rules, deal);
  const steps = [];
  while (game.phase !== "over") {
    const events = game.step();
    if (game.steps === stopAt && game.outcome === null) events.push(...game.stopByTime());
    steps.push(events.map((event) => compact(event, game.rules)));
  }
  return { steps, game };
}
