// Draws a view into the DOM, and nothing else (README.md).

import { cardName, isRed, rankLabel, SUIT_SYMBOLS } from "./cards.js";
import { eveningScore } from "./talk.js";
import { clockText } from "./countdown.js";
import { joinWords, longestName, PLACE_WORDS, places, resultSentence, rulesLine, rulesSentence, votesSentence, warName, who } from "./sentences.js";
import { mine, myTurn, nameOf, spectating, welcomed } from "./view.js";

export const MAX_LOG_LINES = 120;
const FLIGHT_MS = 600;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const capital = (text) => text.slice(0, 1).toUpperCase() + text.slice(1);

/** A deal number to read out: "18 446 744 073 709 551 615" (groups of three past 4 digits). */
export function dealText(deal) {
  const digits = String(deal);
  return digits.length > 4 ? digits.replace(/\B(?=(\d{3})+$)/g, " ") : digits;
}

/** Short words on a seat, as the terminal table has them: ["you", "ready ✓", "auto calm"]. */
export function seatMarks(view, record, me) {
  if (record.name === null) return ["waiting for a player"];
  const marks = [];
  const seat = record.seat;
  if (seat === me) marks.push("you");
  if (view.left.includes(seat)) marks.push("left");
  else if (record.computer) !record.name.toLowerCase().includes("computer") && marks.push("computer");
  else if (!record.connected) marks.push("away");
  if (record.out) marks.push("out of the game");
  else if (view.phase === "playing") {
    if (record.ready) marks.push("ready ✓");
    else if (view.waiting_for.includes(seat)) {
      if (seat !== me) marks.push("not ready");
      else if (record.auto === "off") marks.push("your turn");
    } else if (view.war_depth && !view.war_seats.includes(seat)) marks.push("sits out the war");
  }
  if (record.auto !== "off" && !record.computer) marks.push(`auto ${record.auto}`);
  if (record.finish_vote && view.phase === "playing") marks.push("voted to finish");
  if (record.rematch_vote !== null) marks.push(`rematch: ${record.rematch_vote} deal`);
  return marks;
}

/** The round as the terminal table's header has it: the one being played, "round 3 of
 * 26" with a limit ("round 27, tie-break" past it), the rounds played once it is over. */
function roundText(view) {
  const limit = view.rules.round_limit;
  if (view.phase === "over") return plural(view.round, "round");
  if (view.phase !== "playing") return limit === null ? null : `${limit}-round game`;
  const playing = view.round + 1;
  if (limit === null) return `round ${playing}`;
  return playing > limit ? `round ${playing}, tie-break` : `round ${playing} of ${limit}`;
}

/** The line under the title: "game 2 · round 12 of 50 · 3 watching · deal 42". */
export function whereLine(view) {
  if (!welcomed(view)) return "";
  const parts = [];
  if (view.game > 1) parts.push(`game ${view.game}`);
  parts.push(roundText(view));
  if (view.minutes !== null) parts.push(`${view.minutes}-minute game`);
  const others = view.spectators - 1;
  if (spectating(view)) parts.push(`you are watching${others > 0 ? ` with ${others} more` : ""}`);
  else if (view.spectators) parts.push(`${view.spectators} watching`);
  if (view.evening.length) parts.push(eveningScore(view.evening));
  if (view.deal !== null && view.phase !== "over") parts.push(`deal ${dealText(view.deal)}`);
  return parts.filter((part) => part !== null).join(" · ");
}

/** What a seat shows on the table: [label, face-up cards, face-down count, won?]. */
function tableOf(view, record) {
  const seat = record.seat;
  if (record.face_up.length || record.face_down) return ["", record.face_up, record.face_down, false];
  const taken = view.last_taken;
  if (view.phase !== "playing") return ["", [], 0, false];
  if (taken !== null && (taken.face_up[seat]?.length || taken.face_down[seat])) {
    const won = taken.seat === seat;
    return [won ? "last round: won" : "last round", taken.face_up[seat], taken.face_down[seat], won];
  }
  // all a resumed view knows
  const shown = view.last_flip?.cards.find(([s]) => s === seat);
  return shown ? ["last card", [shown[1]], 0, false] : ["", [], 0, false];
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

export class Table {
  constructor(doc, { reducedMotion = () => false, invitation = null } = {}) {
    this.doc = doc;
    this.reducedMotion = reducedMotion;
    this.invitation = invitation;
    this.flights = [];
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

  /** Add sentences to the log, newest first, keeping the last MAX_LOG_LINES. */
  say(lines, className = "") {
    const log = this.$("log");
    for (const line of lines) log.prepend(this.el("li", className, line));
    this.logCount += lines.length;
    for (; this.logCount > MAX_LOG_LINES; this.logCount -= 1) log.lastElementChild.remove();
  }

  /** The last round's sentence, right under the cards (the log has them all). */
  tell(text) {
    setText(this.$("said"), text);
  }

  /** Draw `view` for its own seat, with `status` as the status line; `offline`: the
   * connection is away, so nothing can be sent (the buttons look it). */
  draw(view, status, { offline = false } = {}) {
    const me = view.my_seat;
    const playing = view.phase === "playing";
    const player = !spectating(view) && me !== null;
    setText(this.$("where"), whereLine(view));
    this.$("rules").hidden = !welcomed(view);
    setText(this.$("rules-line"), welcomed(view) ? rulesLine(view.rules, view.minutes) : "");
    setText(this.$("rules-full"), welcomed(view) ? `Rules: ${rulesSentence(view.rules, view.minutes)}` : "");
    this.invitation?.draw(view);
    this.drawSeats(view, me);
    const war = this.$("war");
    war.hidden = !view.war_depth;
    const fighters = joinWords(view.war_seats.map((s) => who(view, s, me)));
    if (view.war_depth) setText(war, `${capital(warName(view.war_depth))} between ${fighters}!`);
    setText(this.$("status"), status);
    const votes = votesSentence(view, me);
    this.$("votes").hidden = votes === null;
    setText(this.$("votes"), votes ?? "");
    this.drawOver(view, me);
    // a spectator has no buttons
    this.$("actions").hidden = this.$("controls").hidden = !player;
    this.$("turn").hidden = this.$("auto").hidden = this.$("finish").hidden = !playing;
    const ready = myTurn(view) && !offline;
    this.$("turn").setAttribute("aria-disabled", String(!ready));
    this.$("turn").classList.toggle("waiting", !ready);
    this.$("actions").classList.toggle("offline", offline);
    this.$("controls").classList.toggle("offline", offline);
    this.$("rematch").hidden = !(player && view.phase === "over");
    const record = mine(view);
    if (record !== null) {
      for (const radio of this.doc.querySelectorAll("#auto input")) radio.checked = radio.value === record.auto;
      this.$("finish").setAttribute("aria-disabled", String(record.finish_vote || record.out));
      setText(this.$("finish"), record.finish_vote ? "Voted to finish now ✓" : "Finish now: play the rest out at once");
      this.$("rematch-new").classList.toggle("chosen", record.rematch_vote === "new");
      this.$("rematch-same").classList.toggle("chosen", record.rematch_vote === "same");
    }
    this.doc.title = ready ? "Your turn · Family War" : "Family War";
    // for tests: the step drawn
    this.$("table").dataset.step = String(view.step);
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
        return { node, name: part("name"), marks: part("marks"), count: part("count"), word: part("cards-word"), haul: part("haul"), pile: part("pile"), cards: part("table-cards"), drawn: "", marked: "", up: null };
      });
      // Me at the bottom, nearest the button; the others above, in seat order.
      box.replaceChildren(...this.panels.filter((_, s) => s !== me).map((p) => p.node), ...(this.panels[me] ? [this.panels[me].node] : []));
    }
    box.dataset.phase = view.phase;
    for (const record of view.seats) this.drawSeat(view, record, me, this.panels[record.seat]);
  }

  drawSeat(view, record, me, panel) {
    const { node } = panel;
    const seat = record.seat;
    setText(panel.name, record.name ?? `Seat ${seat + 1}`);
    const marks = seatMarks(view, record, me);
    if (marks.join("|") !== panel.marked) {
      panel.marked = marks.join("|");
      panel.marks.replaceChildren(...marks.map((m) => this.el("span", `mark ${markClass(m)}`, m)));
    }
    const [label, faceUp, faceDown, won] = tableOf(view, record);
    node.classList.toggle("me", seat === me);
    node.classList.toggle("open", record.name === null);
    node.classList.toggle("out", record.out);
    node.classList.toggle("won", won);
    node.classList.toggle("awaited", view.phase === "playing" && view.waiting_for.includes(seat) && !record.ready);
    node.classList.toggle("in-war", view.war_depth > 0 && view.war_seats.includes(seat));
    panel.pile.hidden = view.phase === "waiting";
    setText(panel.count, String(record.count));
    setText(panel.word, record.count === 1 ? "card" : "cards");
    setText(panel.haul, won ? ` +${view.last_taken.count}` : "");
    const drawn = `${label}|${faceUp}|${faceDown}|${view.phase}`;
    if (drawn === panel.drawn) return;
    // A card just turned over flips (not on the first drawing, a resume, or reduced motion).
    const turned = !label && faceUp.length > 0 && panel.up !== null && faceUp.length > panel.up && !this.reducedMotion();
    panel.up = label ? 0 : faceUp.length;
    panel.drawn = drawn;
    // As they lie, fanned so a deep war stays compact: the earlier cards turned (small),
    // the face-down ones as one stack with its count, the latest card.
    const row = this.el("div", "card-row");
    for (const card of faceUp.slice(0, -1)) row.append(this.card(card, true));
    if (faceDown) row.append(this.back(faceDown));
    if (faceUp.length) {
      const latest = this.card(faceUp[faceUp.length - 1], false);
      if (turned) latest.classList.add("flip");
      row.append(latest);
    }
    if (!row.childElementCount && view.phase === "playing") row.append(this.el("span", "card empty"));
    panel.cards.classList.toggle("past", Boolean(label));
    panel.cards.replaceChildren(...(label ? [this.el("span", "table-label", label)] : []), row);
  }

  card(card, small) {
    const node = this.el("span", `card face ${isRed(card) ? "red" : "black"}${small ? " small" : ""}`);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", cardName(card));
    const rank = rankLabel(card);
    const suit = SUIT_SYMBOLS[card[1]];
    node.append(this.el("span", "corner", rank + suit), this.el("span", "rank", rank), this.el("span", "suit", suit));
    return node;
  }

  back(count) {
    const node = this.el("span", `card back${count > 1 ? " stack" : ""}${count > 2 ? " deep" : ""}`);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", `${plural(count, "card")} face down`);
    if (count > 1) node.append(this.el("span", "back-count", `×${count}`));
    return node;
  }

  drawOver(view, me) {
    const box = this.$("over");
    const result = view.result;
    box.hidden = view.phase !== "over" || result === null;
    if (box.hidden) return;
    setText(this.$("result"), resultSentence(view, result, me));
    const s = result.summary;
    const rows = [["Rounds", s.rounds], ["Wars", s.wars], ["Longest war", longestName(s.longest_war)], ["Biggest haul", plural(s.biggest_haul, "card")], ["Deal", dealText(s.deal)]];
    // the server's standings, never by count
    const placed = places(result).flatMap(([place, seats]) => seats.map((seat) => ({ ...view.seats[seat], place })));
    const final = placed.length ? placed : view.seats;
    const drawn = `${rows}|${final.map((r) => [r.seat, r.count, r.name, r.place])}`;
    if (box.dataset.drawn === drawn) return;
    box.dataset.drawn = drawn;
    this.$("figures").replaceChildren(...rows.flatMap(([k, v]) => [this.el("dt", "", k), this.el("dd", "", String(v))]));
    const items = final.map((r) => {
      const item = this.el("li", r.seat === result.winner ? "winner" : "");
      const who = nameOf(view, r.seat) + (r.seat === me ? " (you)" : "");
      if (r.place) item.append(this.el("span", "final-place", PLACE_WORDS[r.place]));
      item.append(this.el("span", "final-name", who), this.el("span", "final-count", plural(r.count, "card")));
      return item;
    });
    this.$("final").replaceChildren(...items);
  }

  /** Show the time left (seconds, or null for no limit), or that time is up. */
  clock(seconds, up) {
    this.$("clock").hidden = seconds === null;
    if (seconds !== null) setText(this.$("clock"), up ? "Time is up" : `${clockText(seconds)} left`);
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

function markClass(mark) {
  if (mark === "you") return "mark-you";
  if (mark.startsWith("ready")) return "mark-ready";
  if (mark === "your turn") return "mark-turn";
  if (/^(away|left|out)/.test(mark)) return "mark-away";
  return mark.startsWith("auto") ? "mark-auto" : "";
}
