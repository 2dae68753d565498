// The page: which screen shows, the forms, the keys, the one connection (README.md).

import { Alive } from "./alive.js";
import { Connection, socketUrl } from "./connection.js";
import { follow, noCountdown, secondsLeft, warning } from "./countdown.js";
import { InputKind, releaseFocusAfterPointer, typing } from "./input.js";
import { cycleAuto, finish, rematch, setAuto, turnOver } from "./intents.js";
import { Invitation } from "./invite.js";
import { NO_WORDS, choose, load, remember, remembered, speakPage } from "./lang.js";
import { Table } from "./render.js";
import { said } from "./catalog.js";
import { TalkBar } from "./talkbar.js";
import { describe, status } from "./sentences.js";
import { SeatStore, nameKey } from "./store.js";
import { SeatQuestion, SharedComputer, answer, waitingLine } from "./takeover.js";
import { initialView, welcomed } from "./view.js";
import { MAX_DEAL, MAX_MINUTES, MAX_ROUND_LIMIT } from "./vocabulary.js";

const doc = document;
const $ = (id) => doc.getElementById(id);
const field = (name) => doc.querySelector(`#create-form [name="${name}"]`);
const seats = new SeatStore();
// The viewer's words: the picked language, else the browser's (lang.js); fetched first.
let words = await load(choose(remembered(storage()), globalThis.navigator?.languages ?? []));
if (words === null) {
  $("trouble").hidden = false;
  $("trouble").textContent = NO_WORDS;
  throw new Error(NO_WORDS);
}
const motion = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");
const invitation = new Invitation(doc);
const table = new Table(doc, { reducedMotion: () => Boolean(motion?.matches), invitation, words });
const input = new InputKind(globalThis, () => connection !== null && redraw());
const alive = new Alive(globalThis, storage());
const seatQuestion = new SeatQuestion(doc, (allow) => act(answer(view, allow)), words);
const sharedComputer = new SharedComputer(doc, words, { onContinue: continueAs, onSwitch: switchSeat });
const talk = new TalkBar(doc, {
  words,
  send: (message) => Boolean(connection?.send(message)),
  tell: (text) => ($("status").textContent = text),
  storage: storage(),
  tone: () => alive.ding(),
});
const now = () => performance.now() / 1000;
// bench/web.py puts arrays here to time each message to the redrawn table, and its parts.
const timing = Array.isArray(globalThis.__warTiming) ? globalThis.__warTiming : null;
const parts = timing !== null && Array.isArray(globalThis.__warParts) ? globalThis.__warParts : null;
// The refusals and closes told in a plain sentence of their own (page.plain); the rest say
// the reason (page.ended).
const PLAIN = new Set(Object.keys(words.data.messages.page.plain).filter((code) => code !== "select" && code !== "other"));
const plainText = (code, reason) => words.text("page.plain", { code: PLAIN.has(String(code)) ? String(code) : "other", reason });

let connection = null;
let fairView = null; // the fingerprint and the check at game over (fairview.js)
let entered = 0; // the latest enter(): an earlier one still hashing its seed gives way
let view = initialView();
let countdown = noCountdown();
let clock = null;
let reconnecting = null; // what the status line says while the connection is away (a key)
let readySentFor = null; // the step of a ready sent on this connection: a double tap sends one
let saidStep = null; // the step of the sentence under the cards
let leaveArmed = null;
let askingLine = null; // while the table is asked whether this device may take a seat
let autoAsked = null; // a mode sent, not yet confirmed: two quick presses step twice

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // refused (a sandboxed or private window): nothing is remembered
  }
}

// --- screens
function show(screen) {
  for (const node of doc.querySelectorAll(".screen")) node.hidden = node.id !== screen;
  if (screen !== "table") sharedComputer.playing(null);
}

function trouble(text) {
  $("trouble").hidden = !text;
  $("trouble").textContent = text ?? "";
}

function endedPanel(text, again = null, full = false, watchCode = null) {
  $("full-help").hidden = !full;
  $("watch-code").hidden = watchCode === null;
  $("watch-code").onclick = () => watchWith(watchCode);
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

/** ["join" | "watch" | null, code] from the fragment. */
function fragment() {
  const match = /^#(join|watch)=([A-Za-z0-9-]{4,32})$/.exec(location.hash);
  return match ? [match[1], match[2].toUpperCase()] : [null, null];
}

function route() {
  stop({ leaving: true });
  trouble(null);
  endedPanel(null);
  const [kind, code] = fragment();
  if (kind === "watch") return enter({ type: "watch_room", code });
  const kept = kind === "join" ? seats.all(code) : [];
  // This tab played a seat kept here (a reload): on as that name. Another tab, a new
  // window: the browser may be shared, so ask who is there (a kept seat, or someone else).
  const mine = kind === "join" ? sharedComputer.thisTab(code) : null;
  if (mine !== null && kept.some((record) => nameKey(record.name) === nameKey(mine))) return continueAs(mine);
  sharedComputer.offer(kept);
  const screen = kind === "join" ? "invite" : "start";
  $(`${screen}-name`).value = kept.length ? "" : seats.name;
  show(screen);
  if (kind !== "join") return undefined;
  // whose table it is (lookup.js, loaded only here), or an offer to watch
  $("invite-table").hidden = true;
  const watch = () => endedPanel(plainText("watch_code", ""), null, false, code);
  import("./lookup.js").then((m) => m.sayTable($("invite-table"), socketUrl(location), code, () => fragment()[1] === code, watch, () => words));
  if (kept.length) return $("continue-list").firstElementChild.focus();
  return $("invite-name").focus();
}

function watchWith(code) {
  setHash(`#watch=${code}`);
  route();
}

function continueAs(name) {
  const [, code] = fragment();
  const stored = code === null ? null : seats.get(code, name);
  if (stored !== null) enter({ type: "join_room", code, name: stored.name || name });
}

// "Playing as Oma · switch": this tab lets the seat be (away, not left) and asks who is there.
function switchSeat() {
  const [kind, code] = fragment();
  if (kind !== "join") return;
  sharedComputer.forgetTab(code);
  stop();
  route();
}

function home() {
  stop({ leaving: true });
  setHash("");
  route();
}

// --- the connection
async function enter(unsealed, options = {}) {
  stop();
  const ticket = ++entered;
  // fair deals: loaded when a player sits down or watches, not with the start page
  const [{ Fair }, { FairView }] = await Promise.all([import("./fair.js"), import("./fairview.js")]);
  const fair = new Fair();
  const opening = await fair.opening(unsealed); // a seed's commitment for a fair deal
  if (ticket !== entered) return;
  fairView = new FairView(doc, fair, words);
  fairView.reset();
  view = initialView();
  countdown = noCountdown();
  reconnecting = readySentFor = autoAsked = saidStep = askingLine = null;
  table.reset();
  table.draw(view, status(view, null, { words }));
  show("table");
  const current = new Connection({
    url: socketUrl(location),
    opening,
    seats,
    fair,
    onEvent: (event) => connection === current && onEvent(event),
    ...options,
  });
  connection = current;
  current.start();
}

// `leaving`: the player goes to the start page (or another room): the seat is left for
// good (leave), so that the room does not wait for nobody; a closed tab or a reload is not.
function stop({ leaving = false } = {}) {
  const old = connection;
  connection = null;
  if (leaving && old !== null && welcomed(view)) old.send({ type: "leave" });
  old?.close();
  stopClock();
}

function onEvent(event) {
  if (event.kind === "received") return received(event);
  if (event.kind === "notice") return table.say([words.say(event.text)], "notice");
  if (event.kind === "ended") return ended(event);
  // One plain sentence, in the status line by the (now inactive) button; the reason and
  // the attempts are for logs, not for the family.
  reconnecting = view.my_seat !== null ? "page.reconnecting_seat" : "page.reconnecting";
  return redraw();
}

function received(event) {
  const { message, before, view: after, at } = event;
  const marks = parts === null ? null : [at, performance.now()]; // decoded and reduced
  view = after;
  if (message.type === "seat_request_waiting") askingLine = waitingLine(message, words);
  const fairLines = fairView.follow(event);
  if (message.type === "welcome") {
    invitation.useAddresses(message.addresses);
    invitation.useOutside(message.outside);
    reconnecting = readySentFor = null; // a new connection: a ready that was lost may go again
    trouble(null);
    endedPanel(null);
    const mine = view.my_seat !== null;
    const code = mine ? view.player_code : view.watch_code;
    if (code !== null) setHash(`#${mine ? "join" : "watch"}=${code}`);
    if (mine && code !== null) sharedComputer.played(code, view.seats[view.my_seat]?.name ?? "");
  }
  if (readySentFor !== null && view.step > readySentFor) readySentFor = null;
  if (message.type === "game_started") readySentFor = null; // a fresh deal's step 0 (after a void)
  if (view.seats[view.my_seat]?.auto === autoAsked) autoAsked = null; // the room caught up
  const t = now();
  countdown = follow(countdown, before, message, after, t);
  const lines = [...describe(before, message, after, after.my_seat, { table: true, words }), ...fairLines];
  const [marked, line] = warning(countdown, t);
  countdown = marked;
  table.say(line === null ? lines : [...lines, words.say(line)]);
  underTheCards(message, lines);
  marks?.push(performance.now());
  alive.hear(message, after.my_seat);
  marks?.push(performance.now());
  talk.hear(message, after);
  if (message.type === "game_started" && doc.activeElement === doc.body && after.my_seat !== null) {
    $("turn").focus({ preventScroll: true });
  }
  redraw();
  if (message.type === "game_started" && before.phase === "over") table.backToTable(); // a rematch
  // the round's sentence above the dock, as it comes and while it is the step's (a badge
  // that comes after it may push it down)
  if (SAID.has(message.type) || after.step === saidStep) table.uncover();
  tickClock();
  if (timing !== null) {
    marks?.push(performance.now());
    doc.body.getBoundingClientRect(); // style and layout too, as the frame would do them
    timing.push(performance.now() - at);
    marks?.push(performance.now());
    parts?.push([message.type, ...marks.slice(1).map((t, i) => t - marks[i])]);
  }
}

// The last round's sentence sits right under the cards: who took them, a war, who is out.
const SAID = new Set(["cards_taken", "war_declared", "cards_returned", "player_out", "game_over"]);

function underTheCards(message, lines) {
  if (message.type === "game_started") {
    saidStep = null;
    table.tell("");
  }
  if (!SAID.has(message.type) || !lines.length) return;
  const text = message.type === "game_over" ? lines[0] : lines.join(" ");
  table.tell(message.step === saidStep ? `${$("said").textContent} ${text}` : text);
  saidStep = message.step;
}

function redraw() {
  const offline = reconnecting !== null;
  const asking = welcomed(view) ? null : askingLine;
  const told = offline ? words.text(reconnecting) : (asking ?? status(view, view.my_seat, { touch: input.touch, words }));
  table.draw(view, told, { offline });
  seatQuestion.draw(view);
  sharedComputer.playing(fragment()[0] === "join" && view.my_seat !== null ? (view.seats[view.my_seat]?.name ?? null) : null);
  talk.draw(view);
  alive.awake(connection !== null && !offline && welcomed(view) && view.phase === "playing");
}

function ended(event) {
  stopClock();
  const current = connection;
  if (event.ok && current?.left) {
    home();
    trouble(words.text("page.you_left"));
    return;
  }
  if (event.ok && event.reason.key === "close.closed") return; // we closed it: another room, or home
  const code = event.code ?? event.closeCode;
  if (code === "password_required" || code === "bad_password") {
    home();
    $("create").open = true;
    trouble(plainText(code, event.reason));
    field("password").focus();
    return;
  }
  const unreachable = cannotReach(event.reason);
  if (!welcomed(view)) return refused(code, event, unreachable, current);
  const text = endedText(code, event.reason, unreachable);
  reconnecting = null;
  trouble(null);
  redraw();
  let again = null;
  if (unreachable || event.reason.key === "close.gave_up" || code === 4002 || code === 1001) {
    const [kind, fragmentCode] = fragment();
    // this tab's own name (a shared computer's other tabs play other seats), else the last typed
    const name = (kind === "join" ? sharedComputer.thisTab(fragmentCode) : null) ?? current.opening.name ?? seats.name;
    const opening = kind === null ? current.opening : { type: `${kind}_room`, code: fragmentCode, name: name || "Player" };
    if (kind === "watch") delete opening.name;
    again = () => enter(opening, { resumeOnly: kind === "join" });
  }
  endedPanel(text, again);
}

// Whether the connection ended because the server could not be reached (at once, or
// after giving up reconnecting).
function cannotReach(reason) {
  if (reason.key === "close.gave_up") return cannotReach(reason.values.reason);
  return reason.key === "close.cannot_connect" || reason.key === "close.cannot_reach";
}

function endedText(code, reason, unreachable) {
  if (!PLAIN.has(String(code)) && unreachable) return words.text("page.unreachable");
  return plainText(code, reason);
}

// Refused before any welcome: no table behind the message (it would say "Connecting…").
// A full room asks for the exact name again (an away seat is taken back with it), or
// offers to watch with the watch code.
function refused(code, event, unreachable, current) {
  reconnecting = null;
  trouble(null);
  const [kind] = fragment();
  const full = code === "room_full" && kind === "join";
  const rename = /^name_/.test(code) && kind === "join"; // pick another name
  sharedComputer.offer([]);
  show(full || rename ? "invite" : null);
  const watchCode = code === "watch_code" ? (current.opening.code ?? null) : null;
  const text = endedText(code, event.reason, unreachable);
  const again = unreachable ? () => enter(current.opening) : null;
  endedPanel(text, again, full, watchCode);
  if (full || rename) {
    $("invite-name").select();
    $("invite-name").focus();
  }
}

// --- the time limit
function tickClock() {
  const left = secondsLeft(countdown, now());
  const running = left !== null && view.phase === "playing";
  table.clock(running ? left : null, countdown.up);
  if (running && !countdown.up) clock ??= setInterval(onTick, 1000);
  else stopClock();
}

function onTick() {
  const [marked, line] = warning(countdown, now());
  countdown = marked;
  if (line !== null) table.say([words.say(line)]);
  tickClock();
}

function stopClock() {
  clearInterval(clock);
  clock = null;
}

// --- what the player does
function act(intent) {
  const refusal = "key" in intent; // a said() message: why nothing is sent now
  const sent = !refusal && Boolean(connection?.send(intent));
  if (!sent) $("status").textContent = words.say(refusal ? intent : said("keys.not_connected"));
  return sent;
}

function turn() {
  const intent = turnOver(view, readySentFor); // a second tap is told it is ready already
  // Only a ready that went out counts: one tapped while reconnecting was never sent.
  if (act(intent)) readySentFor = view.step;
}

function leave() {
  if (leaveArmed === null) {
    $("leave").textContent = words.text("page.leave_armed", { input: input.touch ? "touch" : "keys" });
    $("leave").classList.add("armed");
    leaveArmed = setTimeout(disarmLeave, 4000);
    return;
  }
  disarmLeave();
  if (!connection?.send({ type: "leave" })) home();
}

function disarmLeave() {
  clearTimeout(leaveArmed);
  leaveArmed = null;
  $("leave").textContent = words.text("page.leave");
  $("leave").classList.remove("armed");
}

const KEYS = {
  a: () => {
    const intent = cycleAuto(view, autoAsked);
    act(intent);
    if (intent.mode) autoAsked = intent.mode;
  },
  f: () => act(finish(view)),
  r: () => act(rematch(view, "new")),
  d: () => act(rematch(view, "same")),
  q: leave,
};

function keyDown(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || $("table").hidden || view.my_seat === null) return;
  const target = event.target instanceof Element ? event.target : doc.body;
  if (event.key === " " || event.key === "Enter") {
    if (target.closest("input, select, textarea, button, summary, a")) return; // it does its own thing
    event.preventDefault();
    turn();
  } else if (Object.hasOwn(KEYS, event.key.toLowerCase()) && !typing(target)) {
    event.preventDefault();
    KEYS[event.key.toLowerCase()]();
  }
}

// --- the forms
// A name's limit counts code points, as the server does (an input's maxlength counts UTF-16
// units: it is set to twice the limit, so that it never stops a name the server takes).
const MOST_NAME_CHARACTERS = 24;

function typedName(input) {
  const name = [...input.value.trim()].slice(0, MOST_NAME_CHARACTERS).join("").trim();
  if (!name) input.reportValidity();
  else seats.name = name;
  return name || null;
}

function playTheComputer(event) {
  event?.preventDefault();
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
  const rules = { players, face_down: Number(form.get("face_down")) };
  for (const key of ["aces", "short_war", "won_cards", "tie_break"]) rules[key] = form.get(key);
  const opening = { type: "create_room", name, rules, computers: Math.min(Number(form.get("computers")), players - 1), talk: form.get("talk") };
  const limit = form.get("limit");
  const number = Number(form.get("limit_number"));
  const high = limit === "minutes" ? MAX_MINUTES : MAX_ROUND_LIMIT;
  if (/minutes|rounds/.test(limit) && !(Number.isInteger(number) && number >= 1 && number <= high)) {
    return trouble(words.text("page.bad_limit", { what: limit, most: high }));
  }
  if (limit === "minutes") opening.minutes = number;
  else if (limit !== "none") rules.round_limit = limit === "rounds" ? number : Number(limit);
  const deal = String(form.get("deal")).replace(/\s+/g, "");
  if (deal && !(/^\d{1,20}$/.test(deal) && BigInt(deal) <= MAX_DEAL)) {
    return trouble(words.text("page.bad_deal", { most: String(MAX_DEAL) }));
  }
  if (deal) opening.deal = BigInt(deal) <= Number.MAX_SAFE_INTEGER ? Number(deal) : BigInt(deal);
  if (form.get("password")) opening.password = form.get("password");
  setHash("");
  return enter(opening);
}

function joinWithCode(event) {
  event.preventDefault();
  const code = String(new FormData(event.target).get("code")).trim().toUpperCase();
  if (!/^[A-Z0-9-]{4,32}$/.test(code)) return trouble(words.text("page.bad_code", { example: "K7MX-QD4R" }));
  const watch = event.submitter?.value === "watch";
  const name = watch ? null : typedName($("start-name"));
  if (!watch && name === null) return undefined;
  setHash(`#${watch ? "watch" : "join"}=${code}`);
  return enter(watch ? { type: "watch_room", code } : { type: "join_room", code, name });
}

function acceptInvite(event) {
  event.preventDefault();
  const name = typedName($("invite-name"));
  const [, code] = fragment();
  // someone else at a computer that keeps another name's seat: a seat of their own
  if (name !== null && code !== null) enter({ type: "join_room", code, name }, { fresh: true });
}

function watchInstead(event) {
  event.preventDefault();
  const code = String(new FormData(event.target).get("code")).trim().toUpperCase();
  if (!/^[A-Z0-9-]{4,32}$/.test(code)) return trouble(words.text("page.bad_code", { example: "9HWT-2CBN" }));
  setHash(`#watch=${code}`);
  return route();
}

function soundButton() {
  $("sound").setAttribute("aria-pressed", String(alive.on));
  $("sound").textContent = words.text(alive.on ? "page.sound_on" : "page.sound_off");
}

function formChanged(event) {
  const limit = field("limit").value;
  $("limit-number-field").hidden = !/minutes|rounds/.test(limit);
  const label = limit === "minutes" ? words.text("page.limit_number_minutes", { most: MAX_MINUTES }) : words.text("page.limit_number_rounds");
  $("limit-number-label").textContent = label;
  const most = Number(doc.querySelector('#create-form [name="players"]:checked').value) - 1;
  const computers = field("computers");
  for (const option of computers.options) option.disabled = Number(option.value) > most;
  if (Number(computers.value) > most || event?.target.name === "players") computers.value = String(Math.min(Number(computers.value), most));
}

// --- the language: the picker's choice is remembered; what is said from now on is in it
async function pickLanguage(event) {
  const picked = await load(event.target.value);
  if (picked === null) return;
  remember(storage(), picked.tag);
  words = picked;
  speakPage(doc, words, $("language"));
  table.speak(words);
  seatQuestion.words = words;
  sharedComputer.speak(words);
  talk.speak(words);
  fairView?.speak(words);
  if (leaveArmed !== null) disarmLeave();
  formChanged();
  soundButton();
  redraw();
}

// --- wiring
const on = (id, type, handler) => $(id).addEventListener(type, handler);
on("vs-computer", "click", playTheComputer);
on("name-form", "submit", playTheComputer);
on("create-form", "submit", createRoom);
on("create-form", "change", formChanged);
on("join-form", "submit", joinWithCode);
on("invite-form", "submit", acceptInvite);
on("someone-else", "click", () => sharedComputer.someoneElse());
on("turn", "click", turn);
on("finish", "click", () => act(finish(view)));
on("leave", "click", leave);
on("rematch-new", "click", () => act(rematch(view, "new")));
on("rematch-same", "click", () => act(rematch(view, "same")));
on("auto", "change", (event) => act(setAuto(view, event.target.value)));
on("watch-form", "submit", watchInstead);
on("sound", "click", () => {
  alive.setSound(!alive.on);
  soundButton();
});
releaseFocusAfterPointer(doc, $("controls"), input);
releaseFocusAfterPointer(doc, $("actions"), input);
releaseFocusAfterPointer(doc, $("share"), input);
releaseFocusAfterPointer(doc, $("reactions"), input);
on("home", "click", home);
on("language", "change", pickLanguage);
doc.addEventListener("keydown", keyDown);
addEventListener("hashchange", route);
addEventListener("resize", () => connection !== null && view.step === saidStep && table.uncover()); // a phone turned
addEventListener("online", () => connection?.retryNow());
doc.addEventListener("visibilitychange", () => doc.visibilityState === "visible" && connection?.retryNow());
speakPage(doc, words, $("language"));
formChanged();
soundButton();
route();
performance.mark("table-ready"); // bench/web.py: the scripts ran and the first screen is up
