// What the table does again at every message, and what it keeps (docs/performance.md,
// "The browser table"): the flip's sound is made once and played at every flip; the
// invitation is written again only when something it shows changed; the haul's flight
// reads the layout in the next frame, not in the middle of the message.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Alive } from "../../../client/web/js/alive.js";
import { Catalog } from "../../../client/web/js/catalog.js";
import { Invitation } from "../../../client/web/js/invite.js";
import { Table } from "../../../client/web/js/render.js";
import { initialView } from "../../../client/web/js/view.js";
import { loadCatalog } from "./_vectors.mjs";

const en = new Catalog(loadCatalog("en"), { strict: true });

// --- a Web Audio stand-in that counts what is made and started
function audio() {
  const made = { buffers: 0, filters: 0, gains: 0, sources: [], oscillators: 0 };
  const node = (extra = {}) => ({ connect: (next) => next, ...extra });
  const param = () => ({ value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {} });
  class Context {
    constructor() {
      this.state = "running";
      this.sampleRate = 8000;
      this.currentTime = 0;
      this.destination = node();
    }
    createBuffer(channels, length) {
      made.buffers += 1;
      const data = new Float32Array(length);
      return { getChannelData: () => data };
    }
    createBiquadFilter() {
      made.filters += 1;
      return node({ type: "", frequency: param() });
    }
    createGain() {
      made.gains += 1;
      return node({ gain: param() });
    }
    createBufferSource() {
      const source = node({ buffer: null, started: 0 });
      source.start = () => (source.started += 1);
      made.sources.push(source);
      return source;
    }
    createOscillator() {
      made.oscillators += 1;
      return node({ type: "", frequency: param(), start() {}, stop() {} });
    }
  }
  const listeners = {};
  const win = {
    AudioContext: Context,
    addEventListener: (type, listener) => (listeners[type] = listener),
    setTimeout: () => 0, // the context's nap (alive.test.mjs): not in this test
    clearTimeout() {},
    navigator: { vibrate() {} },
    document: { addEventListener() {}, visibilityState: "visible" },
  };
  return { made, win, tap: () => listeners.pointerdown() };
}

test("the flip's sound is made once and played at every flip", () => {
  const { made, win, tap } = audio();
  const alive = new Alive(win);
  alive.hear({ type: "cards_turned" }, 0);
  assert.equal(made.sources.length, 0, "nothing plays before the page was touched");
  tap();
  for (let i = 0; i < 3; i += 1) alive.hear({ type: "cards_turned" }, 0);
  assert.equal(made.sources.length, 3, "every flip is heard");
  assert.deepEqual(made.sources.map((s) => s.started), [1, 1, 1]);
  assert.ok(made.sources.every((s) => s.buffer !== null && s.buffer === made.sources[0].buffer), "the same sound");
  assert.deepEqual([made.buffers, made.filters, made.gains], [1, 0, 0], "made once, nothing live but the source");
  alive.setSound(false);
  alive.hear({ type: "cards_turned" }, 0);
  assert.equal(made.sources.length, 3, "quiet when the sound is off");
});

// --- a document stand-in that counts every text written
function page(href = "http://192.168.1.20:8765/") {
  const nodes = new Map();
  const writes = [];
  const element = (id) => {
    let text = "";
    return {
      id,
      hidden: false,
      open: false,
      classList: { toggle() {} },
      attributes: {},
      setAttribute(name, value) {
        this.attributes[name] = value;
      },
      get textContent() {
        return text;
      },
      set textContent(value) {
        writes.push(id);
        text = value;
      },
      replaceChildren(...children) {
        writes.push(id);
        text = children.map((child) => child.textContent).join("");
      },
    };
  };
  const doc = {
    location: { href },
    createTextNode: (textContent) => ({ textContent }),
    createElement: () => ({}),
    defaultView: { navigator: {} },
    querySelectorAll: () => [],
    getElementById: (id) => {
      if (!nodes.has(id)) nodes.set(id, element(id));
      return nodes.get(id);
    },
  };
  return { doc, writes, node: (id) => doc.getElementById(id) };
}

const playing = (extra = {}) => ({
  ...initialView(),
  last_seq: 4,
  my_seat: 0,
  phase: "playing",
  player_code: "K7MX-QD4R",
  watch_code: "9HWT-2CBN",
  seats: [{ seat: 0, name: "Ann" }, { seat: 1, name: "Computer" }],
  ...extra,
});

test("the invitation is written again only when what it shows changed", () => {
  const { doc, writes, node } = page();
  const invitation = new Invitation(doc);
  invitation.draw(playing(), en);
  assert.equal(node("watch-link").textContent, "http://192.168.1.20:8765/#watch=9HWT-2CBN");
  assert.equal(node("share-title").textContent, "Let others watch");
  assert.ok(writes.length > 0);
  writes.length = 0;
  for (let step = 1; step < 5; step += 1) invitation.draw(playing({ step, round: step }), en);
  assert.deepEqual(writes, [], "a game's messages leave it alone");
  invitation.draw(playing({ watch_code: "ABCD-EFGH" }), en);
  assert.equal(node("watch-link").textContent, "http://192.168.1.20:8765/#watch=ABCD-EFGH");
  writes.length = 0;
  invitation.draw(playing({ watch_code: "ABCD-EFGH", my_seat: null }), en);
  assert.equal(node("share").hidden, true, "a spectator has no invitation");
  invitation.draw(playing({ watch_code: "ABCD-EFGH" }), en);
  assert.equal(node("share").hidden, false);
  assert.ok(writes.includes("watch-link"), "shown again, written again");
});

test("the server's addresses redraw the links", () => {
  const { doc, node } = page("http://127.0.0.1:8765/");
  const invitation = new Invitation(doc);
  invitation.draw(playing(), en);
  assert.equal(node("watch-link").textContent, "http://127.0.0.1:8765/#watch=9HWT-2CBN");
  assert.match(node("local-warning").textContent, /127\.0\.0\.1, which works only on this machine/);
  invitation.useAddresses(["http://192.168.1.20:8765/"]);
  invitation.draw(playing(), en);
  assert.equal(node("watch-link").textContent, "http://192.168.1.20:8765/#watch=9HWT-2CBN");
});

test("an outside link adds the link for relatives elsewhere; the QR code stays the house's", () => {
  const { doc, node } = page();
  const invitation = new Invitation(doc);
  const qrs = [];
  invitation.drawQr = (link) => qrs.push(link); // the QR module needs a real document
  const waiting = playing({ phase: "waiting", seats: [{ seat: 0, name: "Ann" }, { seat: 1, name: null }] });
  invitation.draw(waiting, en);
  assert.equal(node("share-outside").hidden, true);
  invitation.useOutside("https://203.0.113.2/");
  invitation.draw(waiting, en);
  assert.equal(node("share-outside").hidden, false);
  assert.equal(node("outside-link").textContent, "https://203.0.113.2/#join=K7MX-QD4R");
  assert.equal(node("join-link").textContent, "http://192.168.1.20:8765/#join=K7MX-QD4R");
  assert.equal(node("qr").attributes["aria-label"], "QR code of the link for phones in this house");
  assert.ok(qrs.length > 0 && qrs.every((link) => link === "http://192.168.1.20:8765/#join=K7MX-QD4R"), String(qrs));
  invitation.useOutside(null); // the router lost the mapping: the house's link alone
  invitation.draw(waiting, en);
  assert.equal(node("share-outside").hidden, true);
  assert.equal(node("qr").attributes["aria-label"], "QR code of the link for players");
});

// --- the haul's flight: set off in the next frame, every position read before a flyer is added
function flightPage() {
  const log = [];
  const frames = new Map();
  let next = 0;
  const box = (name, left) => ({
    isConnected: true,
    dataset: {},
    getBoundingClientRect: () => (log.push(`read ${name}`), { left, top: 100, width: 50, height: 70 }),
    animate: () => ({ finished: new Promise(() => {}), cancel: () => log.push("cancel") }),
  });
  const doc = {
    defaultView: {
      requestAnimationFrame: (callback) => (frames.set((next += 1), callback), next),
      cancelAnimationFrame: (id) => frames.delete(id),
    },
    createElement: () => ({ style: {}, setAttribute() {}, remove() {}, animate: () => ({ finished: new Promise(() => {}), cancel() {} }) }),
    body: { append: () => log.push("add flyer") },
  };
  const panels = [0, 1].map((seat) => ({ node: { dataset: { seat: String(seat) } }, cards: box(`cards ${seat}`, seat * 100), pile: box(`pile ${seat}`, seat * 100) }));
  const frame = () => {
    const waiting = [...frames.values()];
    frames.clear();
    for (const callback of waiting) callback();
  };
  return { doc, log, frames, panels, frame };
}

const hauled = (taken) => ({ phase: "playing", last_taken: taken });
const haul = { seat: 1, count: 2, face_up: { 0: [["Q", "s"]], 1: [["9", "h"]] }, face_down: {} };

test("the haul flies from the next frame on: nothing is read from the layout while the message is drawn", () => {
  const { doc, log, frames, panels, frame } = flightPage();
  const table = new Table(doc, { words: en });
  table.panels = panels;
  table.fly(hauled(haul));
  assert.deepEqual(log, [], "no position read (a forced layout) during the message");
  assert.equal(frames.size, 1, "asked for the next frame");
  frame();
  assert.deepEqual(log, ["read pile 1", "read cards 0", "read cards 1", "add flyer", "add flyer"], "every read before the first write");
  assert.equal(table.flights.length, 2);
});

test("a haul that is followed before its frame does not fly", () => {
  const { doc, log, frames, panels } = flightPage();
  const table = new Table(doc, { words: en });
  table.panels = panels;
  table.fly(hauled(haul));
  table.fly(hauled(null)); // the next round began before the frame
  assert.equal(frames.size, 0, "its frame was given back");
  assert.deepEqual(log, []);
  table.fly(hauled({ ...haul }));
  table.reset(false); // a new room
  assert.equal(frames.size, 0);
});
