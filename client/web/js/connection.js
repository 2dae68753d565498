// Open the room, follow it, reconnect and resume, as client/net/connection.py; what to do when
// a connection ends is one pure decision, decide(), as client/net/policy.py (README.md).

import { said } from "./catalog.js";
import { FIRST, PathMerge, SECOND } from "./paths.js";
import { errorReason } from "./sentences.js";
import { apply, initialView, welcomed } from "./view.js";
import {
  RECONNECT_POLICY,
  RETRY_CLOSE_CODES,
  ROOM_ENDED_CLOSE_CODES,
  STALE_SEAT_ERRORS,
} from "./vocabulary.js";
import { PROTOCOL_VERSION, decodeServerMessage, encodeClientMessage } from "./wire.js";

const RETRY_CODES = new Set(RETRY_CLOSE_CODES);
const STALE_SEAT = new Set(STALE_SEAT_ERRORS);
const ROOM_ENDED = new Set(ROOM_ENDED_CLOSE_CODES);
/** Backoff for drops (base doubling to cap, seconds), slower while the server cannot save
 * games (store*), and how long to keep trying: client/net/policy.py's Policy. */
export const POLICY = RECONNECT_POLICY;

/** Seconds before reconnect `attempt` (0, 1 ...): exponential, capped, with "equal jitter"
 * (0 <= jitter <= 1: a point in the upper half of the step). */
export function backoffDelay(attempt, base, cap, jitter) {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 32));
  return ceiling / 2 + (ceiling / 2) * Math.min(Math.max(jitter, 0), 1);
}

export const shouldReconnect = (code) => code === null || RETRY_CODES.has(code);

/** Why it closed (a said() message): what the error before it means (by its code), else
 * what the close code means (none: the connection dropped, as 1006). */
export function closedBecause(code, error = null) {
  if (error !== null) return errorReason(error);
  return said("close.reason", { code: code ?? 1006 });
}

const stop = (ok, reason, code = null) => ({ kind: "stop", ok, reason, code });

/** What to do after a connection ended: {kind: "stop", ok, reason, code}, {kind:
 * "join_anew", notice} or {kind: "retry", delay, reason, reopen: resume | watch | first}.
 * `ending`: url, unreachable (why connecting failed, or null), final (that failure
 * cannot heal: a browser never knows so, and leaves it out), closeCode, error (the
 * error before the welcome, or store_unavailable), welcomed, everWelcomed, holdsToken,
 * storedSeat, spectator, gameOver, closing, left, attempt, troubleFor (seconds). */
export function decide(ending, policy, jitter) {
  const e = ending;
  if (e.closing) return stop(true, said("close.closed"));
  if (e.left) return stop(true, said("close.left"));
  const refused = e.error?.code ?? null;
  if (e.storedSeat && !e.welcomed && STALE_SEAT.has(refused)) {
    return { kind: "join_anew", notice: said("close.join_anew") };
  }
  if (e.unreachable !== null) {
    if (e.final || !e.everWelcomed) return stop(false, said("close.cannot_connect", { url: e.url, problem: e.unreachable }));
    return retry(e, policy, jitter, said("close.cannot_reach", { problem: e.unreachable }), false);
  }
  if (refused === "store_unavailable") {
    const reason = e.attempt === 0 ? closedBecause(e.closeCode, e.error) : said("close.store_still");
    return retry(e, policy, jitter, reason, true);
  }
  if (ROOM_ENDED.has(e.closeCode) && (e.spectator || e.gameOver)) return stop(true, closedBecause(e.closeCode));
  const reason = closedBecause(e.closeCode, e.error);
  if (!(e.welcomed || e.everWelcomed) || !shouldReconnect(e.closeCode)) return stop(false, reason, refused);
  return retry(e, policy, jitter, reason, false);
}

function retry(e, policy, jitter, reason, slow) {
  if (e.troubleFor > policy.giveUpAfter) return stop(false, said("close.gave_up", { reason }));
  const delay = slow
    ? backoffDelay(e.attempt, policy.storeBase, policy.storeCap, jitter)
    : backoffDelay(e.attempt, policy.base, policy.cap, jitter);
  return { kind: "retry", delay, reason, reopen: e.holdsToken ? "resume" : e.spectator ? "watch" : "first" };
}

/** The page's own WebSocket: ws: for http:, wss: for https:, same host, port and folder. */
export function socketUrl(location) {
  const url = new URL(".", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  url.search = "";
  return url.href;
}

/** How long a socket opened ahead (`warm`) may wait for its opening message and still be
 * used: the server closes one that sends nothing for 30 s (close 4005, PROTOCOL.md). */
export const WARM_SECONDS = 20;

/** A WebSocket to `url` opened ahead of its opening message, while the join page waits
 * for a name: "Sit down" then costs the join's round trip alone, not the TCP, TLS and
 * WebSocket handshakes' three before it (docs/performance.md, "The remote relative").
 * {ws, at (seconds)}, for a Connection's `warm`; null if it cannot be made. */
export function warm(url, { WebSocketImpl = globalThis.WebSocket, now = () => performance.now() / 1000 } = {}) {
  try {
    const ws = new WebSocketImpl(url);
    ws.binaryType = "arraybuffer";
    ws.onerror = ws.onclose = () => {}; // nobody's until a Connection takes it
    return { ws, at: now() };
  } catch {
    return null;
  }
}

/** Close a socket opened ahead that will not be used. */
export const dropWarm = (warmed) => warmed?.ws.close(1000);

export class Connection {
  // {url, opening (create_room, join_room or watch_room; v is added), seats (a SeatStore),
  // onEvent, resumeOnly (a refused stored seat is not replaced by a new one), fair (a fair.js Fair:
  // this page's seeds, and the check at game over), warm (a socket opened ahead: `warm`, used
  // for the first opening if still open and younger than WARM_SECONDS)}; and, for
  // tests, policy, WebSocketImpl, setTimer, clearTimer, now (seconds), random.
  constructor(options) {
    Object.assign(this, {
      seats: null,
      fair: null,
      warm: null,
      policy: POLICY,
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
    this.ws = this.token = this.refusal = this.troubleSince = this.timer = this.second = this.secondTimer = null;
    this.isOpen = this.everWelcomed = this.closing = this.left = this.ended = false;
    this.code = this.opening.type === "join_room" ? this.opening.code : null;
    // whose seat this connection keeps: the name joined with, then the seat's name
    this.seatName = this.opening.name ?? null;
    this.attempt = 0;
  }

  start() {
    this.current = this.firstOpening();
    this.storedSeat = this.current.type === "resume_seat" && !this.resumeOnly;
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
    if (this.fair?.autoFirst(message, this.view)) this.send({ type: "ready", step: 0 }); // the seed goes first
    if (this.fair !== null) message = this.fair.outgoing(message, this.view);
    if (message.type === "rematch" && message.seed_commitment) this.keepSeed();
    this.put(encodeClientMessage(message));
    return true;
  }

  /** Send a frame on the connection, and on its second path once that is told `after`. */
  put(bytes) {
    this.ws.send(bytes);
    this.sent += 1;
    const second = this.second;
    if (second?.told && second.ws.readyState === 1) second.ws.send(bytes);
  }

  close() {
    this.closing = true;
    this.dropSecond();
    if (this.timer !== null) {
      this.clearTimer(this.timer);
      this.timer = null;
      this.end(stop(true, said("close.closed")), null);
    }
    this.ws?.close(1000);
  }

  /** Waiting to reconnect? Try now (the network is back, the page is visible again). */
  retryNow() {
    if (this.timer === null || this.ended) return;
    this.clearTimer(this.timer);
    this.timer = null;
    this.current = this.reopening(this.reopen);
    this.connect();
  }

  get waiting() {
    return this.timer !== null;
  }

  /** The socket opened ahead, if it can still carry the opening (once). */
  takeWarm() {
    const warmed = this.warm;
    this.warm = null;
    if (warmed === null) return null;
    if (warmed.ws.readyState <= 1 && this.now() - warmed.at < WARM_SECONDS) return warmed.ws;
    dropWarm(warmed);
    return null;
  }

  connect() {
    this.dropSecond();
    const ws = this.takeWarm() ?? new this.WebSocketImpl(this.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    // every message counted from the opening, merged with those of a second path
    this.merge = new PathMerge();
    this.sent = this.pathTries = 0;
    this.isOpen = false;
    this.refusal = null;
    let opened = false;
    let welcomedHere = false;
    ws.onopen = () => {
      opened = true;
      this.fair?.connected(); // its first message, a welcome, may excuse the steps missed
      this.put(encodeClientMessage(this.current));
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      for (const data of this.merge.receive(FIRST, event.data)) welcomedHere = this.received(ws, data, event.timeStamp) || welcomedHere;
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.dropSecond();
      this.ws = null;
      this.isOpen = false;
      // A browser says no more than this when a connection could not be made at all.
      const unreachable = opened ? null : said("close.no_answer");
      this.closed({ unreachable, closeCode: opened ? event.code || null : null, welcomed: welcomedHere });
    };
    ws.onerror = () => {}; // a close event follows and says what happened
    if (ws.readyState === 1) ws.onopen(); // opened ahead (warm)
  }

  received(ws, data, at) {
    let message;
    try {
      message = decodeServerMessage(data);
    } catch (error) {
      this.emit({ kind: "notice", text: said("close.bad_message", { problem: error.message }) });
      return false;
    }
    if (message.type === "error" && (!welcomed(this.view) || message.code === "store_unavailable")) {
      this.refusal = message; // what the close that follows is about
    }
    if (message.type === "welcome") this.welcomed(message);
    const before = this.view;
    this.view = apply(this.view, message);
    if (this.view.needs_resync && !before.needs_resync && ws.readyState === 1) this.put(encodeClientMessage({ type: "resync" }));
    const check = this.fair?.follow(message, this.view) ?? null;
    const due = this.fair?.revealDue(this.view) ?? null;
    if (due !== null) this.send(due);
    const fresh = this.fair?.commitDue(this.view) ?? null; // a void: a fresh seed, kept first
    fresh?.then((commit) => {
      this.keepSeed();
      this.send(commit);
    });
    this.emit({ kind: "received", message, before, view: this.view, at, check, fingerprint: this.fair?.fingerprint ?? null });
    return message.type === "welcome";
  }

  welcomed(welcome) {
    this.everWelcomed = true;
    this.isOpen = true;
    this.pathKey = welcome.path_key;
    if (this.pathKey !== null && this.second === null) this.openSecond();
    if (welcome.token !== null && welcome.seat !== null) {
      this.token = welcome.token;
      this.code = welcome.player_code ?? this.code;
      this.seatName = welcome.state.seats[welcome.seat]?.name ?? this.seatName;
      this.fair?.place(welcome, this.current.type !== "resume_seat"); // kept with the token next
      this.keepSeat(welcome);
    }
  }

  /** The second path (PROTOCOL.md §11): another socket that says `second_path` with the
   * welcome's key, then carries every message both ways, the first copy of each counting;
   * opened again after 2, 4, 8 s when it closes (three times), closed with the first. */
  openSecond() {
    const first = this.ws;
    const ws = new this.WebSocketImpl(this.url);
    ws.binaryType = "arraybuffer";
    const path = (this.second = { ws, told: false, ready: false });
    const ours = () => this.second === path && this.ws === first;
    ws.onopen = () => {
      if (!ours()) return ws.close(1000);
      ws.send(encodeClientMessage({ type: "second_path", v: PROTOCOL_VERSION, key: this.pathKey, after: this.sent }));
      path.told = true;
    };
    ws.onmessage = (event) => {
      if (!ours()) return;
      if (!path.ready) {
        let ready = null;
        try {
          ready = decodeServerMessage(event.data);
        } catch {} // the close that follows says enough
        if (ready?.type === "second_path_ready") this.merge.attach(ready.after);
        path.ready = this.merge.attached;
        return;
      }
      let due;
      try {
        due = this.merge.receive(SECOND, event.data);
      } catch {
        return ws.close(1000); // out of step: the first brings what it held
      }
      for (const data of due) this.received(first, data, event.timeStamp);
    };
    ws.onclose = (event) => {
      if (this.second !== path) return;
      this.second = null;
      this.merge.detach();
      if (this.ws !== first || this.pathTries >= 3 || event.reason === "first connection closed") return;
      this.secondTimer = this.setTimer(() => {
        this.secondTimer = null;
        if (this.ws === first && this.second === null) this.openSecond();
      }, 2000 * 2 ** this.pathTries++);
    };
  }

  dropSecond() {
    if (this.secondTimer !== null) this.clearTimer(this.secondTimer);
    const second = this.second;
    this.secondTimer = this.second = null;
    this.merge?.detach();
    second?.ws.close(1000);
  }

  closed(session) {
    if (session.welcomed) {
      this.attempt = 0;
      this.troubleSince = null;
    }
    const now = this.now();
    this.troubleSince ??= now;
    const decision = decide(
      {
        url: this.url,
        ...session,
        error: this.refusal,
        everWelcomed: this.everWelcomed,
        holdsToken: this.token !== null && this.view.room !== null,
        storedSeat: this.storedSeat,
        spectator: (welcomed(this.view) && this.view.my_seat === null) || this.opening.type === "watch_room",
        gameOver: this.view.phase === "over",
        closing: this.closing,
        left: this.left,
        attempt: this.attempt,
        troubleFor: now - this.troubleSince,
      },
      this.policy,
      this.random(),
    );
    if (decision.kind === "stop") return this.end(decision, session.closeCode);
    if (decision.kind === "join_anew") {
      this.forgetSeat();
      this.emit({ kind: "notice", text: decision.notice });
      this.current = this.opening;
      this.storedSeat = false;
      return this.connect();
    }
    this.attempt += 1;
    this.reopen = decision.reopen;
    this.emit({ kind: "reconnecting", attempt: this.attempt, delay: decision.delay, reason: decision.reason });
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.current = this.reopening(decision.reopen);
      this.connect();
    }, decision.delay * 1000);
    return undefined;
  }

  end(decision, closeCode) {
    if (this.ended) return;
    this.ended = true;
    this.emit({ kind: "ended", ok: decision.ok, reason: decision.reason, code: decision.code, closeCode });
  }

  emit(event) {
    this.onEvent(event);
  }

  firstOpening() {
    // a join resumes the seat this browser keeps for the code and that name (if any): the
    // other names' seats stay with their tabs (a shared computer)
    const keep = this.opening.type === "join_room";
    const stored = keep ? this.seats?.get(this.opening.code, this.opening.name) : null;
    if (stored) this.fair?.restore(stored);
    return stored ? { type: "resume_seat", v: PROTOCOL_VERSION, room: stored.room, token: stored.token } : this.opening;
  }

  // After a drop: resume the seat, or watch again, or start over, as decided.
  reopening(reopen) {
    if (reopen === "resume" && this.view.room !== null && this.token !== null) {
      return { type: "resume_seat", v: PROTOCOL_VERSION, room: this.view.room, token: this.token };
    }
    if (reopen === "watch" && this.opening.type === "watch_room") return this.opening;
    return this.firstOpening();
  }

  keepSeat(welcome) {
    if (this.seats === null || this.code === null) return;
    const seat = welcome.seat;
    const problem = this.seats.put(this.code, {
      room: welcome.state.room,
      token: welcome.token,
      seat,
      name: this.seatName ?? "",
      ...this.fair?.kept(),
    });
    if (problem !== null) this.emit({ kind: "notice", text: problem });
  }

  // A rematch's (or a void's fresh deal's) seed, kept with the seat token before its
  // commitment goes.
  keepSeed() {
    const stored = this.seats !== null && this.code !== null ? this.seats.get(this.code, this.seatName) : null;
    if (stored) this.seats.put(this.code, { ...stored, ...this.fair.kept() });
  }

  forgetSeat() {
    if (this.seats !== null && this.code !== null) this.seats.forget(this.code, this.seatName);
  }
}
