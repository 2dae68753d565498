// When the connection ends (its `ended` event): home after leaving, the password asked
// again, the sentence that says why, and what may be done next (try again, play here
// again, give another name, watch instead).

import { fragment } from "./address.js";
import { stopClock } from "./clock.js";
import { field } from "./forms.js";
import { $ } from "./page.js";
import { endedPanel, plainText, show, trouble } from "./screens.js";
import { enter, redraw } from "./session.js";
import { home, watchWith } from "./sitdown.js";
import { welcomed } from "./view.js";

export function ended(page, event) {
  stopClock(page);
  const { seats, sharedComputer, words } = page;
  const current = page.connection;
  if (event.ok && current?.left) {
    home(page);
    trouble(words.text("page.you_left"));
    return;
  }
  if (event.ok && event.reason.key === "close.closed") return; // we closed it: another room, or home
  const code = event.code ?? event.closeCode;
  if (code === "password_required" || code === "bad_password") {
    home(page);
    $("create").open = true;
    trouble(plainText(page, code, event.reason));
    field("password").focus();
    return;
  }
  const unreachable = cannotReach(event.reason);
  if (!welcomed(page.view)) return refused(page, code, event, unreachable, current);
  const text = endedText(page, code, event.reason, unreachable);
  page.reconnecting = null;
  trouble(null);
  redraw(page);
  let again = null;
  if (unreachable || event.reason.key === "close.gave_up" || code === 4002 || code === 1001) {
    const [kind, fragmentCode] = fragment();
    // this tab's own name (a shared computer's other tabs play other seats), else the last typed
    const name = (kind === "join" ? sharedComputer.thisTab(fragmentCode) : null) ?? current.opening.name ?? seats.name;
    const opening = kind === null ? current.opening : { type: `${kind}_room`, code: fragmentCode, name: name || "Player" };
    if (kind === "watch") delete opening.name;
    again = () => enter(page, opening, { resumeOnly: kind === "join" });
  }
  endedPanel(text, again);
}

/** Whether the connection ended because the server could not be reached (at once, or
 * after giving up reconnecting): `reason` is the `ended` event's said() reason. */
export function cannotReach(reason) {
  if (reason.key === "close.gave_up") return cannotReach(reason.values.reason);
  return reason.key === "close.cannot_connect" || reason.key === "close.cannot_reach";
}

function endedText(page, code, reason, unreachable) {
  if (!page.plain.has(String(code)) && unreachable) return page.words.text("page.unreachable");
  return plainText(page, code, reason);
}

// Refused before any welcome: no table behind the message (it would say "Connecting…").
// A full room asks for the exact name again (an away seat is taken back with it), or
// offers to watch with the watch code.
function refused(page, code, event, unreachable, current) {
  page.reconnecting = null;
  trouble(null);
  const [kind] = fragment();
  const full = code === "room_full" && kind === "join";
  const rename = /^name_/.test(code) && kind === "join"; // pick another name
  page.sharedComputer.offer([]);
  show(page, full || rename ? "invite" : null);
  const watchCode = code === "watch_code" ? (current.opening.code ?? null) : null;
  const text = endedText(page, code, event.reason, unreachable);
  const again = unreachable ? () => enter(page, current.opening) : null;
  endedPanel(text, again, full, watchCode === null ? null : () => watchWith(page, watchCode));
  if (full || rename) {
    $("invite-name").select();
    $("invite-name").focus();
  }
}
