// The time limit's countdown, as client/words/countdown.py: pure, `now` is given.

import { said } from "./catalog.js";
import { WARN_SECONDS } from "./vocabulary.js";

export { WARN_SECONDS };

export function noCountdown(game = 0) {
  return { deadline: null, game, warned: false, up: false };
}

/** Whole seconds left at `now`, rounded up; null without a limit. */
export function secondsLeft(countdown, now) {
  if (countdown.deadline === null) return null;
  if (countdown.up) return 0;
  return Math.max(0, Math.ceil(countdown.deadline - now));
}

export function warnAt(countdown) {
  if (countdown.deadline === null || countdown.warned || countdown.up) return null;
  return countdown.deadline - WARN_SECONDS;
}

const SETS_THE_CLOCK = new Set(["welcome", "snapshot", "game_started", "time_up", "game_over"]);

/** The countdown after `message`, received at `now`, turned `before` into `view`. */
export function follow(countdown, before, message, view, now) {
  if (view === before || !SETS_THE_CLOCK.has(message.type)) return countdown;
  const left = view.seconds_left;
  if (view.minutes === null || left === null || view.phase === "waiting") return noCountdown(view.game);
  if (view.phase === "over") return { deadline: now, game: view.game, warned: true, up: true };
  const sameGame = countdown.game === view.game && countdown.deadline !== null;
  const up = view.time_up || left === 0 || message.type === "time_up";
  // A welcome or a start tells the time left itself: a near end needs no extra line.
  const told = (message.type === "welcome" || message.type === "game_started") && left <= WARN_SECONDS;
  const warned = (sameGame && countdown.warned) || told || up;
  return { deadline: now + left, game: view.game, warned, up };
}

/** [countdown, the one-minute line (a said() message) if due at `now` (then marked as said), or null]. */
export function warning(countdown, now) {
  const due = warnAt(countdown);
  const left = secondsLeft(countdown, now);
  if (due === null || left === null || now < due || left === 0) return [countdown, null];
  const marked = { ...countdown, warned: true };
  if (left > WARN_SECONDS - 5) return [marked, said("clock.one_minute")];
  return [marked, said("clock.less_than_minute", { clock: clockText(left) })];
}

/** 299 -> "4:59", 5 -> "0:05", 3725 -> "1:02:05". */
export function clockText(seconds) {
  const total = Math.max(0, seconds);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  return hours ? `${hours}:${two(minutes)}:${two(secs)}` : `${minutes}:${two(secs)}`;
}
