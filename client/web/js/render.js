// The table on the page: draws a view (view.js) into the DOM, and nothing else.
//
// Every element is made once and then only changed where the view changed, so an event
// reaches the screen within a frame. Names are set as text, never as markup (they are
// user input). Cards are drawn with CSS: a white face with the rank written out ("10",
// "Q") and the suit's symbol, red or black; a patterned back with a count. A haul flies
// calmly to the winner's pile (0.6 s), unless the reader asked for reduced motion.

import { cardName, isRed, rankLabel, SUIT_SYMBOLS } from "./cards.js";
import { clockText } from "./countdown.js";
import { joinWords, longestName, resultSentence, warName } from "./sentences.js";
import { mine, myTurn, nameOf, spectating, welcomed } from "./view.js";

export const MAX_LOG_LINES = 120;
const FLIGHT_MS = 600;

const byId = (doc, id) => doc.getElementById(id);

function el(doc, tag, className, text) {
  const node = doc.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Short words on a seat: ["you", "ready ✓", "auto calm"] (client/panels.py's words). */
export function seatMarks(view, record, me) {
  if (record.name === null) return ["waiting for a player"];
  const marks = [];
  if (record.seat === me) marks.push("you");
  if (view.left.includes(record.seat)) marks.push("left");
  else if (record.computer) {
    if (!record.name.toLowerCase().includes("computer")) marks.push("computer");
  } else if (!record.connected) marks.push("away");
  if (record.out) marks.push("out of the game");
  else if (view.phase === "playing") {
    if (record.ready) marks.push("ready ✓");
    else if (view.waiting_for.includes(record.seat)) {
      if (record.seat !== me) marks.push("not ready");
      else if (record.auto === "off") marks.push("your turn");
    } else if (view.war_depth && !view.war_seats.includes(record.seat)) marks.push("sits out the war");
  }
  if (record.auto !== "off" && !record.computer) marks.push(`auto ${record.auto}`);
  if (record.finish_vote && view.phase === "playing") marks.push("voted to finish");
  if (record.rematch_vote !== null) marks.push(`rematch: ${record.rematch_vote} deal`);
  return marks;
}

/** The rules in force, in a line: "2 players · 1 card face down in a war · ...". */
export function rulesLine(view) {
  const r = view.rules;
  const parts = [
    `${r.players} players`,
    `war: ${r.face_down} ${r.face_down === 1 ? "card" : "cards"} face down`,
    r.short_war === "lose" ? "short in a war: you lose" : "short in a war: your last card plays",
    r.won_cards === "shuffle" ? "won cards shuffled" : "won cards kept in order",
    `aces ${r.aces}`,
  ];
  if (r.round_limit !== null) parts.push(`${r.round_limit} rounds`);
  else if (view.minutes !== null) parts.push(`${view.minutes} minutes`);
  else parts.push("no limit");
  if (r.round_limit !== null || view.minutes !== null) {
    parts.push(r.tie_break === "draw" ? "a tie at the end is a draw" : "a tie at the end plays on");
  }
  return parts.join(" · ");
}

/** The line under the title: "round 12 of 50 · game 2 · 3 watching · deal 42". */
export function whereLine(view) {
  if (!welcomed(view)) return "";
  const parts = [];
  if (view.phase !== "waiting") {
    parts.push(view.rules.round_limit !== null ? `round ${view.round} of ${view.rules.round_limit}` : `round ${view.round}`);
  }
  if (view.game > 1) parts.push(`game ${view.game}`);
  if (spectating(view)) {
    const others = view.spectators - 1;
    parts.push(`you are watching${others > 0 ? ` with ${others} more` : ""}`);
  } else if (view.spectators) parts.push(`${view.spectators} watching`);
  if (view.deal !== null && view.phase !== "over") parts.push(`deal ${view.deal}`);
  return parts.join(" · ");
}

function cardFace(doc, card, small) {
  const node = el(doc, "span", `card face ${isRed(card) ? "red" : "black"}${small ? " small" : ""}`);
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", cardName(card));
  const rank = rankLabel(card);
  const suit = SUIT_SYMBOLS[card[1]];
  node.append(el(doc, "span", "corner", `${rank}${suit}`), el(doc, "span", "rank", rank), el(doc, "span", "suit", suit));
  return node;
}

function cardBack(doc, count) {
  const node = el(doc, "span", "card back");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", `${count} ${count === 1 ? "card" : "cards"} face down`);
  if (count > 1) node.append(el(doc, "span", "back-count", `×${count}`));
  return node;
}

/** The cards a seat shows: [label, face_up, face_down, won?]. */
function tableOf(view, record) {
  if (record.face_up.length || record.face_down) return ["", record.face_up, record.face_down, false];
  if (view.phase !== "playing") return ["", [], 0, false];
  const taken = view.last_taken;
  const seat = record.seat;
  if (taken !== null && seat < taken.face_up.length && (taken.face_up[seat].length || taken.face_down[seat])) {
    const won = taken.seat === seat;
    return [won ? "last round: won" : "last round", taken.face_up[seat], taken.face_down[seat], won];
  }
  const flip = view.last_flip; // a resumed view: the latest flip is all it knows
  const shown = flip === null ? undefined : flip.cards.find(([s]) => s === seat);
  if (shown !== undefined) return ["last card", [shown[1]], 0, false];
  return ["", [], 0, false];
}

export class Table {
  constructor(doc, { reducedMotion = () => false } = {}) {
    this.doc = doc;
    this.reducedMotion = reducedMotion;
    this.panels = [];
    this.layout = "";
    this.flights = [];
    this.lastTaken = null;
    this.logCount = 0;
    this.inviting = null;
  }

  /** Forget the drawn table (a new room). */
  reset() {
    byId(this.doc, "seats").replaceChildren();
    byId(this.doc, "log").replaceChildren();
    this.panels = [];
    this.layout = "";
    this.lastTaken = null;
    this.logCount = 0;
    this.inviting = null;
    this.land();
  }

  /** Add sentences to the log (newest first), keeping the last MAX_LOG_LINES. */
  say(lines, className = "") {
    if (!lines.length) return;
    const log = byId(this.doc, "log");
    for (const line of lines) {
      log.prepend(el(this.doc, "li", className, line));
      this.logCount += 1;
    }
    while (this.logCount > MAX_LOG_LINES) {
      log.lastElementChild.remove();
      this.logCount -= 1;
    }
  }

  /** Draw `view` for seat `view.my_seat`; `status` is the status sentence to show. */
  draw(view, status) {
    const doc = this.doc;
    const me = view.my_seat;
    const playing = view.phase === "playing";
    const over = view.phase === "over";
    const player = !spectating(view) && me !== null;
    setText(byId(doc, "where"), whereLine(view));
    setText(byId(doc, "rules"), welcomed(view) ? rulesLine(view) : "");
    this.drawShare(view);
    this.drawSeats(view, me);
    const war = byId(doc, "war");
    war.hidden = !view.war_depth;
    if (view.war_depth) {
      const fighters = joinWords(view.war_seats.map((s) => (s === me ? "you" : nameOf(view, s))));
      setText(war, `${capital(warName(view.war_depth))} between ${fighters}!`);
    }
    setText(byId(doc, "status"), status);
    this.drawOver(view, me);
    // The buttons: players only (a spectator's table has none).
    byId(doc, "actions").hidden = !player;
    byId(doc, "controls").hidden = !player;
    const turn = byId(doc, "turn");
    turn.hidden = !playing;
    const ready = myTurn(view);
    turn.setAttribute("aria-disabled", String(!ready));
    turn.classList.toggle("waiting", !ready);
    byId(doc, "rematch").hidden = !(over && player);
    const record = mine(view);
    byId(doc, "auto").hidden = !playing;
    byId(doc, "finish").hidden = !playing;
    if (record !== null) {
      for (const radio of doc.querySelectorAll('#auto input[name="auto"]')) {
        const checked = radio.value === record.auto;
        if (radio.checked !== checked) radio.checked = checked;
      }
      byId(doc, "finish").setAttribute("aria-disabled", String(record.finish_vote || record.out));
      setText(byId(doc, "finish"), record.finish_vote ? "Voted to finish ✓" : "Vote to finish");
      const voted = record.rematch_vote;
      byId(doc, "rematch-new").classList.toggle("chosen", voted === "new");
      byId(doc, "rematch-same").classList.toggle("chosen", voted === "same");
    }
    doc.title = ready ? "Your turn · Family War" : "Family War";
    byId(doc, "table").dataset.step = String(view.step);
    this.fly(view);
  }

  drawShare(view) {
    const doc = this.doc;
    const share = byId(doc, "share");
    const inviting = view.phase === "waiting" && view.player_code !== null && view.seats.some((s) => s.name === null);
    share.hidden = spectating(view) || !welcomed(view) || view.watch_code === null;
    if (share.hidden) return;
    if (inviting !== this.inviting) {
      this.inviting = inviting;
      share.open = inviting; // open while waiting for players; closed, at hand, once playing
    }
    setText(byId(doc, "share-title"), inviting ? "Invite the family" : "Let others watch");
    share.classList.toggle("later", !inviting); // out of the way while playing
    byId(doc, "share-join").hidden = !inviting;
    const base = new URL(doc.location.href);
    base.hash = "";
    setValue(byId(doc, "join-link"), inviting ? `${base.href}#join=${view.player_code}` : "");
    setValue(byId(doc, "watch-link"), `${base.href}#watch=${view.watch_code}`);
    const codes = inviting ? `players ${view.player_code}, watchers ${view.watch_code}` : `watchers ${view.watch_code}`;
    setText(byId(doc, "share-codes"), codes);
  }

  drawSeats(view, me) {
    const doc = this.doc;
    const layout = `${view.seats.length}:${me}`;
    if (layout !== this.layout) {
      this.layout = layout;
      const box = byId(doc, "seats");
      box.replaceChildren();
      box.className = `seats n${view.seats.length}${me === null ? " watching" : ""}`;
      const template = byId(doc, "seat-template");
      this.panels = view.seats.map((record) => {
        const node = template.content.firstElementChild.cloneNode(true);
        node.dataset.seat = String(record.seat);
        return {
          node,
          name: node.querySelector(".name"),
          marks: node.querySelector(".marks"),
          count: node.querySelector(".count"),
          word: node.querySelector(".cards-word"),
          haul: node.querySelector(".haul"),
          pile: node.querySelector(".pile"),
          cards: node.querySelector(".table-cards"),
          drawn: "",
          markText: "",
        };
      });
      // Me at the bottom, nearest the button; the others above, in seat order.
      const order = [...this.panels.filter((_, s) => s !== me), ...this.panels.filter((_, s) => s === me)];
      box.append(...order.map((p) => p.node));
    }
    byId(doc, "seats").classList.toggle("done", view.phase === "over");
    for (const record of view.seats) this.drawSeat(view, record, me, this.panels[record.seat]);
  }

  drawSeat(view, record, me, panel) {
    const { node } = panel;
    setText(panel.name, record.name ?? `Seat ${record.seat + 1}`);
    const marks = seatMarks(view, record, me);
    const markText = marks.join("|");
    if (markText !== panel.markText) {
      panel.markText = markText;
      panel.marks.replaceChildren(...marks.map((m) => el(this.doc, "span", `mark ${markClass(m)}`, m)));
    }
    const [label, faceUp, faceDown, won] = tableOf(view, record);
    node.classList.toggle("me", record.seat === me);
    node.classList.toggle("open", record.name === null);
    node.classList.toggle("out", record.out);
    node.classList.toggle("won", won);
    node.classList.toggle("turn", view.phase === "playing" && view.waiting_for.includes(record.seat) && !record.ready);
    node.classList.toggle("in-war", view.war_depth > 0 && view.war_seats.includes(record.seat));
    const dealt = view.phase !== "waiting";
    panel.pile.hidden = !dealt;
    setText(panel.count, String(record.count));
    setText(panel.word, record.count === 1 ? "card" : "cards");
    const taken = view.last_taken;
    setText(panel.haul, won && taken !== null ? ` +${taken.count}` : "");
    const drawn = `${label}|${faceUp.join(",")}|${faceDown}|${view.phase}`;
    if (drawn === panel.drawn) return;
    panel.drawn = drawn;
    const children = [];
    if (label) children.push(el(this.doc, "span", "table-label", label));
    // As they lie: the earlier cards turned (small), the face-down ones, the latest card.
    const row = el(this.doc, "div", "card-row");
    faceUp.slice(0, -1).forEach((card) => row.append(cardFace(this.doc, card, true)));
    if (faceDown) row.append(cardBack(this.doc, faceDown));
    if (faceUp.length) row.append(cardFace(this.doc, faceUp[faceUp.length - 1], false));
    if (!faceDown && !faceUp.length && view.phase === "playing") row.append(el(this.doc, "span", "card empty"));
    children.push(row);
    panel.cards.classList.toggle("past", Boolean(label));
    panel.cards.replaceChildren(...children);
  }

  drawOver(view, me) {
    const doc = this.doc;
    const box = byId(doc, "over");
    const result = view.result;
    box.hidden = !(view.phase === "over" && result !== null);
    if (box.hidden) return;
    setText(byId(doc, "result"), resultSentence(view, result, me));
    const s = result.summary;
    const rows = [
      ["Rounds", String(s.rounds)],
      ["Wars", String(s.wars)],
      ["Longest war", longestName(s.longest_war)],
      ["Biggest haul", `${s.biggest_haul} cards`],
      ["Deal", String(s.deal)],
    ];
    const figures = byId(doc, "figures");
    const text = rows.map((r) => r.join(":")).join("|");
    if (figures.dataset.drawn !== text) {
      figures.dataset.drawn = text;
      figures.replaceChildren(...rows.flatMap(([k, v]) => [el(doc, "dt", "", k), el(doc, "dd", "", v)]));
    }
    const final = [...view.seats].sort((a, b) => b.count - a.count || a.seat - b.seat);
    const finalText = final.map((r) => `${r.seat}:${r.count}:${r.name}`).join("|");
    const list = byId(doc, "final");
    if (list.dataset.drawn !== finalText) {
      list.dataset.drawn = finalText;
      list.replaceChildren(
        ...final.map((r) => {
          const item = el(doc, "li", r.seat === result.winner ? "winner" : "");
          const who = r.seat === me ? `${nameOf(view, r.seat)} (you)` : nameOf(view, r.seat);
          item.append(el(doc, "span", "final-name", who), el(doc, "span", "final-count", `${r.count} ${r.count === 1 ? "card" : "cards"}`));
          return item;
        }),
      );
    }
  }

  /** Show the time left (seconds, or null for no limit), and whether time is up. */
  clock(seconds, up) {
    const node = byId(this.doc, "clock");
    node.hidden = seconds === null;
    if (seconds !== null) setText(node, up ? "Time is up" : `${clockText(seconds)} left`);
  }

  // --- the haul's flight ---------------------------------------------------------------
  fly(view) {
    const taken = view.last_taken;
    if (taken === this.lastTaken) return;
    this.lastTaken = taken;
    this.land();
    if (taken === null || this.reducedMotion() || view.phase !== "playing") return;
    const target = this.panels[taken.seat]?.pile;
    if (!target || typeof target.animate !== "function") return;
    const to = target.getBoundingClientRect();
    for (const panel of this.panels) {
      const seat = Number(panel.node.dataset.seat);
      if (!(taken.face_up[seat]?.length || taken.face_down[seat])) continue;
      const from = panel.cards.getBoundingClientRect();
      const flyer = el(this.doc, "span", "card back flyer");
      flyer.setAttribute("aria-hidden", "true");
      flyer.style.left = `${from.left + from.width / 2 - 24}px`;
      flyer.style.top = `${from.top + from.height / 2 - 34}px`;
      this.doc.body.append(flyer);
      const dx = to.left + 12 - (from.left + from.width / 2 - 24);
      const dy = to.top - (from.top + from.height / 2 - 34);
      const animation = flyer.animate(
        [
          { transform: "translate(0, 0) scale(1)", opacity: 1 },
          { transform: `translate(${dx}px, ${dy}px) scale(0.5)`, opacity: 0.3 },
        ],
        { duration: FLIGHT_MS, easing: "ease-in-out", fill: "forwards" },
      );
      const flight = { flyer, animation };
      this.flights.push(flight);
      animation.finished.then(
        () => this.drop(flight),
        () => this.drop(flight),
      );
    }
  }

  /** End every flight at once (a newer haul lands the one in the air). */
  land() {
    for (const flight of this.flights.splice(0)) {
      flight.animation.cancel();
      flight.flyer.remove();
    }
  }

  drop(flight) {
    const index = this.flights.indexOf(flight);
    if (index >= 0) this.flights.splice(index, 1);
    flight.flyer.remove();
  }
}

function markClass(mark) {
  if (mark === "you") return "mark-you";
  if (mark.startsWith("ready")) return "mark-ready";
  if (mark === "your turn") return "mark-turn";
  if (mark === "away" || mark === "left" || mark.startsWith("out")) return "mark-away";
  if (mark.startsWith("auto")) return "mark-auto";
  return "";
}

function capital(text) {
  return text.slice(0, 1).toUpperCase() + text.slice(1);
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setValue(node, value) {
  if (node.value !== value) node.value = value;
}
