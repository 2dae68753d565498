// The join page's look-up (PROTOCOL.md, look_up): whose table a player code opens and how
// many seats are free, asked on a connection of its own before a name is typed.

import { named, said } from "./catalog.js";
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
export async function sayTable(node, url, code, still, watch, words) {
  const answer = await lookUp(url, code);
  if (answer === null || !still()) return;
  if (answer.type === "room_info") {
    node.textContent = tableLine(answer, words());
    node.hidden = false;
  } else if (answer.code === "watch_code") {
    watch();
  }
}

/** What the join page says of a looked-up table in `w`: "Grandma's table — 2 of 4 seats free". */
export function tableLine(info, w) {
  const whose = info.host === null ? said("page.lookup_nobody") : said("page.lookup_host", { who: named(info.host) });
  if (info.phase === "waiting") return w.text("page.lookup_waiting", { whose, free: info.free, players: info.players });
  const phase = info.phase === "over" ? "over" : "on";
  if (!info.away) return w.text("page.lookup_full", { whose, phase });
  return w.text("page.lookup_away", { whose, phase, count: info.away });
}
