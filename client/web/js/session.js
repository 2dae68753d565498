// The one connection to a room (connection.js) and what each message it brings does to
// the table: the view, the sentences, the sentence under the cards, the clock, the redraw.

import { fragment, setHash } from "./address.js";
import { now, stopClock, tickClock } from "./clock.js";
import { Connection, dropWarm, socketUrl } from "./connection.js";
import { follow, noCountdown, warning } from "./countdown.js";
import { $ } from "./page.js";
import { endedPanel, show, trouble } from "./screens.js";
import { more, settled } from "./lang.js";
import { describe, status } from "./sentences.js";
import { waitingLine } from "./takeover.js";
import { initialView, openSeats, welcomed } from "./view.js";

// bench/web.py puts arrays here to time each message to the redrawn table, and its parts.
const timing = Array.isArray(globalThis.__warTiming) ? globalThis.__warTiming : null;
const parts = timing !== null && Array.isArray(globalThis.__warParts) ? globalThis.__warParts : null;
// The last round's sentence sits right under the cards: who took them, a war, who is out.
const SAID = new Set(["cards_taken", "war_declared", "cards_returned", "player_out", "game_over"]);

/** Sit down or watch: `unsealed` is the opening message (create_room, join_room,
 * watch_room), sent with a fair deal's commitment; `options` go to the Connection. */
export async function enter(page, unsealed, options = {}) {
  stop(page);
  const ticket = ++page.entered;
  // the join page's socket, opened while the name was typed (sitdown.js): this join's
  const warmed = unsealed.type === "join_room" ? page.warm : null;
  if (warmed === null) dropWarm(page.warm);
  page.warm = null;
  // fair deals: loaded when a player sits down or watches, not with the start page (no
  // destructuring here: tdewolff-minify 2.24 puts a destructuring declaration before the
  // declarations next to it, and the ticket must be taken before the await); what the
  // table shows of them (fairview.js) once a game is on (`held`)
  const module = await import("./fair.js");
  const fair = new module.Fair();
  const opening = await fair.opening(unsealed); // a seed's commitment for a fair deal
  if (ticket !== page.entered) return dropWarm(warmed);
  page.fairView?.reset(); // the last room's fingerprint and check, hidden
  page.fair = fair;
  page.loadFairView = module.loadView;
  page.fairView = page.held = null;
  page.view = initialView();
  page.countdown = noCountdown();
  page.reconnecting = page.readySentFor = page.autoAsked = page.saidStep = page.askingLine = null;
  page.table.reset();
  page.table.draw(page.view, status(page.view, null, { words: page.words }));
  show(page, "table");
  const current = new Connection({
    url: socketUrl(location),
    opening,
    seats: page.seats,
    fair,
    warm: warmed,
    onEvent: (event) => page.connection === current && page.hear(event),
    ...options,
  });
  page.connection = current;
  current.start();
}

// `leaving`: the player goes to the start page (or another room): the seat is left for
// good (leave), so that the room does not wait for nobody; a closed tab or a reload is not.
export function stop(page, { leaving = false } = {}) {
  const old = page.connection;
  page.connection = null;
  if (leaving && old !== null && welcomed(page.view)) old.send({ type: "leave" });
  old?.close();
  stopClock(page);
}

const NO_FAIR_VIEW = { follow: () => [], speak() {}, reset() {} }; // fairview.js could not be had

/** Whether the connection's `event` waits (then it is kept, and heard when its turn comes):
 * from the first message of a game that is on or over (the view leaves "waiting"), every
 * event waits until the game's words (lang.js LATER.game), what the table shows of a
 * fair deal (fairview.js), its sounds (alive.js, page.js `quietAlive`) and its styles
 * (game.css, page.js `loadGameStyle`) are in, or could not be had; a waiting room loads
 * them only once its last seat is taken. Events are heard in the order they came. */
export function held(page, event) {
  if (page.held !== null) {
    page.held.push(event);
    return true;
  }
  if (event.kind !== "received") return false;
  if (event.view.phase === "waiting") {
    // every seat taken: the game is next, so fetch what it will wait for now (an
    // invitation's room, still open, does not)
    if (event.view.seats.length && !openSeats(event.view).length) {
      more(page.words, "game");
      if (page.fairView === null) page.loadFairView().catch(() => {});
      page.alive?.load?.();
      page.loadStyle?.();
    }
    return false;
  }
  const ready = page.fairView !== null && settled(page.words, "game");
  if (ready && !page.alive?.load && page.styled !== false) return false;
  const ticket = page.entered;
  const connection = page.connection;
  page.held = [event];
  let release;
  page.released = new Promise((resolve) => (release = resolve));
  const module = page.fairView === null ? page.loadFairView().catch(() => null) : null;
  const waits = [module, more(page.words, "game"), page.alive?.load?.(), page.loadStyle?.()];
  Promise.all(waits).then(([loaded]) => {
    if (ticket !== page.entered || connection !== page.connection) return release(); // left since
    if (page.fairView === null) {
      page.fairView = loaded === null ? NO_FAIR_VIEW : new loaded.FairView(page.doc, page.fair, page.words);
      page.fairView.reset();
    }
    const events = page.held;
    page.held = null;
    for (const kept of events) page.hear(kept);
    release();
  });
  return true;
}

/** Do `action(page)` now, or, while a game's first events are held (`held`), once they are
 * heard: a key pressed as a game starts acts on the table they make, as it would have. */
export function whenHeard(page, action) {
  if (page.held === null) return action(page);
  page.released.then(() => action(page));
}

/** A message from the room (the connection's `received` event). */
export function received(page, event) {
  const { message, before, view: after, at } = event;
  const { table, words } = page;
  const marks = parts === null ? null : [at, performance.now()]; // decoded and reduced
  page.view = after;
  if (message.type === "seat_request_waiting") page.askingLine = waitingLine(message, words);
  const fairLines = page.fairView?.follow(event) ?? []; // none in a waiting room (`held`)
  if (message.type === "welcome") welcome(page, message);
  if (page.readySentFor !== null && after.step > page.readySentFor) page.readySentFor = null;
  if (message.type === "game_started") page.readySentFor = null; // a fresh deal's step 0 (after a void)
  if (after.seats[after.my_seat]?.auto === page.autoAsked) page.autoAsked = null; // the room caught up
  const t = now();
  page.countdown = follow(page.countdown, before, message, after, t);
  const lines = [...describe(before, message, after, after.my_seat, { table: true, words }), ...fairLines];
  const [marked, line] = warning(page.countdown, t);
  page.countdown = marked;
  table.say(line === null ? lines : [...lines, words.say(line)]);
  underTheCards(page, message, lines);
  marks?.push(performance.now());
  page.alive.hear(message, after.my_seat);
  marks?.push(performance.now());
  page.talk.hear(message, after);
  if (message.type === "game_started" && page.doc.activeElement === page.doc.body && after.my_seat !== null) {
    $("turn").focus({ preventScroll: true });
  }
  redraw(page);
  if (message.type === "game_started" && before.phase === "over") table.backToTable(); // a rematch
  // the round's sentence above the dock, as it comes and while it is the step's (a badge
  // that comes after it may push it down)
  if (SAID.has(message.type) || after.step === page.saidStep) table.uncover();
  tickClock(page);
  if (timing !== null) {
    marks?.push(performance.now());
    page.doc.body.getBoundingClientRect(); // style and layout too, as the frame would do them
    timing.push(performance.now() - at);
    marks?.push(performance.now());
    parts?.push([message.type, ...marks.slice(1).map((t, i) => t - marks[i])]);
  }
}

// A welcome: the invitation's addresses, the room named in the address, this tab's seat.
function welcome(page, message) {
  const { view } = page;
  page.invitation.useAddresses(message.addresses);
  page.invitation.useOutside(message.outside);
  page.reconnecting = page.readySentFor = null; // a new connection: a ready that was lost may go again
  trouble(null);
  endedPanel(null);
  const mine = view.my_seat !== null;
  const code = mine ? view.player_code : view.watch_code;
  if (code !== null) setHash(`#${mine ? "join" : "watch"}=${code}`);
  if (mine && code !== null) page.sharedComputer.played(code, view.seats[view.my_seat]?.name ?? "");
}

function underTheCards(page, message, lines) {
  if (message.type === "game_started") {
    page.saidStep = null;
    page.table.tell("");
  }
  if (!SAID.has(message.type) || !lines.length) return;
  const text = message.type === "game_over" ? lines[0] : lines.join(" ");
  page.table.tell(message.step === page.saidStep ? `${$("said").textContent} ${text}` : text);
  page.saidStep = message.step;
}

/** The sentence under the cards is the current step's: show it, if the dock covers it. */
export const saidNow = (page) => page.connection !== null && page.view.step === page.saidStep;

/** Draw the table, the seat question, the shared computer's line and the talk again. */
export function redraw(page) {
  const { view, words } = page;
  const offline = page.reconnecting !== null;
  const asking = welcomed(view) ? null : page.askingLine;
  const told = offline ? words.text(page.reconnecting) : (asking ?? status(view, view.my_seat, { touch: page.input.touch, words }));
  page.table.draw(view, told, { offline });
  page.seatQuestion.draw(view);
  page.sharedComputer.playing(fragment()[0] === "join" && view.my_seat !== null ? (view.seats[view.my_seat]?.name ?? null) : null);
  page.talk.draw(view);
  page.alive.awake(page.connection !== null && !offline && welcomed(view) && view.phase === "playing");
}
