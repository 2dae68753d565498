// A seat request in words, and the question with its two buttons (as client/words/seats.py;
// protocol/PROTOCOL.md, "Taking an away seat back"). The words are the catalogs'
// seat_request section (and page.plain for the refusals).

import { YOU, named, openSeat, said } from "./catalog.js";
import { seatOf } from "./view.js";

// the seat by its name (an open seat by its number), as client/_words.named
const seatWord = (view, seat) => {
  const record = seatOf(view, seat);
  return record === null || record.name === null ? openSeat(seat + 1) : named(record.name);
};
const whoIs = (view, seat, me) => (seat === me ? YOU : seatWord(view, seat));

/** The question a seated, connected player is asked. */
export const question = (view, seat, w) => w.text("seat_request.question", { who: seatWord(view, seat) });

/** Whether this viewpoint is asked: seated, and someone asks for another seat. */
export const canAnswer = (view) => view.seat_request !== null && view.my_seat !== null && view.my_seat !== view.seat_request;

/** The answer_seat_request of a button, or why there is none to give (a said() message). */
export function answer(view, allow) {
  if (!canAnswer(view)) return said("seat_request.nobody_asking");
  return { type: "answer_seat_request", seat: view.seat_request, allow };
}

export function requestedLine(view, m, me, w) {
  if (me === null || me === m.seat) return w.text("seat_request.asks", { who: seatWord(view, m.seat) });
  return question(view, m.seat, w);
}

/** What `me` is told of the request open in a welcome's (or a snapshot's) state, as after
 * its seat_requested; null if none is open or it is for `me`'s own seat. */
export function openRequestLine(view, me, w) {
  const seat = view.seat_request;
  return seat === null || seat === me ? null : requestedLine(view, { seat }, me, w);
}

export const waitingLine = (m, w) => w.text("seat_request.waiting", { count: m.seconds });

export function endedLine(view, m, me, w) {
  const seat = seatWord(view, m.seat);
  const minutes = Math.max(1, Math.floor(m.reclaim / 60));
  const taken = m.outcome === "allowed" || m.outcome === "away_long";
  if (taken && me === m.seat) {
    const how = m.outcome === "allowed" && m.by !== null ? said("seat_request.let_you_in", { by: whoIs(view, m.by, me) }) : said("seat_request.away_long_yours");
    return w.text("seat_request.yours", { how, who: seat, minutes });
  }
  if ((m.outcome === "allowed" || m.outcome === "refused") && m.by !== null) {
    return w.text("seat_request.ended_by", { outcome: m.outcome, who: seat, by: whoIs(view, m.by, me) });
  }
  return w.text("seat_request.ended", { outcome: m.outcome, who: seat });
}

/** The question's panel (#seat-request): shown to a seated player while someone asks. */
export class SeatQuestion {
  constructor(doc, send, words) {
    this.$ = (id) => doc.getElementById(id);
    this.words = words; // the viewer's catalog (main.js sets it anew when the language changes)
    this.$("seat-allow").addEventListener("click", () => send(true));
    this.$("seat-refuse").addEventListener("click", () => send(false));
  }

  draw(view) {
    const asked = canAnswer(view);
    const box = this.$("seat-request");
    // drawn at every message: written only when it changes (docs/performance.md)
    if (box.hidden === asked) box.hidden = !asked;
    const text = asked ? question(view, view.seat_request, this.words) : null;
    if (asked && this.$("seat-request-text").textContent !== text) this.$("seat-request-text").textContent = text;
  }
}

/** A shared computer asks (#stored, on the invitation): this browser keeps another
 * name's seat at this table; continue as that name, or join as someone else. */
export class SharedComputer {
  constructor(doc, words, tab = sessionStorageOf(globalThis)) {
    this.$ = (id) => doc.getElementById(id);
    this.words = words;
    this.tab = tab; // this tab's own storage: a reload keeps it, a new tab has none
  }

  /** This tab played a seat with `code` (its welcome came). */
  played(code) {
    try {
      this.tab?.setItem(TAB_SEAT + code.toUpperCase(), "1");
    } catch {
      // refused: a reload asks again, which is only one more tap
    }
  }

  /** Whether this tab (not only this browser) played a seat with `code`. */
  thisTab(code) {
    try {
      return this.tab?.getItem(TAB_SEAT + code.toUpperCase()) === "1";
    } catch {
      return false;
    }
  }

  /** Show the choice for `stored` (a SeatStore record), or the plain invitation (null). */
  offer(stored) {
    const choose = stored !== null;
    this.$("stored").hidden = !choose;
    this.$("invite-form").hidden = choose;
    if (choose) {
      const who = stored.name ? named(stored.name) : openSeat((stored.seat ?? 0) + 1);
      this.$("stored-text").textContent = this.words.text("page.stored", { who });
      this.$("continue-as").textContent = this.words.text("page.continue_as", { who });
    }
  }

  someoneElse() {
    this.$("stored").hidden = true;
    this.$("invite-form").hidden = false;
    this.$("invite-name").value = "";
    this.$("invite-name").focus();
  }
}

const TAB_SEAT = "family-war.tab-seat.";

function sessionStorageOf(global) {
  try {
    return global.sessionStorage ?? null;
  } catch {
    return null;
  }
}
