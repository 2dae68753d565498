// What a tap or key asks for, or why nothing is sent now (client/intents.py).

import { mine } from "./view.js";

export const AUTO_CYCLE = Object.freeze(["off", "calm", "quick"]);

export function turnOver(view) {
  const me = mine(view);
  if (me === null) return "Spectators watch; only players turn over.";
  if (view.phase !== "playing") return "The game is not on.";
  if (me.ready) return "You are ready; waiting for the others.";
  if (!view.waiting_for.includes(me.seat)) return "The game does not need your card now.";
  return { type: "ready", step: view.step };
}

export function setAuto(view, mode) {
  if (mine(view) === null) return "Spectators have no auto-play.";
  if (view.phase === "over") return "The game is over.";
  return { type: "set_auto_play", mode };
}

/** off -> calm -> quick -> off; `asked`: a mode sent, not yet confirmed by the room. */
export function cycleAuto(view, asked = null) {
  const me = mine(view);
  const index = Math.max(0, AUTO_CYCLE.indexOf(asked ?? (me === null ? "off" : me.auto)));
  return setAuto(view, AUTO_CYCLE[(index + 1) % AUTO_CYCLE.length]);
}

export function finish(view) {
  const me = mine(view);
  if (me === null) return "Spectators do not vote.";
  if (view.phase !== "playing") return "Finishing is for a game in progress.";
  if (me.finish_vote) return "You have voted to finish; waiting for the others.";
  return { type: "vote_finish" };
}

export function rematch(view, deal) {
  if (mine(view) === null) return "Spectators do not vote.";
  if (view.phase !== "over") return "A rematch comes after game over.";
  return { type: "rematch", deal };
}
