// Which screen shows (start, invitation, table), the trouble line over it, and the panel
// that says why a connection ended, with what may be done next.

import { $ } from "./page.js";

export function show(page, screen) {
  for (const node of page.doc.querySelectorAll(".screen")) node.hidden = node.id !== screen;
  if (screen !== "table") page.sharedComputer.playing(null);
}

export function trouble(text) {
  $("trouble").hidden = !text;
  $("trouble").textContent = text ?? "";
}

/** `again`: the button that tries again does this (none if null); `full`: the room is
 * full (how to take an away seat back); `watch`: the button that watches does this. */
export function endedPanel(text, again = null, full = false, watch = null) {
  $("full-help").hidden = !full;
  $("watch-code").hidden = watch === null;
  $("watch-code").onclick = watch;
  $("ended").hidden = !text;
  $("ended-text").textContent = text ?? "";
  $("again").hidden = again === null;
  $("again").onclick = again;
}

/** A refusal or close in its plain sentence (page.plain), else the server's reason. */
export const plainText = (page, code, reason) => page.words.text("page.plain", { code: page.plain.has(String(code)) ? String(code) : "other", reason });
