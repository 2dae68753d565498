// A game's words wait for a game (client/web/js/session.js, `held`; lang.js, `more`): the
// server sends a catalog without its `game` part (lang/<tag>.game.json), and from the first
// message of a game that is on, the page holds the connection's events, in order, until
// that part and fairview.js are in, or could not be had; a waiting room never fetches it.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Catalog } from "../../../client/web/js/catalog.js";
import { settled } from "../../../client/web/js/lang.js";
import { held, whenHeard } from "../../../client/web/js/session.js";
import { loadCatalog } from "./_vectors.mjs";

/** Some of the `game` part's entries (the server's list: server.adapters.web.compact
 * LATER_PARTS; tests/server/adapters/test_web.py checks the whole of it). */
const GAME = ["figures", "result", "summary", "votes", "said.takes", "status.turn"];

/** The catalog `tag` as the server sends it: without the entries of its `game` part; and
 * that part, as lang/<tag>.game.json holds it. */
function served(tag) {
  const data = loadCatalog(tag);
  const part = {};
  for (const entry of GAME) {
    const [section, key] = entry.split(".");
    if (key === undefined) {
      part[section] = data.messages[section];
      delete data.messages[section];
    } else {
      part[section] = { ...part[section], [key]: data.messages[section][key] };
      delete data.messages[section][key];
    }
  }
  return [new Catalog(data), { messages: part }];
}

/** A page as session.js sees it, whose `hear` records each event it hears; `heard(n)`
 * resolves once it heard `n`. */
function page(words) {
  const element = () => ({ hidden: false, onclick: null, textContent: "", replaceChildren() {}, append() {} });
  const doc = { getElementById: element, createElement: element };
  const fair = { printing: null, fingerprint: null, game: null, noSeed: () => [] };
  const loadFairView = () => import("../../../client/web/js/fairview.js");
  const p = { doc, words, fair, loadFairView, fairView: null, held: null, entered: 1, connection: {}, events: [], waiters: [] };
  p.hear = (event) => {
    if (held(p, event)) return;
    p.events.push(event);
    for (const [n, resolve] of p.waiters) if (p.events.length >= n) resolve();
  };
  p.heard = (n) => new Promise((resolve) => (p.events.length >= n ? resolve() : p.waiters.push([n, resolve])));
  return p;
}

const OPEN = [
  { seat: 0, name: "Grandma" },
  { seat: 1, name: null },
];
const FULL = [
  { seat: 0, name: "Grandma" },
  { seat: 1, name: "Ben" },
];
const received = (type, phase, id = type, seats = OPEN) => ({ kind: "received", message: { type, id }, view: { phase, seats } });

test("a waiting room hears at once and fetches nothing; a game's events wait for its words, in order", async (t) => {
  const [words, part] = served("fr");
  const asked = [];
  let answer;
  const answered = new Promise((resolve) => (answer = resolve));
  t.mock.method(globalThis, "fetch", async (url) => {
    asked.push(url.pathname.split("/").slice(-2).join("/"));
    await answered;
    return { ok: true, json: async () => part };
  });
  const p = page(words);
  p.hear(received("player_joined", "waiting"));
  assert.deepEqual(p.events.map((e) => e.message.type), ["player_joined"]);
  assert.deepEqual(asked, [], "a waiting room loads no game words");
  assert.equal(words.text("said.takes", {}), "said.takes", "not there yet");
  p.hear(received("game_started", "playing"));
  p.hear({ kind: "notice", text: "x" });
  p.hear(received("cards_taken", "playing"));
  assert.equal(p.events.length, 1, "held until the words are in");
  answer();
  await p.heard(4);
  assert.deepEqual(p.events.map((e) => e.message?.type ?? e.kind), ["player_joined", "game_started", "notice", "cards_taken"]);
  assert.deepEqual(asked, ["lang/fr.game.json"]);
  assert.ok(settled(words, "game"));
  assert.equal(words.text("said.rules", { rules: "x" }), new Catalog(loadCatalog("fr")).text("said.rules", { rules: "x" }));
  assert.notEqual(words.text("said.takes", { who: { person: "you" }, cards: 2 }), "said.takes");
  assert.equal(p.fairView?.constructor.name, "FairView");
  p.hear(received("cards_taken", "playing"));
  assert.equal(p.events.length, 5, "then heard at once");
  assert.equal(asked.length, 1);
});

test("offline, a game's events are heard all the same (said by their keys), and the page does not ask again", async (t) => {
  const [words] = served("de");
  let asked = 0;
  t.mock.method(globalThis, "fetch", async () => {
    asked += 1;
    throw new TypeError("offline");
  });
  const p = page(words);
  p.hear(received("game_started", "playing"));
  await p.heard(1);
  p.hear(received("cards_taken", "playing"));
  assert.equal(p.events.length, 2);
  assert.equal(asked, 1);
});

test("a waiting room whose last seat is taken fetches the game's words ahead, and hears at once", async (t) => {
  const [words, part] = served("pl");
  const asked = [];
  t.mock.method(globalThis, "fetch", async (url) => {
    asked.push(url.pathname.split("/").slice(-2).join("/"));
    return { ok: true, json: async () => part };
  });
  const p = page(words);
  p.hear(received("player_joined", "waiting", "joined", FULL));
  assert.equal(p.events.length, 1, "not held");
  assert.deepEqual(asked, ["lang/pl.game.json"]);
  p.hear(received("game_started", "playing", "started", FULL));
  await p.heard(2);
  assert.deepEqual(asked, ["lang/pl.game.json"], "fetched once");
});

test("events of a room left meanwhile are not heard", async (t) => {
  const [words, part] = served("en");
  let answer;
  const answered = new Promise((resolve) => (answer = resolve));
  t.mock.method(globalThis, "fetch", async () => {
    await answered;
    return { ok: true, json: async () => part };
  });
  const p = page(words);
  p.hear(received("game_started", "playing", "the room left"));
  p.entered += 1; // another room (session.js, enter)
  p.held = null;
  p.hear(received("player_joined", "waiting")); // the new room's first event: heard at once
  answer();
  await Promise.all([import("../../../client/web/js/fairview.js"), answered]);
  p.hear(received("game_started", "playing", "the new room's")); // waits for the same fetch
  await p.heard(2);
  assert.deepEqual(p.events.map((e) => e.message.id), ["player_joined", "the new room's"]);
});

test("a key pressed while a game's first events wait acts once they are heard, on the table they make", async (t) => {
  const [words, part] = served("es");
  let answer;
  const answered = new Promise((resolve) => (answer = resolve));
  t.mock.method(globalThis, "fetch", async () => {
    await answered;
    return { ok: true, json: async () => part };
  });
  const p = page(words);
  p.hear(received("game_started", "playing"));
  const acted = [];
  const done = new Promise((resolve) => whenHeard(p, () => resolve(acted.push(p.events.length))));
  assert.deepEqual(acted, [], "not while held");
  answer();
  await done;
  assert.deepEqual(acted, [1], "after the game's first message was heard");
  whenHeard(p, () => acted.push("now"));
  assert.deepEqual(acted, [1, "now"], "at once when nothing waits");
});
