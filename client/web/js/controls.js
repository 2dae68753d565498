// What the player does at the table: the buttons of the dock and the actions (turn over,
// auto-play, finish, rematch, leave in two taps), their keys, and the sound switch.

import { said } from "./catalog.js";
import { typing } from "./input.js";
import { cycleAuto, finish, rematch, turnOver } from "./intents.js";
import { $ } from "./page.js";
import { whenHeard } from "./session.js";
import { home } from "./sitdown.js";

/** Send `intent` (intents.js), or say why nothing is sent now; whether it went. */
export function act(page, intent) {
  const refusal = "key" in intent; // a said() message: why nothing is sent now
  const sent = !refusal && Boolean(page.connection?.send(intent));
  if (!sent) $("status").textContent = page.words.say(refusal ? intent : said("keys.not_connected"));
  return sent;
}

export function turn(page) {
  const intent = turnOver(page.view, page.readySentFor); // a second tap is told it is ready already
  // Only a ready that went out counts: one tapped while reconnecting was never sent.
  if (act(page, intent)) page.readySentFor = page.view.step;
}

/** Leave: the first press arms the button for 4 s, the second leaves. */
export function leave(page) {
  if (page.leaveArmed === null) {
    $("leave").textContent = page.words.text("page.leave_armed", { input: page.input.touch ? "touch" : "keys" });
    $("leave").classList.add("armed");
    page.leaveArmed = setTimeout(() => disarmLeave(page), 4000);
    return;
  }
  disarmLeave(page);
  if (!page.connection?.send({ type: "leave" })) home(page);
}

export function disarmLeave(page) {
  clearTimeout(page.leaveArmed);
  page.leaveArmed = null;
  $("leave").textContent = page.words.text("page.leave");
  $("leave").classList.remove("armed");
}

const KEYS = {
  a: (page) => {
    const intent = cycleAuto(page.view, page.autoAsked);
    act(page, intent);
    if (intent.mode) page.autoAsked = intent.mode;
  },
  f: (page) => act(page, finish(page.view)),
  r: (page) => act(page, rematch(page.view, "new")),
  d: (page) => act(page, rematch(page.view, "same")),
  q: leave,
};

/** Space or Enter turns over (outside a control that does its own thing); a, f, r, d
 * and q outside a text field are the actions' keys. */
export function keyDown(page, event) {
  if (event.altKey || event.ctrlKey || event.metaKey || $("table").hidden || page.view.my_seat === null) return;
  const target = event.target instanceof Element ? event.target : page.doc.body;
  if (event.key === " " || event.key === "Enter") {
    if (target.closest("input, select, textarea, button, summary, a")) return; // it does its own thing
    event.preventDefault();
    whenHeard(page, turn);
  } else if (Object.hasOwn(KEYS, event.key.toLowerCase()) && !typing(target)) {
    event.preventDefault();
    whenHeard(page, KEYS[event.key.toLowerCase()]);
  }
}

export function soundButton(page) {
  $("sound").setAttribute("aria-pressed", String(page.alive.on));
  $("sound").textContent = page.words.text(page.alive.on ? "page.sound_on" : "page.sound_off");
}
