// What a tap or key asks for: the protocol message to send, or a short sentence saying
// why nothing is sent now (as client/intents.py does for the terminal client).

import { mine } from "./view.js";

export const AUTO_CYCLE = Object.freeze(["off", "calm", "quick"]);

/** A ready for the current step, if the game waits for my turn. */
export function turnOver(view) {
  const me = mine(view);
  if (me === null) return "Spectators watch; only players turn over.";
  if (view.phase !== "playing") return "The game is not on.";
  if (me.ready) return "You are ready; waiting for the others.";
  if (!view.waiting_for.includes(me.seat)) return "The game does not need your card now.";
  return { type: "ready", step: view.step };
}

/** Auto-play `mode` for my seat. */
export function setAuto(view, mode) {
  if (mine(view) === null) return "Spectators have no auto-play.";
  if (view.phase === "over") return "The game is over.";
  return { type: "set_auto_play", mode };
}

/** The next auto-play mode after mine: off -> calm -> quick -> off. */
export function cycleAuto(view) {
  const me = mine(view);
  const index = Math.max(0, AUTO_CYCLE.indexOf(me === null ? "off" : me.auto));
  return setAuto(view, AUTO_CYCLE[(index + 1) % AUTO_CYCLE.length]);
}

/** A vote to play the rest out at once. */
export function finish(view) {
  const me = mine(view);
  if (me === null) return "Spectators do not vote.";
  if (view.phase !== "playing") return "Finishing is for a game in progress.";
  if (me.finish_vote) return "You have voted to finish; waiting for the others.";
  return { type: "vote_finish" };
}

/** A rematch vote ("new" deal, or the "same" deal again) once the game is over. */
export function rematch(view, deal) {
  if (mine(view) === null) return "Spectators do not vote.";
  if (view.phase !== "over") return "A rematch comes after game over.";
  return { type: "rematch", deal };
}
