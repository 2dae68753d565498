// The page's connection: open a room, follow it, reconnect and resume when it drops.
//
// The same behaviour as the Python client's client/connection.py. A Connection calls
// `onEvent` with, in order: {kind: "received", message, before, view, at} for every
// checked server message (the view before and after it; `at`: when it arrived, on the
// performance.now() clock), {kind: "reconnecting", attempt, delay,
// reason}, {kind: "notice", text}, and last {kind: "ended", ok, reason, code}.
//
// - applies the reducer (view.js) to every message and sends resync on a seq gap;
// - keeps each seat's latest token (store.js), so a reload of #join=CODE resumes the seat
//   instead of taking a new one (if the stored token is refused, it joins as new);
// - on a dropped connection, a server restart (1012), a server error (1011), "try again
//   later" (1013), a rate-limit close (4001) or an opening timeout (4005), reconnects with
//   capped exponential backoff with jitter and resumes (spectators watch again), until
//   giveUpAfter seconds passed without a room; when the server cannot save games
//   (store_unavailable, then 1013) it waits longer. Refusals and final closes (4002
//   replaced, 4003 room closed, 4004 refused ...) end it with the server's own sentence.
//   A browser never sees an HTTP 429 refusal itself: it is a dropped connection here.
//
// The decisions are the pure functions shouldReconnect, closedBecause and backoffDelay.

import { apply, initialView, welcomed } from "./view.js";
import { PROTOCOL_VERSION, decodeServerMessage, encodeClientMessage } from "./wire.js";

const RETRY_CODES = new Set([1006, 1011, 1012, 1013, 4001, 4005]);
const STALE_SEAT = new Set(["bad_token", "unknown_code"]);
const CLOSE_REASONS = {
  1000: "the server ended the connection",
  1001: "the server shut down",
  1003: "the server refused a text frame",
  1008: "the server closed the connection after invalid messages",
  1009: "the server refused a message as too big",
  1011: "the server hit an error",
  1012: "the server is restarting",
  1013: "the server is busy",
  4000: "the server speaks another protocol version",
  4001: "too many messages too fast",
  4002: "this seat was taken over by another window or device",
  4003: "the room was closed",
  4004: "the server refused to let us in",
  4005: "the server waited too long for us",
};
/** When the server cannot save games, wait this much longer between tries. */
export const STORE_BACKOFF = Object.freeze({ base: 2, cap: 60 });

/** Seconds to wait before reconnect `attempt` (0, 1, 2 ...): exponential, capped, with
 * "equal jitter" (a random point in the upper half), so a room dropped at once does not
 * reconnect in lockstep. */
export function backoffDelay(attempt, { base = 0.25, cap = 10, random = Math.random } = {}) {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 32));
  return ceiling / 2 + random() * (ceiling / 2);
}

/** True if a room connection closed with `code` should reconnect and resume. */
export const shouldReconnect = (code) => code === null || RETRY_CODES.has(code);

/** One lowercase line on why the connection closed: the server's own sentence when an
 * error came just before, else the meaning of the close code. */
export function closedBecause(code, error = null) {
  if (error !== null) return `${error.message || error.code} (${error.code})`;
  if (code === null || code === 1006) return "the connection dropped";
  return CLOSE_REASONS[code] ?? `the server closed the connection (code ${code})`;
}

/** The WebSocket URL of the page at `location`: ws: for http:, wss: for https:, same
 * host, port and folder (so it works directly, behind a proxy, and on TLS). */
export function socketUrl(location) {
  const url = new URL(".", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  url.search = "";
  return url.href;
}

export class Connection {
  /**
   * url: ws(s)://...; opening: {type: create_room | join_room | watch_room, ...} (v is
   * added); seats: a SeatStore; onEvent: called with each event (see above).
   * Options for tests: WebSocketImpl, setTimer/clearTimer, now (seconds), random.
   */
  constructor({
    url,
    opening,
    seats = null,
    onEvent,
    giveUpAfter = 300,
    backoff = { base: 0.25, cap: 10 },
    resumeOnly = false,
    WebSocketImpl = globalThis.WebSocket,
    setTimer = (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimer = (id) => globalThis.clearTimeout(id),
    now = () => globalThis.performance.now() / 1000,
    random = Math.random,
  }) {
    this.url = url;
    this.opening = { ...opening, v: PROTOCOL_VERSION };
    this.view = initialView();
    this.seats = seats;
    this.onEvent = onEvent;
    this.giveUpAfter = giveUpAfter;
    this.backoff = backoff;
    this.resumeOnly = resumeOnly;
    this.WebSocketImpl = WebSocketImpl;
    this.setTimer = setTimer;
    this.clearTimer = clearTimer;
    this.now = now;
    this.random = random;
    this.ws = null;
    this.isOpen = false; // the current connection was welcomed into the room
    this.token = null;
    this.code = opening.type === "join_room" ? opening.code : null;
    this.everWelcomed = false;
    this.closing = false;
    this.left = false;
    this.ended = false;
    this.refusal = null;
    this.lastError = null;
    this.attempt = 0;
    this.troubleSince = null;
    this.timer = null;
    this.current = null;
    this.fallback = null;
  }

  /** Connect with the first opening (a stored seat's resume_seat, if there is one). */
  start() {
    this.current = this.firstOpening();
    this.fallback = this.current.type === "resume_seat" && !this.resumeOnly ? this.opening : null;
    this.connect();
  }

  /** Send `message` to the room; false when no room connection is open now. */
  send(message) {
    const ws = this.ws;
    if (ws === null || !this.isOpen || ws.readyState !== 1) return false;
    if (message.type === "leave") {
      this.left = true;
      this.forgetSeat();
    }
    ws.send(encodeClientMessage(message));
    return true;
  }

  /** Close for good; the events end with {kind: "ended", ok: true}. */
  close() {
    this.closing = true;
    if (this.timer !== null) {
      this.clearTimer(this.timer);
      this.timer = null;
      this.end(true, "closed", null);
    }
    this.ws?.close(1000);
  }

  /** Waiting to reconnect: try now (the network came back, or the page became visible). */
  retryNow() {
    if (this.timer === null || this.ended) return;
    this.clearTimer(this.timer);
    this.timer = null;
    this.current = this.reopening();
    this.connect();
  }

  /** True while a reconnect is scheduled. */
  get waiting() {
    return this.timer !== null;
  }

  // --- one WebSocket ----------------------------------------------------------------------
  connect() {
    let ws;
    try {
      ws = new this.WebSocketImpl(this.url);
    } catch (error) {
      this.end(false, `cannot connect to ${this.url}: ${error.message}`, null);
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this.isOpen = false;
    this.refusal = null;
    this.lastError = null;
    let opened = false;
    let welcomedHere = false;
    ws.onopen = () => {
      opened = true;
      ws.send(encodeClientMessage(this.current));
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      welcomedHere = this.received(ws, event.data, event.timeStamp) || welcomedHere;
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.isOpen = false;
      this.closed(event.code || null, opened, welcomedHere);
    };
    ws.onerror = () => {}; // a close event follows and says what happened
  }

  received(ws, data, at) {
    let message;
    try {
      message = decodeServerMessage(data);
    } catch (error) {
      this.emit({ kind: "notice", text: `ignored a bad message from the server: ${error.message}` });
      return false;
    }
    if (message.type === "error") {
      this.lastError = message;
      if (!welcomed(this.view)) this.refusal = message;
    }
    if (message.type === "welcome") this.welcomed(message);
    const before = this.view;
    this.view = apply(this.view, message);
    if (this.view.needs_resync && !before.needs_resync && ws.readyState === 1) {
      ws.send(encodeClientMessage({ type: "resync" }));
    }
    this.emit({ kind: "received", message, before, view: this.view, at });
    return message.type === "welcome";
  }

  welcomed(welcome) {
    this.everWelcomed = true;
    this.isOpen = true;
    if (welcome.token !== null && welcome.seat !== null) {
      this.token = welcome.token;
      this.code = welcome.player_code ?? this.code;
      this.keepSeat(welcome);
    }
  }

  closed(code, opened, welcomedHere) {
    if (this.closing) return this.end(true, "closed", code);
    if (this.left) return this.end(true, "you left the room", code);
    const refused = this.refusal?.code ?? null;
    if (this.fallback !== null && !welcomedHere && STALE_SEAT.has(refused)) {
      this.forgetSeat();
      this.emit({ kind: "notice", text: "the stored seat could not be resumed; joining as new" });
      this.current = this.fallback;
      this.fallback = null;
      this.connect();
      return undefined;
    }
    let reason;
    if (!opened && code === 1006) {
      if (!this.everWelcomed) return this.end(false, `cannot connect to ${this.url}`, code);
      reason = "cannot reach the server";
    } else {
      if (!(welcomedHere || this.everWelcomed) || !shouldReconnect(code)) {
        return this.end(false, closedBecause(code, this.refusal), code);
      }
      if (welcomedHere) {
        this.attempt = 0;
        this.troubleSince = null;
      }
      reason = closedBecause(code, this.refusal ?? this.lastError);
    }
    const now = this.now();
    this.troubleSince ??= now;
    if (now - this.troubleSince > this.giveUpAfter) {
      return this.end(false, `gave up reconnecting: ${reason}`, code);
    }
    const slow = this.lastError?.code === "store_unavailable";
    const { base, cap } = slow ? STORE_BACKOFF : this.backoff;
    const delay = backoffDelay(this.attempt, { base, cap, random: this.random });
    this.attempt += 1;
    this.emit({ kind: "reconnecting", attempt: this.attempt, delay, reason });
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.current = this.reopening();
      this.connect();
    }, delay * 1000);
    return undefined;
  }

  end(ok, reason, code) {
    if (this.ended) return;
    this.ended = true;
    this.emit({ kind: "ended", ok, reason, code });
  }

  emit(event) {
    this.onEvent(event);
  }

  // --- openings and the stored seats ------------------------------------------------------
  firstOpening() {
    if (this.opening.type === "join_room" && this.seats !== null) {
      const stored = this.seats.get(this.opening.code);
      if (stored !== null) return { type: "resume_seat", v: PROTOCOL_VERSION, room: stored.room, token: stored.token };
    }
    return this.opening;
  }

  /** After a drop: resume the seat, or watch again, or (never welcomed) start over. */
  reopening() {
    const view = this.view;
    if (view.room !== null && this.token !== null) {
      return { type: "resume_seat", v: PROTOCOL_VERSION, room: view.room, token: this.token };
    }
    if (welcomed(view) && view.my_seat === null && this.opening.type === "watch_room") return this.opening;
    return this.firstOpening();
  }

  keepSeat(welcome) {
    if (this.seats === null || this.code === null) return;
    const seat = welcome.seat;
    const problem = this.seats.put(this.code, {
      room: welcome.state.room,
      token: welcome.token,
      seat,
      name: welcome.state.seats[seat]?.name ?? "",
    });
    if (problem !== null) this.emit({ kind: "notice", text: problem });
  }

  forgetSeat() {
    if (this.seats !== null && this.code !== null) this.seats.forget(this.code);
  }
}
