// Sitting down: where the page's address leads (the start page, a players' link, a watch
// link), the seats this browser keeps at a table ("Continue as …"), switching a tab's seat,
// and going home.

import { fragment, setHash } from "./address.js";
import { dropWarm, socketUrl, warm } from "./connection.js";
import { $ } from "./page.js";
import { endedPanel, plainText, show, trouble } from "./screens.js";
import { enter, stop } from "./session.js";
import { nameKey } from "./store.js";

/** Show what the address asks for (at start, and whenever the fragment changes). */
export function route(page) {
  const { seats, sharedComputer } = page;
  stop(page, { leaving: true });
  dropWarm(page.warm);
  page.warm = null;
  trouble(null);
  endedPanel(null);
  const [kind, code] = fragment();
  if (kind === "watch") return enter(page, { type: "watch_room", code });
  const kept = kind === "join" ? seats.all(code) : [];
  // This tab played a seat kept here (a reload): on as that name. Another tab, a new
  // window: the browser may be shared, so ask who is there (a kept seat, or someone else).
  const mine = kind === "join" ? sharedComputer.thisTab(code) : null;
  if (mine !== null && kept.some((record) => nameKey(record.name) === nameKey(mine))) return continueAs(page, mine);
  sharedComputer.offer(kept);
  const screen = kind === "join" ? "invite" : "start";
  $(`${screen}-name`).value = kept.length ? "" : seats.name;
  show(page, screen);
  if (kind !== "join") return undefined;
  page.warm = warm(socketUrl(location)); // the table's socket, while a name is typed
  // whose table it is (lookup.js, loaded only here), or an offer to watch
  $("invite-table").hidden = true;
  const watch = () => endedPanel(plainText(page, "watch_code", ""), null, false, () => watchWith(page, code));
  import("./lookup.js").then((m) => m.sayTable($("invite-table"), socketUrl(location), code, () => fragment()[1] === code, watch, () => page.words));
  if (kept.length) return $("continue-list").firstElementChild.focus();
  return $("invite-name").focus();
}

export function watchWith(page, code) {
  setHash(`#watch=${code}`);
  route(page);
}

/** "Continue as Oma": the seat this browser keeps for the name at the link's table. */
export function continueAs(page, name) {
  const [, code] = fragment();
  const stored = code === null ? null : page.seats.get(code, name);
  if (stored !== null) enter(page, { type: "join_room", code, name: stored.name || name });
}

// "Playing as Oma · switch": this tab lets the seat be (away, not left) and asks who is there.
export function switchSeat(page) {
  const [kind, code] = fragment();
  if (kind !== "join") return;
  page.sharedComputer.forgetTab(code);
  stop(page);
  route(page);
}

export function home(page) {
  stop(page, { leaving: true });
  setHash("");
  route(page);
}
