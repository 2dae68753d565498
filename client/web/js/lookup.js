// The join page's look-up (PROTOCOL.md, look_up): whose table a player code opens and how
// many seats are free, asked on a connection of its own before a name is typed.

import { decodeServerMessage, encodeClientMessage, PROTOCOL_VERSION, WireError } from "./wire.js";

const LOOK_UP_MS = 10_000; // a server that does not answer: the page just says nothing

/** Ask the server at `url` (a ws:// URL) what player `code` opens. Resolves to the
 * `room_info` message, an `error` message (unknown_code, watch_code, too_many_failures…),
 * or null when nothing usable came back; never rejects. */
export function lookUp(url, code, { WebSocketImpl = globalThis.WebSocket, setTimer = setTimeout, clearTimer = clearTimeout } = {}) {
  return new Promise((resolve) => {
    let ws;
    try {
      ws = new WebSocketImpl(url);
    } catch {
      resolve(null);
      return;
    }
    ws.binaryType = "arraybuffer";
    let answer = null;
    const done = () => {
      clearTimer(timer);
      resolve(answer);
    };
    const timer = setTimer(() => {
      ws.close();
      done();
    }, LOOK_UP_MS);
    ws.onopen = () => ws.send(encodeClientMessage({ type: "look_up", v: PROTOCOL_VERSION, code }));
    ws.onmessage = (event) => {
      try {
        const message = decodeServerMessage(event.data);
        if (answer === null && (message.type === "room_info" || message.type === "error")) answer = message;
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
      }
    };
    ws.onerror = () => {};
    ws.onclose = done;
  });
}

/** Say in `node` whose table player `code` opens (`url`: the server's ws:// URL), if
 * `still()` the page shows that code; `watch()` when it is a watch code. */
export async function sayTable(node, url, code, still, watch) {
  const answer = await lookUp(url, code);
  if (answer === null || !still()) return;
  if (answer.type === "room_info") {
    node.textContent = tableLine(answer);
    node.hidden = false;
  } else if (answer.code === "watch_code") {
    watch();
  }
}

const possessive = (name) => (/s$/i.test(name) ? `${name}'` : `${name}'s`);

/** What the join page says of a looked-up table: "Grandma's table — 2 of 4 seats free". */
export function tableLine(info) {
  const whose = info.host === null ? "A table" : `${possessive(info.host)} table`;
  if (info.phase === "waiting") {
    const free = info.free === 1 ? "1 of" : `${info.free} of`;
    return `${whose} — ${free} ${info.players} seats free`;
  }
  const on = info.phase === "over" ? "the game is over" : "the game is on";
  if (!info.away) return `${whose} — ${on} and every seat is taken`;
  const away = info.away === 1 ? "1 seat is away" : `${info.away} seats are away`;
  return `${whose} — ${on}; ${away}: type exactly the name you played under to take yours back`;
}
