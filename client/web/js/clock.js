// The time limit's clock: the minutes left on the table, and the countdown's warnings as
// they come (countdown.js).

import { secondsLeft, warning } from "./countdown.js";

export const now = () => performance.now() / 1000;

export function tickClock(page) {
  const left = secondsLeft(page.countdown, now());
  const running = left !== null && page.view.phase === "playing";
  page.table.clock(running ? left : null, page.countdown.up);
  if (running && !page.countdown.up) page.clock ??= setInterval(() => onTick(page), 1000);
  else stopClock(page);
}

function onTick(page) {
  const [marked, line] = warning(page.countdown, now());
  page.countdown = marked;
  if (line !== null) page.table.say([page.words.say(line)]);
  tickClock(page);
}

export function stopClock(page) {
  clearInterval(page.clock);
  page.clock = null;
}
