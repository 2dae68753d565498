// What the page remembers in localStorage: seat tokens by player code, the name (README.md).

import { said } from "./catalog.js";

const SEAT = "family-war.seat.";
const NAME = "family-war.name";
export const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** A code as the server compares it: case and hyphens do not matter. */
export const normalizeCode = (code) => code.toUpperCase().replace(/-/g, "");

function attempt(action, fallback) {
  try {
    return action();
  } catch {
    return fallback; // unreadable or refused: a token is a convenience, at worst a new seat
  }
}

export class SeatStore {
  /** `backing`: a Storage (default: localStorage, if the browser allows); `clock`: ms. */
  constructor(backing, clock = () => Date.now()) {
    this.backing = backing !== undefined ? backing : attempt(() => globalThis.localStorage ?? null, null);
    this.clock = clock;
  }

  /** The seat kept for `code` ({room, token, seat, name, saved}) if still fresh, or null. */
  get(code, key = SEAT + normalizeCode(code)) {
    const v = attempt(() => JSON.parse(this.backing?.getItem(key) ?? "null"), null);
    const valid = v !== null && typeof v === "object" && Number.isInteger(v.seat) && typeof v.saved === "number";
    const fresh = valid && ["room", "token", "name"].every((k) => typeof v[k] === "string");
    return fresh && this.clock() - v.saved < MAX_AGE_MS ? v : null;
  }

  /** Keep `record` for `code`; null, or why it was not kept (a said() message). */
  put(code, record) {
    if (this.backing === null) return said("close.no_memory");
    try {
      const keys = Array.from({ length: this.backing.length }, (_, i) => this.backing.key(i));
      for (const key of keys) if (key?.startsWith(SEAT) && this.get("", key) === null) this.backing.removeItem(key);
      this.backing.setItem(SEAT + normalizeCode(code), JSON.stringify({ ...record, saved: this.clock() }));
      return null;
    } catch (error) {
      return said("close.no_memory_because", { problem: error.name });
    }
  }

  forget(code) {
    attempt(() => this.backing?.removeItem(SEAT + normalizeCode(code)));
  }

  get name() {
    return attempt(() => this.backing?.getItem(NAME) ?? "", "");
  }

  set name(value) {
    attempt(() => this.backing?.setItem(NAME, value));
  }
}
