// The page's entry (README.md, "The page"): fetches the viewer's words, makes the table's
// parts, and wires the buttons, forms, keys and the connection's events to the modules.

import { preloadNext } from "./address.js";
import { act, disarmLeave, keyDown, leave, soundButton, turn } from "./controls.js";
import { ended } from "./ending.js";
import { acceptInvite, createRoom, formChanged, joinWithCode, playTheComputer, watchInstead } from "./forms.js";
import { InputKind, releaseFocusAfterPointer } from "./input.js";
import { finish, rematch, setAuto } from "./intents.js";
import { Invitation } from "./invite.js";
import { NO_WORDS, choose, load, more, remember, remembered, speakPage } from "./lang.js";
import { $, loadGameStyle, newPage, quietAlive, storage } from "./page.js";
import { Table } from "./render.js";
import { held, received, redraw, saidNow, whenHeard } from "./session.js";
import { continueAs, home, route, switchSeat } from "./sitdown.js";
import { SeatStore } from "./store.js";
import { SeatQuestion, SharedComputer, answer } from "./takeover.js";
import { TalkBar } from "./talkbar.js";

const doc = document;
preloadNext(doc, location.hash); // a players' link: what "Sit down" needs, beside the catalog
const seats = new SeatStore();
// The viewer's words: the picked language, else the browser's (lang.js); fetched first.
const words = await load(choose(remembered(storage()), globalThis.navigator?.languages ?? []));
if (words === null) {
  $("trouble").hidden = false;
  $("trouble").textContent = NO_WORDS;
  throw new Error(NO_WORDS);
}
const page = newPage(doc, words, seats);
const motion = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");
page.invitation = new Invitation(doc);
page.table = new Table(doc, { reducedMotion: () => Boolean(motion?.matches), invitation: page.invitation, words });
page.input = new InputKind(globalThis, () => page.connection !== null && redraw(page));
page.alive = quietAlive(page, { win: globalThis, storage: storage(), load: () => import("./alive.js") }); // with a game
page.styled = false; // game.css comes with a game too
page.loadStyle = () => loadGameStyle(doc).then(() => (page.styled = true));
page.seatQuestion = new SeatQuestion(doc, (allow) => act(page, answer(page.view, allow)), words);
page.sharedComputer = new SharedComputer(doc, words, { onContinue: (name) => continueAs(page, name), onSwitch: () => switchSeat(page) });
page.talk = new TalkBar(doc, {
  words,
  send: (message) => Boolean(page.connection?.send(message)),
  tell: (text) => ($("status").textContent = text),
  storage: storage(),
  tone: () => page.alive.ding(),
});

// What the connection tells: a message, a notice, its end, or that it is away.
page.hear = (event) => {
  if (held(page, event)) return;
  if (event.kind === "received") return received(page, event);
  if (event.kind === "notice") return page.table.say([page.words.say(event.text)], "notice");
  if (event.kind === "ended") return ended(page, event);
  // One plain sentence, in the status line by the (now inactive) button; the reason and
  // the attempts are for logs, not for the family.
  page.reconnecting = page.view.my_seat !== null ? "page.reconnecting_seat" : "page.reconnecting";
  return redraw(page);
};

// The language: the picker's choice is remembered; what is said from now on is in it.
async function pickLanguage(event) {
  const picked = await load(event.target.value);
  if (picked === null) return;
  if (page.view.phase !== "waiting") await more(picked, "game"); // a game is on: its words too
  remember(storage(), picked.tag);
  page.words = picked;
  speakPage(doc, picked, $("language"));
  page.table.speak(picked);
  page.seatQuestion.words = picked;
  page.sharedComputer.speak(picked);
  page.talk.speak(picked);
  page.fairView?.speak(picked);
  if (page.leaveArmed !== null) disarmLeave(page);
  formChanged(page);
  soundButton(page);
  redraw(page);
}

// --- wiring
const on = (id, type, handler) => $(id).addEventListener(type, handler);
const withPage = (handler) => (event) => handler(page, event);
on("vs-computer", "click", withPage(playTheComputer));
on("name-form", "submit", withPage(playTheComputer));
on("create-form", "submit", withPage(createRoom));
on("create-form", "change", withPage(formChanged));
on("join-form", "submit", withPage(joinWithCode));
on("invite-form", "submit", withPage(acceptInvite));
on("someone-else", "click", () => page.sharedComputer.someoneElse());
// a game's actions wait while its first messages do (session.js, whenHeard)
on("turn", "click", () => whenHeard(page, turn));
on("finish", "click", () => whenHeard(page, () => act(page, finish(page.view))));
on("leave", "click", () => leave(page));
on("rematch-new", "click", () => whenHeard(page, () => act(page, rematch(page.view, "new"))));
on("rematch-same", "click", () => whenHeard(page, () => act(page, rematch(page.view, "same"))));
on("auto", "change", (event) => whenHeard(page, () => act(page, setAuto(page.view, event.target.value))));
on("watch-form", "submit", withPage(watchInstead));
on("sound", "click", () => {
  page.alive.setSound(!page.alive.on);
  soundButton(page);
});
for (const id of ["controls", "actions", "share", "reactions"]) releaseFocusAfterPointer(doc, $(id), page.input);
on("home", "click", () => home(page));
on("language", "change", pickLanguage);
doc.addEventListener("keydown", withPage(keyDown));
addEventListener("hashchange", () => route(page));
addEventListener("resize", () => saidNow(page) && page.table.uncover()); // a phone turned
addEventListener("online", () => page.connection?.retryNow());
doc.addEventListener("visibilitychange", () => doc.visibilityState === "visible" && page.connection?.retryNow());
speakPage(doc, words, $("language"));
formChanged(page);
soundButton(page);
route(page);
performance.mark("table-ready"); // bench/web.py: the scripts ran and the first screen is up
