// Open the room, follow it, reconnect and resume, as client/connection.py (README.md).

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
/** The backoff while the server cannot save games (store_unavailable). */
export const STORE_BACKOFF = Object.freeze({ base: 2, cap: 60 });

/** Seconds before reconnect `attempt` (0, 1 ...): exponential, capped, equal jitter. */
export function backoffDelay(attempt, { base = 0.25, cap = 10, random = Math.random } = {}) {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 32));
  return ceiling / 2 + random() * (ceiling / 2);
}

export const shouldReconnect = (code) => code === null || RETRY_CODES.has(code);

/** Why it closed: the server's sentence after an error, else the close code's meaning. */
export function closedBecause(code, error = null) {
  if (error !== null) return `${error.message || error.code} (${error.code})`;
  if (code === null || code === 1006) return "the connection dropped";
  return CLOSE_REASONS[code] ?? `the server closed the connection (code ${code})`;
}

/** The page's own WebSocket: ws: for http:, wss: for https:, same host, port and folder. */
export function socketUrl(location) {
  const url = new URL(".", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  url.search = "";
  return url.href;
}

export class Connection {
  // {url, opening (create_room, join_room or watch_room; v is added), seats (a SeatStore),
  // onEvent, resumeOnly (a stored seat is never replaced by a new one)}; and, for tests,
  // giveUpAfter, backoff, WebSocketImpl, setTimer, clearTimer, now, random.
  constructor(options) {
    Object.assign(this, {
      seats: null,
      giveUpAfter: 300,
      backoff: { base: 0.25, cap: 10 },
      resumeOnly: false,
      WebSocketImpl: globalThis.WebSocket,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (id) => clearTimeout(id),
      now: () => performance.now() / 1000,
      random: Math.random,
      ...options,
    });
    this.opening = { ...options.opening, v: PROTOCOL_VERSION };
    this.view = initialView();
    this.ws = this.token = this.refusal = this.lastError = this.troubleSince = this.timer = null;
    this.isOpen = this.everWelcomed = this.closing = this.left = this.ended = false;
    this.code = this.opening.type === "join_room" ? this.opening.code : null;
    this.attempt = 0;
  }

  start() {
    this.current = this.firstOpening();
    this.fallback = this.current.type === "resume_seat" && !this.resumeOnly ? this.opening : null;
    this.connect();
  }

  /** False when no room connection is open now. */
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

  close() {
    this.closing = true;
    if (this.timer !== null) {
      this.clearTimer(this.timer);
      this.timer = null;
      this.end(true, "closed", null);
    }
    this.ws?.close(1000);
  }

  /** Waiting to reconnect? Try now (the network is back, the page is visible again). */
  retryNow() {
    if (this.timer === null || this.ended) return;
    this.clearTimer(this.timer);
    this.timer = null;
    this.current = this.reopening();
    this.connect();
  }

  get waiting() {
    return this.timer !== null;
  }

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

  firstOpening() {
    if (this.opening.type === "join_room" && this.seats !== null) {
      const stored = this.seats.get(this.opening.code);
      if (stored !== null) return { type: "resume_seat", v: PROTOCOL_VERSION, room: stored.room, token: stored.token };
    }
    return this.opening;
  }

  // After a drop: resume the seat, or watch again, or (never welcomed) start over.
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
