// A seat request in words, and the question with its two buttons (as client/words/seats.py;
// protocol/PROTOCOL.md, "Taking an away seat back"). The words are the catalogs'
// seat_request section (and page.plain for the refusals).

import { YOU, named, openSeat, said } from "./catalog.js";
import { normalizeCode } from "./store.js";
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

/** A shared computer (#stored on the invitation, #playing-as at the table): this browser
 * may keep seats at this table for several names (store.js), and each tab remembers in its
 * own sessionStorage which name it plays, so a reload goes on as that name; a new tab asks
 * who is there (one button a kept seat, or someone else), and the table says whose seat the
 * tab plays, with a switch back to that question. */
export class SharedComputer {
  constructor(doc, words, { tab = sessionStorageOf(globalThis), onContinue = () => {}, onSwitch = () => {} } = {}) {
    this.doc = doc;
    this.$ = (id) => doc.getElementById(id);
    this.words = words;
    this.tab = tab; // this tab's own storage: a reload keeps it, a new tab has none
    this.onContinue = onContinue; // (name): go on as that name's kept seat
    this.shown = null; // the records #stored offers, to say them again in another language
    this.$("playing-switch").addEventListener("click", () => onSwitch());
  }

  /** This tab plays `name`'s seat with `code` (its welcome came). */
  played(code, name) {
    try {
      this.tab?.setItem(TAB_SEAT + normalizeCode(code), name);
    } catch {
      // refused: a reload asks again, which is only one more tap
    }
  }

  /** The name whose seat with `code` this tab (not only this browser) plays, or null. */
  thisTab(code) {
    try {
      const name = this.tab?.getItem(TAB_SEAT + normalizeCode(code)) ?? null;
      return name === "1" ? null : name; // "1": an older page's mark, which named nobody
    } catch {
      return null;
    }
  }

  /** This tab plays no seat with `code` any more (switch: the next load asks who is there). */
  forgetTab(code) {
    try {
      this.tab?.removeItem(TAB_SEAT + normalizeCode(code));
    } catch {
      // refused: nothing was kept either
    }
  }

  /** Offer the seats `kept` (SeatStore records, the latest first) and someone else; the
   * plain invitation when there are none. */
  offer(kept) {
    const choose = kept.length > 0;
    this.shown = kept;
    this.$("stored").hidden = !choose;
    this.$("invite-form").hidden = choose;
    if (!choose) return;
    const whoOf = (record) => (record.name ? named(record.name) : openSeat((record.seat ?? 0) + 1));
    const text = kept.length === 1 ? this.words.text("page.stored", { who: whoOf(kept[0]) }) : this.words.text("page.stored_many");
    this.$("stored-text").textContent = text;
    this.$("continue-list").replaceChildren(
      ...kept.map((record, i) => {
        const button = this.doc.createElement("button");
        button.type = "button";
        button.className = i === 0 ? "primary big" : "big";
        button.textContent = this.words.text("page.continue_as", { who: whoOf(record) });
        button.addEventListener("click", () => this.onContinue(record.name));
        return button;
      }),
    );
  }

  /** Say the offer again in the words picked now. */
  speak(words) {
    this.words = words;
    if (this.shown !== null && !this.$("stored").hidden) this.offer(this.shown);
  }

  someoneElse() {
    this.$("stored").hidden = true;
    this.$("invite-form").hidden = false;
    this.$("invite-name").value = "";
    this.$("invite-name").focus();
  }

  /** Whose seat this tab plays ("Playing as Oma · switch"), at the table; `name` null: none. */
  playing(name) {
    const line = this.$("playing-as");
    if (line.hidden !== (name === null)) line.hidden = name === null;
    const text = name === null ? "" : this.words.text("page.playing_as", { who: named(name) });
    if (this.$("playing-who").textContent !== text) this.$("playing-who").textContent = text;
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
