// What a tap or key asks for, or why nothing is sent now (a said() message for the viewer's
// catalog), as client/net/intents.py: both are
// checked against tests/vectors/functions/intents.json. Whether a command may go in the
// room's phase is the server's phase table (PHASE_TABLE, vocabulary.js).

import { said } from "./catalog.js";
import { mine } from "./view.js";
import { AUTO_CYCLE, PHASE_TABLE } from "./vocabulary.js";

export { AUTO_CYCLE };

const SPECTATORS_SAY = {
  ready: said("keys.spectator_ready"),
  set_auto_play: said("keys.spectator_auto"),
  vote_finish: said("keys.spectator_vote"),
  rematch: said("keys.spectator_vote"),
};
const NOT_NOW = {
  ready: said("keys.not_on"),
  set_auto_play: said("keys.over"),
  vote_finish: said("keys.finish_not_now"),
  rematch: said("keys.rematch_not_now"),
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
  if (me.ready || sent === view.step) return said("keys.ready_already");
  if (!view.waiting_for.includes(me.seat)) return said("keys.not_needed");
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
  if (mine(view).finish_vote) return said("keys.voted_already");
  return { type: "vote_finish" };
}

export function rematch(view, deal) {
  return refused(view, "rematch") ?? { type: "rematch", deal };
}
