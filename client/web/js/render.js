// Draws a view into the DOM, and nothing else (README.md).

import { cardName, isRed, SUIT_SYMBOLS } from "./cards.js";
import { count, said, war } from "./catalog.js";
import { clockText } from "./countdown.js";
import { eveningScore } from "./talk.js";
import { dealText, longestName, persons, placeWord, places, resultSentence, rulesLine, rulesSentence, votesSentence } from "./sentences.js";
import { computerNumber, mine, myTurn, nameOf, seatLabel, spectating, welcomed } from "./view.js";

export const MAX_LOG_LINES = 120;
const FLIGHT_MS = 600;
const TEXT_NODE = 3;

export { dealText };

/** Short words on a seat, as the terminal table has them, each a catalog key (seat.*) and
 * its values: [["seat.you"], ["seat.ready"], ["seat.auto", {mode}]]. */
export function seatMarks(view, record, me) {
  if (record.name === null) return [["seat.open"]];
  const marks = [];
  const seat = record.seat;
  if (seat === me) marks.push(["seat.you"]);
  if (view.left.includes(seat)) marks.push(["seat.left"]);
  else if (record.computer) computerNumber(view, seat) === null && marks.push(["seat.computer"]);
  else if (!record.connected) marks.push(["seat.away"]);
  if (record.out) marks.push(["seat.out"]);
  else if (view.phase === "playing") {
    if (record.ready) marks.push(["seat.ready"]);
    else if (view.waiting_for.includes(seat)) {
      if (seat !== me) marks.push(["seat.not_ready"]);
      else if (record.auto === "off") marks.push(["seat.turn"]);
    } else if (view.war_depth && !view.war_seats.includes(seat)) marks.push(["seat.sits_out"]);
  }
  if (record.auto !== "off" && !record.computer) marks.push(["seat.auto", { mode: said("auto.mode", { mode: record.auto }) }]);
  if (record.finish_vote && view.phase === "playing") marks.push(["seat.voted"]);
  if (record.rematch_vote !== null) marks.push(["seat.rematch", { wish: record.rematch_vote }]);
  return marks;
}

/** The round as the terminal table's header has it: the one being played, "round 3 of
 * 26" with a limit ("round 27, tie-break" past it), the rounds played once it is over. */
function roundText(view) {
  const limit = view.rules.round_limit;
  if (view.phase === "over") return said("where.rounds", { rounds: count("round", view.round) });
  if (view.phase !== "playing") return limit === null ? null : said("where.round_game", { limit });
  const playing = view.round + 1;
  if (limit === null) return said("where.round", { round: playing });
  return playing > limit ? said("where.tie_break", { round: playing }) : said("where.round_of", { round: playing, limit });
}

/** The line under the title in `words`: "game 2 · round 12 of 50 · 3 watching · deal 42". */
export function whereLine(view, words) {
  if (!welcomed(view)) return "";
  const parts = [];
  if (view.game > 1) parts.push(said("where.game", { game: view.game }));
  parts.push(roundText(view));
  if (view.minutes !== null) parts.push(said("where.minute_game", { minutes: view.minutes }));
  const others = view.spectators - 1;
  if (spectating(view)) parts.push(others > 0 ? said("where.you_watch_with", { others }) : said("where.you_watch"));
  else if (view.spectators) parts.push(said("where.watching", { count: view.spectators }));
  if (view.evening.length) parts.push(eveningScore(view.evening, { words, view }));
  if (view.deal !== null && view.phase !== "over") parts.push(said("where.deal", { deal: dealText(view.deal) }));
  return parts.filter((part) => part !== null).map((part) => (typeof part === "string" ? part : words.say(part))).join(" · ");
}

/** What a seat shows on the table: [label (a catalog key, or ""), face-up cards,
 * face-down count, won?]. */
function tableOf(view, record) {
  const seat = record.seat;
  if (record.face_up.length || record.face_down) return ["", record.face_up, record.face_down, false];
  const taken = view.last_taken;
  if (view.phase !== "playing") return ["", [], 0, false];
  if (taken !== null && (taken.face_up[seat]?.length || taken.face_down[seat])) {
    const won = taken.seat === seat;
    return [won ? "table.last_round_won" : "table.last_round", taken.face_up[seat], taken.face_down[seat], won];
  }
  // all a resumed view knows
  const shown = view.last_flip?.cards.find(([s]) => s === seat);
  return shown ? ["table.last_card", [shown[1]], 0, false] : ["", [], 0, false];
}

// Each write only when it changes something: a write of the same value still invalidates
// style (an attribute that selectors read restyles the element, `data-phase` every seat),
// and the table is drawn again at every message (docs/performance.md).
// A changed text goes into the element's one text node, which the layout keeps (setting
// `textContent` puts in a new one: the old one's layout object goes, a new one is styled
// and made, and a `:empty` rule on the element is looked at twice).
function setText(node, text) {
  if (node.textContent === text) return;
  const only = node.firstChild;
  if (text && only !== null && only === node.lastChild && only.nodeType === TEXT_NODE) only.data = text;
  else node.textContent = text;
}

function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

export class Table {
  /** `words`: the viewer's catalog (catalog.js); `speak()` changes it. */
  constructor(doc, { reducedMotion = () => false, invitation = null, words } = {}) {
    this.doc = doc;
    this.words = words;
    this.reducedMotion = reducedMotion;
    this.invitation = invitation;
    this.flights = [];
    this.takeOff = null; // the next frame's request that sets the flight off
    this.reset(false);
  }

  $(id) {
    return this.doc.getElementById(id);
  }

  el(tag, className, text) {
    const node = this.doc.createElement(tag);
    node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** Speak `words` from the next drawing on (what is drawn already is drawn again). */
  speak(words) {
    this.words = words;
    for (const panel of this.panels) panel.drawn = panel.marked = panel.laid = "";
    delete this.$("over").dataset.drawn;
  }

  /** Forget the drawn table (a new room). */
  reset(clear = true) {
    if (clear) {
      this.$("seats").replaceChildren();
      this.$("log").replaceChildren();
      this.tell("");
    }
    this.panels = [];
    this.layout = this.inviting = this.lastTaken = null;
    this.logCount = 0;
    this.land();
  }

  /** Add sentences to the log, newest first, keeping the last MAX_LOG_LINES (in one
   * insertion: the line that was first, and bold, is restyled once a message). */
  say(lines, className = "") {
    const log = this.$("log");
    log.prepend(...lines.map((line) => this.el("li", className, line)).reverse());
    this.logCount += lines.length;
    for (; this.logCount > MAX_LOG_LINES; this.logCount -= 1) log.lastElementChild.remove();
  }

  /** The last round's sentence, right under the cards (the log has them all). */
  tell(text) {
    setText(this.$("said"), text);
  }

  /** A rematch began: back to the top of the page, the table, from the standings and the
   * evening the player scrolled down to read. */
  backToTable() {
    this.doc.defaultView?.scrollTo({ top: 0, behavior: "instant" });
  }

  /** The round's sentence (and the war above it) partly behind the dock at the bottom (a
   * small phone, a long war in German): scroll down just enough to show it above the dock,
   * never so far that its top leaves the screen. Nothing when it is in sight, or when the
   * player scrolled it out of sight above (reading the log). */
  uncover() {
    const said = this.$("said");
    if (said.textContent === "") return;
    const box = said.getBoundingClientRect();
    const fight = this.$("war");
    const top = fight.hidden ? box.top : Math.min(box.top, fight.getBoundingClientRect().top);
    const behind = box.bottom - this.$("dock").getBoundingClientRect().top;
    // whole pixels: a scroll lands on one, and a fraction short leaves the sentence under
    if (behind > 0 && top > 0) this.doc.defaultView?.scrollBy({ top: Math.ceil(Math.min(behind, top)), behavior: "instant" });
  }

  /** Draw `view` for its own seat, with `status` as the status line; `offline`: the
   * connection is away, so nothing can be sent (the buttons look it). */
  draw(view, status, { offline = false } = {}) {
    const me = view.my_seat;
    const w = this.words;
    const playing = view.phase === "playing";
    const player = !spectating(view) && me !== null;
    setText(this.$("where"), whereLine(view, w));
    setHidden(this.$("rules"), !welcomed(view));
    const rules = welcomed(view) ? rulesSentence(view.rules, view.minutes, { words: w }) : null;
    setText(this.$("rules-line"), rules === null ? "" : rulesLine(view.rules, view.minutes, { words: w }));
    setText(this.$("rules-full"), rules === null ? "" : w.text("said.rules", { rules }));
    this.invitation?.draw(view, w);
    this.drawSeats(view, me);
    const fight = this.$("war");
    setHidden(fight, !view.war_depth);
    if (view.war_depth) setText(fight, w.text("table.war_between", { war: war(view.war_depth), names: persons(view, view.war_seats, me) }));
    setText(this.$("status"), status);
    const votes = votesSentence(view, me, { words: w });
    setHidden(this.$("votes"), votes === null);
    setText(this.$("votes"), votes ?? "");
    this.drawOver(view, me);
    // a spectator has no buttons
    for (const id of ["actions", "controls"]) setHidden(this.$(id), !player);
    for (const id of ["turn", "auto", "finish"]) setHidden(this.$(id), !playing);
    const ready = myTurn(view) && !offline;
    setAttr(this.$("turn"), "aria-disabled", String(!ready));
    this.$("turn").classList.toggle("waiting", !ready);
    this.$("actions").classList.toggle("offline", offline);
    this.$("controls").classList.toggle("offline", offline);
    setHidden(this.$("rematch"), !(player && view.phase === "over"));
    const record = mine(view);
    if (record !== null) {
      for (const radio of this.doc.querySelectorAll("#auto input")) {
        const chosen = radio.value === record.auto;
        if (radio.checked !== chosen) radio.checked = chosen;
      }
      setAttr(this.$("finish"), "aria-disabled", String(record.finish_vote || record.out));
      setText(this.$("finish"), w.text(record.finish_vote ? "page.finish_voted" : "page.finish"));
      this.$("rematch-new").classList.toggle("chosen", record.rematch_vote === "new");
      this.$("rematch-same").classList.toggle("chosen", record.rematch_vote === "same");
    }
    const title = w.text(ready ? "app.your_turn" : "app.title");
    if (this.doc.title !== title) this.doc.title = title;
    // for tests: the step drawn
    setAttr(this.$("table"), "data-step", String(view.step));
    this.fly(view);
  }

  drawSeats(view, me) {
    const box = this.$("seats");
    if (`${view.seats.length}:${me}` !== this.layout) {
      this.layout = `${view.seats.length}:${me}`;
      box.className = `seats n${view.seats.length}${me === null ? " watching" : ""}`;
      const template = this.$("seat-template").content.firstElementChild;
      this.panels = view.seats.map((record) => {
        const node = template.cloneNode(true);
        node.dataset.seat = String(record.seat);
        const part = (name) => node.querySelector(`.${name}`);
        return { node, name: part("name"), marks: part("marks"), count: part("count"), word: part("cards-word"), haul: part("haul"), pile: part("pile"), cards: part("table-cards"), label: this.el("span", "table-label"), row: null, laid: "", drawn: "", marked: "", up: null };
      });
      // Me at the bottom, nearest the button; the others above, in seat order.
      box.replaceChildren(...this.panels.filter((_, s) => s !== me).map((p) => p.node), ...(this.panels[me] ? [this.panels[me].node] : []));
    }
    setAttr(box, "data-phase", view.phase);
    for (const record of view.seats) this.drawSeat(view, record, me, this.panels[record.seat]);
  }

  drawSeat(view, record, me, panel) {
    const { node } = panel;
    const seat = record.seat;
    const w = this.words;
    setText(panel.name, record.name === null ? w.text("seat.number", { n: seat + 1 }) : seatName(view, seat, w));
    const marks = seatMarks(view, record, me);
    const marked = JSON.stringify(marks);
    if (marked !== panel.marked) {
      panel.marked = marked;
      panel.marks.replaceChildren(...marks.map(([key, values]) => this.el("span", `mark ${MARK_CLASSES[key] ?? ""}`, w.text(key, values))));
    }
    const [label, faceUp, faceDown, won] = tableOf(view, record);
    node.classList.toggle("me", seat === me);
    node.classList.toggle("open", record.name === null);
    node.classList.toggle("out", record.out);
    node.classList.toggle("won", won);
    node.classList.toggle("awaited", view.phase === "playing" && view.waiting_for.includes(seat) && !record.ready);
    node.classList.toggle("in-war", view.war_depth > 0 && view.war_seats.includes(seat));
    setHidden(panel.pile, view.phase === "waiting");
    setText(panel.count, String(record.count));
    setText(panel.word, w.text("table.cards_word", { n: record.count }));
    setText(panel.haul, won ? ` +${view.last_taken.count}` : "");
    const drawn = `${label}|${faceUp}|${faceDown}|${view.phase}`;
    if (drawn === panel.drawn) return;
    // A card just turned over flips (not on the first drawing, a resume, or reduced motion).
    const turned = !label && faceUp.length > 0 && panel.up !== null && faceUp.length > panel.up && !this.reducedMotion();
    panel.up = label ? 0 : faceUp.length;
    panel.drawn = drawn;
    panel.cards.classList.toggle("past", Boolean(label));
    if (label) {
      setText(panel.label, w.text(label));
      if (panel.label.parentNode !== panel.cards) panel.cards.prepend(panel.label);
    } else panel.label.remove();
    // The cards a round was won with stay the nodes they were, now under "last round":
    // only new cards are made (and laid out).
    const laid = `${faceUp}|${faceDown}|${view.phase}`;
    if (laid === panel.laid) return;
    panel.laid = laid;
    const row = this.cardRow(faceUp, faceDown, turned, view.phase === "playing");
    if (panel.row === null) panel.cards.append(row);
    else panel.row.replaceWith(row);
    panel.row = row;
  }

  /** The cards as they lie, fanned so a deep war stays compact: the earlier cards turned
   * (small), the face-down ones as one stack with its count, the latest card (`turned`: it
   * flips); an empty place when there are none (`playing`). */
  cardRow(faceUp, faceDown, turned, playing) {
    const row = this.el("div", "card-row");
    for (const card of faceUp.slice(0, -1)) row.append(this.card(card, true));
    if (faceDown) row.append(this.back(faceDown));
    if (faceUp.length) {
      const latest = this.card(faceUp[faceUp.length - 1], false);
      if (turned) latest.classList.add("flip");
      row.append(latest);
    }
    if (!row.childElementCount && playing) row.append(this.el("span", "card empty"));
    return row;
  }

  card(card, small) {
    const node = this.el("span", `card face ${isRed(card) ? "red" : "black"}${small ? " small" : ""}`);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", cardName(card, this.words));
    const rank = this.words.label(card);
    const suit = SUIT_SYMBOLS[card[1]];
    node.append(this.el("span", "corner", rank + suit), this.el("span", "rank", rank), this.el("span", "suit", suit));
    return node;
  }

  back(many) {
    const node = this.el("span", `card back${many > 1 ? " stack" : ""}${many > 2 ? " deep" : ""}`);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", this.words.text("table.face_down", { cards: count("card", many) }));
    if (many > 1) node.append(this.el("span", "back-count", `×${many}`));
    return node;
  }

  drawOver(view, me) {
    const box = this.$("over");
    const result = view.result;
    setHidden(box, view.phase !== "over" || result === null);
    if (box.hidden) return;
    const w = this.words;
    setText(this.$("result"), resultSentence(view, result, me, { words: w }));
    const s = result.summary;
    const rows = [
      [w.text("figures.rounds"), s.rounds],
      [w.text("figures.wars"), s.wars],
      [w.text("figures.longest"), w.say(longestName(s.longest_war))],
      [w.text("figures.haul"), w.word(count("card", s.biggest_haul))],
      [w.text("figures.deal"), dealText(s.deal)],
    ];
    // the server's standings, never by count
    const placed = places(result).flatMap(([place, seats]) => seats.map((seat) => ({ ...view.seats[seat], place })));
    const final = placed.length ? placed : view.seats;
    const drawn = `${rows}|${final.map((r) => [r.seat, r.count, r.name, r.place])}`;
    if (box.dataset.drawn === drawn) return;
    box.dataset.drawn = drawn;
    this.$("figures").replaceChildren(...rows.flatMap(([k, v]) => [this.el("dt", "", k), this.el("dd", "", String(v))]));
    const items = final.map((r) => {
      const item = this.el("li", r.seat === result.winner ? "winner" : "");
      const name = r.seat === me ? w.text("seat.final_you", { name: nameOf(view, r.seat) }) : seatName(view, r.seat, w);
      if (r.place) item.append(this.el("span", "final-place", w.say(placeWord(r.place))));
      item.append(this.el("span", "final-name", name), this.el("span", "final-count", w.word(count("card", r.count))));
      return item;
    });
    this.$("final").replaceChildren(...items);
  }

  /** Show the time left (seconds, or null for no limit), or that time is up. */
  clock(seconds, up) {
    setHidden(this.$("clock"), seconds === null);
    if (seconds !== null) setText(this.$("clock"), up ? this.words.text("clock.up") : this.words.text("clock.left", { clock: clockText(seconds) }));
  }

  // --- the haul's flight to the winner's pile
  fly(view) {
    const taken = view.last_taken;
    if (taken === this.lastTaken) return;
    this.lastTaken = taken;
    // a newer haul lands the one in the air
    this.land();
    const target = taken && this.panels[taken.seat]?.pile;
    if (!target?.animate || this.reducedMotion() || view.phase !== "playing") return;
    // It takes off in the next frame, before that frame draws: the positions it reads come
    // from the layout the frame does anyway, not from one forced in the middle of the
    // message, after its writes and before the frame's own (docs/performance.md).
    const win = this.doc.defaultView;
    this.takeOff = win.requestAnimationFrame(() => {
      this.takeOff = null;
      if (target.isConnected) this.launch(taken, target);
    });
  }

  launch(taken, target) {
    // Every position read before the first flyer is added: one layout, not one a seat.
    const to = target.getBoundingClientRect();
    const laid = (seat) => taken.face_up[seat]?.length || taken.face_down[seat];
    const froms = this.panels.filter((panel) => laid(Number(panel.node.dataset.seat))).map((panel) => panel.cards.getBoundingClientRect());
    for (const from of froms) {
      const [x, y] = [from.left + from.width / 2 - 24, from.top + from.height / 2 - 34];
      const flyer = this.el("span", "card back flyer");
      flyer.setAttribute("aria-hidden", "true");
      flyer.style.left = `${x}px`;
      flyer.style.top = `${y}px`;
      this.doc.body.append(flyer);
      const moves = [{ transform: "none" }, { transform: `translate(${to.left + 12 - x}px, ${to.top - y}px) scale(0.5)`, opacity: 0.3 }];
      const flight = { flyer, animation: flyer.animate(moves, { duration: FLIGHT_MS, easing: "ease-in-out", fill: "forwards" }) };
      this.flights.push(flight);
      flight.animation.finished.then(() => this.drop(flight), () => this.drop(flight));
    }
  }

  land() {
    if (this.takeOff) this.doc.defaultView.cancelAnimationFrame(this.takeOff);
    this.takeOff = null;
    for (const flight of this.flights.splice(0)) {
      flight.animation.cancel();
      flight.flyer.remove();
    }
  }

  drop(flight) {
    this.flights = this.flights.filter((f) => f !== flight);
    flight.flyer.remove();
  }
}

/** A seated player's name; a computer seat's in the viewer's words ("Ordenador 2"). */
export const seatName = seatLabel;

const MARK_CLASSES = {
  "seat.you": "mark-you",
  "seat.ready": "mark-ready",
  "seat.turn": "mark-turn",
  "seat.away": "mark-away",
  "seat.left": "mark-away",
  "seat.out": "mark-away",
  "seat.auto": "mark-auto",
};
