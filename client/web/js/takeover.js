// A seat request in words, and the question with its two buttons (as client/seat_words.py;
// protocol/PROTOCOL.md, "Taking an away seat back"). Every English word of it is here.

import { nameOf } from "./view.js";

/** The question a seated, connected player is asked. */
export const question = (name) => `Someone wants to take ${name}'s seat from another device — let them?`;

/** What a refused opening of these kinds says (main.js's PLAIN, extended). */
export const REFUSALS = {
  name_taken: "Someone at that table has that name, or one that looks the same. Pick another name.",
  name_invisible: "That name shows no letter; pick a name people can read.",
  name_reserved: "The tables use that word for someone else; pick another name.",
  seat_in_use: "A player of that name is at the table now. Only their own device takes that seat.",
  seat_request_pending: "Someone else is asking the table for a seat right now; try again in a minute.",
  seat_request_refused: "The players at the table did not let this device take the seat.",
  seat_request_expired: "Nobody at the table answered in time; ask them to look at their screen.",
  seat_away_too_briefly: "Nobody at the table can let you in yet; try again in two minutes.",
  seat_taken: "Your seat was taken on another device (the table allowed it, or it was away long).",
  seat_taken_back: "The device this seat was taken from took it back.",
};
// The shared computer's words are in index.html (#stored: "Join as someone else") and below.

/** Whether this viewpoint is asked: seated, and someone asks for another seat. */
export const canAnswer = (view) => view.seat_request !== null && view.my_seat !== null && view.my_seat !== view.seat_request;

/** The answer_seat_request of a button, or why there is none to give. */
export function answer(view, allow) {
  if (!canAnswer(view)) return "Nobody is asking for a seat now.";
  return { type: "answer_seat_request", seat: view.seat_request, allow };
}

export function requestedLine(view, m, me) {
  const name = nameOf(view, m.seat);
  if (me === null || me === m.seat) return `Someone asks to take ${name}'s seat from another device.`;
  return question(name);
}

export const waitingLine = (m) =>
  `The players at the table are asked whether this device may take that seat; waiting up to ${m.seconds} seconds for their answer.`;

export function endedLine(view, m, me) {
  const name = nameOf(view, m.seat);
  const by = m.by === null ? "Nobody" : m.by === me ? "You" : nameOf(view, m.by);
  const minutes = Math.max(1, Math.floor(m.reclaim / 60));
  const taken = m.outcome === "allowed" || m.outcome === "away_long";
  if (taken && me === m.seat) {
    const how = m.outcome === "allowed" ? `${by} let you in` : "It was away long";
    return `${how}: you have ${name}'s seat on this device. The device it was on can take it back within ${minutes} minutes.`;
  }
  return {
    allowed: `${by} let another device take ${name}'s seat.`,
    away_long: `${name}'s seat was taken on another device: nobody was here to ask, and it had been away long.`,
    refused: `${by} refused to let another device take ${name}'s seat.`,
    expired: `Nobody answered; ${name}'s seat stays as it was.`,
    withdrawn: `The other device stopped asking for ${name}'s seat.`,
    returned: `${name} is back on their own device.`,
  }[m.outcome];
}

/** The question's panel (#seat-request): shown to a seated player while someone asks. */
export class SeatQuestion {
  constructor(doc, send) {
    this.$ = (id) => doc.getElementById(id);
    this.$("seat-allow").addEventListener("click", () => send(true));
    this.$("seat-refuse").addEventListener("click", () => send(false));
  }

  draw(view) {
    const asked = canAnswer(view);
    this.$("seat-request").hidden = !asked;
    if (asked) this.$("seat-request-text").textContent = question(nameOf(view, view.seat_request));
  }
}

/** A shared computer asks (#stored, on the invitation): this browser keeps another
 * name's seat at this table; continue as that name, or join as someone else. */
export class SharedComputer {
  constructor(doc, tab = sessionStorageOf(globalThis)) {
    this.$ = (id) => doc.getElementById(id);
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
      const name = stored.name || "Player";
      this.$("stored-text").textContent = `This browser keeps ${name}'s seat at this table.`;
      this.$("continue-as").textContent = `Continue as ${name}`;
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
