// The page: which screen shows, the forms, the keys, and the one connection to the room.
//
// A link decides where the page starts (the code is in the fragment, so it never reaches
// a server log or a proxy): #join=CODE asks only for a name, then seats you (or resumes
// your seat, if this browser sat there before); #watch=CODE watches at once and never
// offers a seat; no fragment shows the start page (play the computer, create a room, or
// type a code). Once in a room the fragment names it, so a reload comes back to it.

import { Connection, socketUrl } from "./connection.js";
import { follow, noCountdown, secondsLeft, warning } from "./countdown.js";
import { cycleAuto, finish, rematch, setAuto, turnOver } from "./intents.js";
import { Table } from "./render.js";
import { describe, status } from "./sentences.js";
import { SeatStore } from "./store.js";
import { initialView, welcomed } from "./view.js";

const doc = document;
const $ = (id) => doc.getElementById(id);
const seats = new SeatStore();
const motion = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");
const table = new Table(doc, { reducedMotion: () => Boolean(motion?.matches) });
const now = () => performance.now() / 1000;
const MAX_DEAL = 2n ** 64n - 1n;
const CODE = /^[A-Za-z0-9-]{4,32}$/;
// bench/web.py measures message-to-table times by putting an array here before the page runs.
const timing = Array.isArray(globalThis.__warTiming) ? globalThis.__warTiming : null;

let connection = null;
let view = initialView();
let countdown = noCountdown();
let clockTimer = null;
let reconnecting = null; // "Reconnecting… (…)" while the connection is away
let readySentFor = null; // the step a ready was sent for (a double tap sends one)
let leaveArmed = null;

// --- screens -------------------------------------------------------------------------------
function show(screen) {
  for (const node of doc.querySelectorAll(".screen")) node.hidden = node.id !== screen;
}

function trouble(text) {
  const node = $("trouble");
  node.hidden = !text;
  node.textContent = text ?? "";
}

function endedPanel(text, { again = null } = {}) {
  $("ended").hidden = !text;
  $("ended-text").textContent = text ?? "";
  $("again").hidden = again === null;
  $("again").onclick = again;
}

function setHash(hash) {
  const url = new URL(location.href);
  url.hash = hash;
  history.replaceState(null, "", url.href);
}

/** Where the fragment sends us: ["join" | "watch" | null, code]. */
function fragment() {
  const match = /^#(join|watch)=([A-Za-z0-9-]{4,32})$/.exec(location.hash);
  return match ? [match[1], match[2].toUpperCase()] : [null, null];
}

function route() {
  stop();
  trouble(null);
  endedPanel(null);
  const [kind, code] = fragment();
  if (kind === "watch") return enter({ type: "watch_room", code });
  if (kind === "join") {
    if (seats.get(code) !== null) return enter({ type: "join_room", code, name: seats.get(code).name || seats.name || "Player" });
    $("invite-name").value = seats.name;
    show("invite");
    return $("invite-name").focus();
  }
  $("start-name").value = seats.name;
  show("start");
  return undefined;
}

// --- the connection ------------------------------------------------------------------------
function enter(opening, options = {}) {
  stop();
  view = initialView();
  countdown = noCountdown();
  reconnecting = null;
  readySentFor = null;
  table.reset();
  table.draw(view, status(view, null));
  show("table");
  const current = new Connection({
    url: socketUrl(location),
    opening,
    seats,
    onEvent: (event) => {
      if (connection === current) onEvent(event);
    },
    ...options,
  });
  connection = current;
  current.start();
}

function stop() {
  const old = connection;
  connection = null;
  old?.close();
  stopClock();
}

function onEvent(event) {
  switch (event.kind) {
    case "received":
      return received(event);
    case "reconnecting": {
      const delay = event.delay.toFixed(1);
      reconnecting = `Reconnecting… (${event.reason}; attempt ${event.attempt} in ${delay} s)`;
      trouble(reconnecting);
      return redraw();
    }
    case "notice":
      return table.say([event.text], "notice");
    case "ended":
      return ended(event);
    default:
      return undefined;
  }
}

function received({ message, before, view: after, at }) {
  view = after;
  if (message.type === "welcome") {
    reconnecting = null;
    trouble(null);
    endedPanel(null);
    if (view.my_seat !== null && view.player_code !== null) setHash(`#join=${view.player_code}`);
    else if (view.my_seat === null && view.watch_code !== null) setHash(`#watch=${view.watch_code}`);
  }
  if (view.step !== readySentFor && readySentFor !== null && view.step > readySentFor) readySentFor = null;
  const t = now();
  countdown = follow(countdown, before, message, after, t);
  const lines = describe(before, message, after, after.my_seat, { codes: false });
  const [marked, line] = warning(countdown, t);
  countdown = marked;
  table.say(line === null ? lines : [...lines, line]);
  if (message.type === "game_started" && doc.activeElement === doc.body && after.my_seat !== null) {
    $("turn").focus({ preventScroll: true });
  }
  redraw();
  tickClock();
  if (timing !== null) {
    doc.body.getBoundingClientRect(); // style and layout too, as the frame would do them
    timing.push(performance.now() - at);
  }
}

function redraw() {
  table.draw(view, reconnecting ?? status(view, view.my_seat));
}

const PLAIN = {
  unknown_code: "There is no game with that code. Check the code, or ask for a new link.",
  room_full: "That game is full: every seat is taken.",
  bad_password: "That password is not right.",
  password_required: "This server asks for a password to create a room: type it under “Create a room for the family”.",
  too_many_rooms: "The server has as many rooms as it can hold; try again later.",
  spectators_full: "As many people are watching as this game allows; try again later.",
  too_many_connections: "Too many windows are open to this server from your network; close one and try again.",
  too_many_failures: "Too many wrong codes from your network; wait a minute and try again.",
  unsupported_version: "This page is older than the server: reload the page.",
  bad_token: "Your seat could not be found any more.",
  store_unavailable: "The server cannot save games right now.",
};

function ended(event) {
  stopClock();
  const current = connection;
  if (event.ok) {
    if (current?.left) {
      connection = null;
      setHash("");
      route();
      trouble("You left the table.");
    }
    return;
  }
  const code = current?.refusal?.code ?? current?.lastError?.code ?? null;
  let text = PLAIN[code] ?? null;
  if (code === "password_required" || code === "bad_password") {
    connection = null;
    setHash("");
    route();
    $("create").open = true;
    trouble(text);
    doc.querySelector('#create-form input[name="password"]').focus();
    return;
  }
  if (text === null) {
    if (event.code === 4002) text = "This seat is now played in another window or on another device.";
    else if (event.code === 4003) text = "The room was closed.";
    else if (event.code === 1001) text = "The server shut down.";
    else if (event.reason.startsWith("cannot connect")) text = "The server cannot be reached. Is it running?";
    else if (event.reason.startsWith("gave up")) text = "The server could not be reached for five minutes.";
    else text = `${capital(event.reason)}.`;
  }
  reconnecting = null;
  trouble(null);
  redraw();
  const [kind, fragmentCode] = fragment();
  const opening = current?.opening ?? null;
  const retry = event.code === 4002 || event.code === 1001 || event.reason.startsWith("cannot connect") || event.reason.startsWith("gave up");
  let again = null;
  if (retry && kind !== null) {
    again = () => enter(kind === "join" ? { type: "join_room", code: fragmentCode, name: seats.name || "Player" } : { type: "watch_room", code: fragmentCode }, { resumeOnly: kind === "join" });
  } else if (retry && opening !== null) {
    again = () => enter(opening);
  }
  if (!welcomed(view)) show("table");
  endedPanel(text, { again });
}

// --- the time limit ------------------------------------------------------------------------
function tickClock() {
  const left = secondsLeft(countdown, now());
  table.clock(view.phase === "playing" ? left : null, countdown.up);
  const running = left !== null && view.phase === "playing" && !countdown.up;
  if (running && clockTimer === null) clockTimer = setInterval(onTick, 1000);
  if (!running) stopClock();
}

function onTick() {
  const [marked, line] = warning(countdown, now());
  countdown = marked;
  if (line !== null) table.say([line]);
  tickClock();
}

function stopClock() {
  if (clockTimer !== null) clearInterval(clockTimer);
  clockTimer = null;
}

// --- what the player does ------------------------------------------------------------------
function act(intent) {
  if (typeof intent === "string") return hint(intent);
  if (connection === null || !connection.send(intent)) return hint("Not connected right now; try again in a moment.");
  return undefined;
}

function hint(text) {
  $("status").textContent = text;
}

function turn() {
  const intent = turnOver(view);
  if (typeof intent !== "string") {
    if (readySentFor === view.step) return undefined; // a double tap: one ready is enough
    readySentFor = view.step;
  }
  return act(intent);
}

function leave() {
  const button = $("leave");
  if (leaveArmed === null) {
    button.textContent = "Leave for good? Tap again";
    button.classList.add("armed");
    leaveArmed = setTimeout(disarmLeave, 4000);
    return;
  }
  disarmLeave();
  if (connection === null || !connection.send({ type: "leave" })) {
    setHash("");
    route();
  }
}

function disarmLeave() {
  clearTimeout(leaveArmed);
  leaveArmed = null;
  $("leave").textContent = "Leave the table";
  $("leave").classList.remove("armed");
}

function keyDown(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || $("table").hidden) return;
  if (connection === null || view.my_seat === null) return;
  const target = event.target instanceof Element ? event.target : null;
  const interactive = target?.closest("input, select, textarea, button, summary, a, [contenteditable]");
  if (event.key === " " || event.key === "Enter") {
    if (interactive) return; // the focused button or field does its own thing
    event.preventDefault();
    turn();
    return;
  }
  if (target?.closest("input, select, textarea, [contenteditable]")) return;
  const key = event.key.toLowerCase();
  const actions = {
    a: () => act(cycleAuto(view)),
    f: () => act(finish(view)),
    r: () => act(rematch(view, "new")),
    d: () => act(rematch(view, "same")),
    q: leave,
  };
  if (Object.hasOwn(actions, key)) {
    event.preventDefault();
    actions[key]();
  }
}

// --- the forms -----------------------------------------------------------------------------
function typedName(input) {
  const name = input.value.trim();
  if (!name) {
    input.focus();
    input.reportValidity();
    return null;
  }
  seats.name = name;
  return name;
}

function playTheComputer() {
  const name = typedName($("start-name"));
  if (name === null) return;
  setHash("");
  enter({ type: "create_room", name, rules: {}, computers: 1 });
}

function createRoom(event) {
  event.preventDefault();
  const name = typedName($("start-name"));
  if (name === null) return;
  const form = new FormData(event.target);
  const players = Number(form.get("players"));
  const rules = {
    players,
    face_down: Number(form.get("face_down")),
    aces: form.get("aces"),
    short_war: form.get("short_war"),
    won_cards: form.get("won_cards"),
    tie_break: form.get("tie_break"),
  };
  const opening = { type: "create_room", name, rules, computers: Math.min(Number(form.get("computers")), players - 1) };
  const limit = form.get("limit");
  const number = Number(form.get("limit_number"));
  if (limit === "minutes" || limit === "rounds") {
    const high = limit === "minutes" ? 1440 : 1_000_000;
    if (!Number.isInteger(number) || number < 1 || number > high) {
      trouble(`The number of ${limit} must be a whole number from 1 to ${high}.`);
      return;
    }
  }
  if (limit === "minutes") opening.minutes = number;
  else if (limit === "rounds") rules.round_limit = number;
  else if (limit !== "none") rules.round_limit = Number(limit);
  const deal = String(form.get("deal") ?? "").trim();
  if (deal) {
    if (!/^[0-9]{1,20}$/.test(deal) || BigInt(deal) > MAX_DEAL) {
      trouble("The deal number must be a whole number from 0 to 18446744073709551615.");
      return;
    }
    const big = BigInt(deal);
    opening.deal = big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  const password = String(form.get("password") ?? "");
  if (password) opening.password = password;
  setHash("");
  enter(opening);
}

function joinWithCode(event) {
  event.preventDefault();
  const code = String(new FormData(event.target).get("code") ?? "").trim().toUpperCase();
  if (!CODE.test(code)) {
    trouble("A code has 4 to 32 letters, digits and hyphens, like K7MX-QD4R.");
    return;
  }
  const watch = event.submitter?.value === "watch";
  if (watch) {
    setHash(`#watch=${code}`);
    enter({ type: "watch_room", code });
    return;
  }
  const name = typedName($("start-name"));
  if (name === null) return;
  setHash(`#join=${code}`);
  enter({ type: "join_room", code, name });
}

function acceptInvite(event) {
  event.preventDefault();
  const name = typedName($("invite-name"));
  const [, code] = fragment();
  if (name === null || code === null) return;
  enter({ type: "join_room", code, name });
}

function limitChanged() {
  const limit = doc.querySelector('#create-form select[name="limit"]').value;
  const custom = limit === "rounds" || limit === "minutes";
  $("limit-number-field").hidden = !custom;
  $("limit-number-label").textContent = limit === "minutes" ? "Minutes (1 to 1440)" : "Rounds";
}

function playersChanged() {
  const players = Number(doc.querySelector('#create-form input[name="players"]:checked').value);
  const select = doc.querySelector('#create-form select[name="computers"]');
  for (const option of select.options) option.disabled = Number(option.value) > players - 1;
  if (Number(select.value) > players - 1) select.value = String(players - 1);
}

async function copyLink(event) {
  const button = event.currentTarget;
  const input = $(button.dataset.copy);
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    input.select(); // no clipboard API here (a plain http:// address): the old way
    copied = doc.execCommand?.("copy") ?? false;
  }
  button.textContent = copied ? "Copied ✓" : "Select and copy";
  setTimeout(() => {
    button.textContent = "Copy";
  }, 2500);
}

function capital(text) {
  return text.slice(0, 1).toUpperCase() + text.slice(1);
}

// --- wiring --------------------------------------------------------------------------------
$("vs-computer").addEventListener("click", playTheComputer);
$("name-form").addEventListener("submit", (event) => {
  event.preventDefault();
  playTheComputer();
});
$("create-form").addEventListener("submit", createRoom);
$("create-form").addEventListener("change", (event) => {
  if (event.target.name === "players") playersChanged();
  if (event.target.name === "limit") limitChanged();
});
$("join-form").addEventListener("submit", joinWithCode);
$("invite-form").addEventListener("submit", acceptInvite);
$("turn").addEventListener("click", turn);
$("finish").addEventListener("click", () => act(finish(view)));
$("leave").addEventListener("click", leave);
$("rematch-new").addEventListener("click", () => act(rematch(view, "new")));
$("rematch-same").addEventListener("click", () => act(rematch(view, "same")));
$("auto").addEventListener("change", (event) => act(setAuto(view, event.target.value)));
$("copy-join").addEventListener("click", copyLink);
$("copy-watch").addEventListener("click", copyLink);
$("home").addEventListener("click", () => {
  stop();
  setHash("");
  route();
});
doc.addEventListener("keydown", keyDown);
globalThis.addEventListener("hashchange", route);
globalThis.addEventListener("online", () => connection?.retryNow());
doc.addEventListener("visibilitychange", () => {
  if (doc.visibilityState === "visible") connection?.retryNow();
});
playersChanged();
limitChanged();
route();
