// What the page remembers in localStorage: each seat's latest token (per player code, so
// a reload of #join=CODE resumes the seat, as war-client's state file does), and the
// player's name. Nothing else: never a password. The token never goes into a URL.
//
// localStorage can be missing or refuse writes (private windows, a full quota); then the
// page works on without remembering, and `put` says why in its return value.

const PREFIX = "family-war.";
const SEAT = `${PREFIX}seat.`;
const NAME = `${PREFIX}name`;
export const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** A code as the server compares it: case and hyphens do not matter. */
export const normalizeCode = (code) => code.toUpperCase().replace(/-/g, "");

function storage(given) {
  if (given !== undefined) return given;
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // a browser that forbids storage for this page
  }
}

function isRecord(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof value.room === "string" &&
    typeof value.token === "string" &&
    Number.isInteger(value.seat) &&
    typeof value.name === "string" &&
    typeof value.saved === "number"
  );
}

export class SeatStore {
  /** `backing`: a Storage (default: localStorage, or none); `clock`: ms since the epoch. */
  constructor(backing, clock = () => Date.now()) {
    this.backing = storage(backing);
    this.clock = clock;
  }

  /** The stored seat for `code` ({room, token, seat, name, saved}), or null. */
  get(code) {
    try {
      const value = JSON.parse(this.backing?.getItem(SEAT + normalizeCode(code)) ?? "null");
      return isRecord(value) && this.clock() - value.saved < MAX_AGE_MS ? value : null;
    } catch {
      return null; // unreadable: a token is a convenience, the worst case is a new seat
    }
  }

  /** Keep `record` for `code`; returns null, or a sentence saying why it was not kept. */
  put(code, record) {
    if (this.backing === null) return "this browser does not let the page remember your seat";
    try {
      this.prune();
      this.backing.setItem(SEAT + normalizeCode(code), JSON.stringify({ ...record, saved: this.clock() }));
      return null;
    } catch (error) {
      return `this browser did not let the page remember your seat (${error.name})`;
    }
  }

  /** Forget the seat for `code`. */
  forget(code) {
    try {
      this.backing?.removeItem(SEAT + normalizeCode(code));
    } catch {
      // nothing to do: it was not stored either
    }
  }

  /** Drop seats older than MAX_AGE_MS. */
  prune() {
    const keys = [];
    for (let i = 0; i < (this.backing?.length ?? 0); i += 1) keys.push(this.backing.key(i));
    for (const key of keys) {
      if (key === null || !key.startsWith(SEAT)) continue;
      let value = null;
      try {
        value = JSON.parse(this.backing.getItem(key));
      } catch {
        value = null;
      }
      if (!isRecord(value) || this.clock() - value.saved >= MAX_AGE_MS) this.backing.removeItem(key);
    }
  }

  /** The name typed last time, or "". */
  get name() {
    try {
      return this.backing?.getItem(NAME) ?? "";
    } catch {
      return "";
    }
  }

  set name(value) {
    try {
      this.backing?.setItem(NAME, value);
    } catch {
      // not remembered: asked again next time
    }
  }
}
