// What the page remembers in localStorage: seat tokens by player code and name, the name
// typed last (README.md). A browser is often a family's shared computer: Opa's tab and
// Oma's tab at one table each keep their own seat, under the key of the code and the name.

import { said } from "./catalog.js";

const SEAT = "family-war.seat.";
const NAME = "family-war.name";
export const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** A code as the server compares it: case and hyphens do not matter. */
export const normalizeCode = (code) => code.toUpperCase().replace(/-/g, "");

/** A name as a key: the same letters in another case or composition are the same name
 * (the server refuses two such names at one table, so two seats never share a key). */
export const nameKey = (name) => String(name ?? "").normalize("NFKC").trim().toLowerCase();

// a seat's key: the code, a slash, the name (encoded); a key of an older page has no slash
const keyOf = (code, name) => `${SEAT}${normalizeCode(code)}/${encodeURIComponent(nameKey(name))}`;

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

  /** The seat kept for `code` and `name` ({room, token, seat, name, saved}) if still
   * fresh, or null. */
  get(code, name) {
    const wanted = nameKey(name);
    return this.all(code).find((record) => nameKey(record.name) === wanted) ?? null;
  }

  /** Every fresh seat kept for `code` (one a name), the latest first. */
  all(code) {
    const prefix = SEAT + normalizeCode(code);
    const found = this.keys()
      .filter((key) => key === prefix || key.startsWith(`${prefix}/`))
      .map((key) => this.read(key))
      .filter((record) => record !== null);
    return found.sort((a, b) => b.saved - a.saved);
  }

  /** Keep `record` for `code` under its name; null, or why it was not kept (a said() message). */
  put(code, record) {
    if (this.backing === null) return said("close.no_memory");
    try {
      for (const key of this.keys()) if (key.startsWith(SEAT) && this.read(key) === null) this.backing.removeItem(key);
      this.dropOlder(code, record.name);
      this.backing.setItem(keyOf(code, record.name), JSON.stringify({ ...record, saved: this.clock() }));
      return null;
    } catch (error) {
      return said("close.no_memory_because", { problem: error.name });
    }
  }

  /** Forget the seat of `name` for `code` (the other names' seats stay). */
  forget(code, name) {
    attempt(() => {
      this.dropOlder(code, name);
      this.backing?.removeItem(keyOf(code, name));
    });
  }

  get name() {
    return attempt(() => this.backing?.getItem(NAME) ?? "", "");
  }

  set name(value) {
    attempt(() => this.backing?.setItem(NAME, value));
  }

  keys() {
    const backing = this.backing;
    if (backing === null) return [];
    return attempt(() => Array.from({ length: backing.length }, (_, i) => backing.key(i)).filter((key) => key !== null), []);
  }

  // the record under `key` if valid and fresh, or null
  read(key) {
    const v = attempt(() => JSON.parse(this.backing?.getItem(key) ?? "null"), null);
    const valid = v !== null && typeof v === "object" && Number.isInteger(v.seat) && typeof v.saved === "number";
    const fresh = valid && ["room", "token", "name"].every((k) => typeof v[k] === "string");
    return fresh && this.clock() - v.saved < MAX_AGE_MS ? v : null;
  }

  // an older page's one seat for `code` (its key without a name), if it is `name`'s
  dropOlder(code, name) {
    const older = SEAT + normalizeCode(code);
    const record = this.read(older);
    if (record !== null && nameKey(record.name) === nameKey(name)) this.backing.removeItem(older);
  }
}
