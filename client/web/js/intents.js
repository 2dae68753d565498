// What a tap or key asks for, or why nothing is sent now, as client/intents.py: both are
// checked against tests/vectors/functions/intents.json. Whether a command may go in the
// room's phase is the server's phase table (PHASE_TABLE, vocabulary.js).

import { mine } from "./view.js";
import { AUTO_CYCLE, PHASE_TABLE } from "./vocabulary.js";

export { AUTO_CYCLE };

const SPECTATORS_SAY = {
  ready: "Spectators watch; only players turn over.",
  set_auto_play: "Spectators have no auto-play.",
  vote_finish: "Spectators do not vote.",
  rematch: "Spectators do not vote.",
};
const NOT_NOW = {
  ready: "The game is not on.",
  set_auto_play: "The game is over.",
  vote_finish: "Finishing is for a game in progress.",
  rematch: "A rematch comes after game over.",
};

/** Why the phase table refuses `command` from me now, in words; null if it may go. */
function refused(view, command) {
  const code = PHASE_TABLE[command][mine(view) === null ? "spectator" : "seat"][view.phase] ?? null;
  if (code === null) return null;
  return code === "not_seated" ? SPECTATORS_SAY[command] : NOT_NOW[command];
}

/** A ready for the current step. `sent`: the step of a ready already sent and not yet
 * answered: a second tap sends nothing and says so, as once the server confirmed it. */
export function turnOver(view, sent = null) {
  const no = refused(view, "ready");
  if (no !== null) return no;
  const me = mine(view);
  if (me.ready || sent === view.step) return "You are ready; waiting for the others.";
  if (!view.waiting_for.includes(me.seat)) return "The game does not need your card now.";
  return { type: "ready", step: view.step };
}

export function setAuto(view, mode) {
  return refused(view, "set_auto_play") ?? { type: "set_auto_play", mode };
}

/** off -> calm -> quick -> off; `asked`: a mode sent, not yet confirmed by the room. */
export function cycleAuto(view, asked = null) {
  const me = mine(view);
  const index = Math.max(0, AUTO_CYCLE.indexOf(asked ?? (me === null ? "off" : me.auto)));
  return setAuto(view, AUTO_CYCLE[(index + 1) % AUTO_CYCLE.length]);
}

export function finish(view) {
  const no = refused(view, "vote_finish");
  if (no !== null) return no;
  if (mine(view).finish_vote) return "You have voted to finish; waiting for the others.";
  return { type: "vote_finish" };
}

export function rematch(view, deal) {
  return refused(view, "rematch") ?? { type: "rematch", deal };
}
