// The words on the table besides the sentences: the marks on a seat, the rules line, the
// line under the title, and what a key or tap asks for (client/net/intents.py's answers), in
// English and, where the grammar differs, in the other languages.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Catalog } from "../../../client/web/js/catalog.js";
import { cycleAuto, finish, rematch, setAuto, turnOver } from "../../../client/web/js/intents.js";
import { isLoopback, linkBase, localWarning, outsideBase } from "../../../client/web/js/invite.js";
import { lookUp, tableLine } from "../../../client/web/js/lookup.js";
import { encodeClientMessage } from "../../../client/web/js/wire.js";
import { Decoder } from "../../../client/web/js/msgpack.js";
import { dealText, seatMarks, whereLine } from "../../../client/web/js/render.js";
import { rulesLine, rulesSentence } from "../../../client/web/js/sentences.js";
import { DEFAULT_RULES, initialView } from "../../../client/web/js/view.js";
import { loadCatalog } from "./_vectors.mjs";

const catalogs = {};
const words = (tag = "en") => (catalogs[tag] ??= new Catalog(loadCatalog(tag), { strict: true }));
const en = words();
const say = (message, tag = "en") => (message === null || typeof message === "string" ? message : words(tag).say(message));
const marks = (view, record, me, tag = "en") => seatMarks(view, record, me).map(([key, values]) => words(tag).text(key, values));

const decodeClientFrame = (data) => new Decoder().decode(data);

const seat = (n, extra = {}) => ({
  seat: n,
  name: ["Ann", "Ben", "Cy"][n],
  computer: false,
  connected: true,
  ready: false,
  auto: "off",
  out: false,
  count: 26,
  face_up: [],
  face_down: 0,
  finish_vote: false,
  rematch_vote: null,
  ...extra,
});
const table = (extra = {}) => ({
  ...initialView(),
  last_seq: 4,
  my_seat: 0,
  phase: "playing",
  step: 3,
  round: 2,
  seats: [seat(0), seat(1), seat(2, { computer: true, name: "Computer" })],
  rules: { ...DEFAULT_RULES, players: 3 },
  waiting_for: [0, 1],
  ...extra,
});

test("the marks on a seat", () => {
  const view = table({ war_depth: 1, war_seats: [0, 1], waiting_for: [0, 1] });
  assert.deepEqual(marks(view, view.seats[0], 0), ["you", "your turn"]);
  assert.deepEqual(marks(view, view.seats[1], 0), ["not ready"]);
  assert.deepEqual(marks(view, view.seats[2], 0), ["sits out the war"]);
  const away = table({ seats: [seat(0, { auto: "calm" }), seat(1, { connected: false, ready: true, finish_vote: true })] });
  assert.deepEqual(marks(away, away.seats[0], 0), ["you", "auto calm"]);
  assert.deepEqual(marks(away, away.seats[1], 0), ["away", "ready ✓", "voted to finish"]);
  const over = table({ phase: "over", seats: [seat(0, { rematch_vote: "same", out: true })] });
  assert.deepEqual(marks(over, over.seats[0], null), ["out of the game", "rematch: same deal"]);
  assert.deepEqual(marks(table(), { ...seat(1), name: null }, 0), ["waiting for a player"]);
  assert.deepEqual(marks(table({ left: [1] }), seat(1, { computer: true }), 0), ["left", "not ready"]);
});

test("the line under the title", () => {
  assert.equal(whereLine(initialView(), en), "");
  assert.equal(whereLine(table({ spectators: 2, deal: 2n ** 64n - 1n }), en), "round 3 · 2 watching · deal 18 446 744 073 709 551 615");
  assert.equal(whereLine(table({ my_seat: null, spectators: 3, game: 2 }), en), "game 2 · round 3 · you are watching with 2 more");
  assert.equal(whereLine(table({ rules: { ...DEFAULT_RULES, round_limit: 26 }, minutes: null }), en), "round 3 of 26");
  assert.equal(whereLine(table({ rules: { ...DEFAULT_RULES, round_limit: 2 } }), en), "round 3, tie-break");
  assert.equal(whereLine(table({ phase: "over", round: 1 }), en), "1 round");
  assert.equal(whereLine(table({ phase: "waiting", minutes: 10 }), en), "10-minute game");
  assert.equal(whereLine(table({ phase: "waiting", rules: { ...DEFAULT_RULES, round_limit: 50 } }), en), "50-round game");
});

test("what a tap asks for", () => {
  assert.deepEqual(turnOver(table()), { type: "ready", step: 3 });
  assert.equal(say(turnOver(table({ waiting_for: [1] }))), "The game does not need your card now.");
  assert.equal(say(turnOver(table({ my_seat: null }))), "Spectators watch; only players turn over.");
  assert.equal(say(turnOver(table({ phase: "over" }))), "The game is not on.");
  assert.deepEqual(cycleAuto(table()), { type: "set_auto_play", mode: "calm" });
  assert.deepEqual(cycleAuto(table({ seats: [seat(0, { auto: "quick" })] })), { type: "set_auto_play", mode: "off" });
  assert.equal(say(setAuto(table({ phase: "over" }), "calm")), "The game is over.");
  assert.deepEqual(finish(table()), { type: "vote_finish" });
  assert.equal(say(finish(table({ seats: [seat(0, { finish_vote: true })] }))), "You have voted to finish; waiting for the others.");
  assert.equal(say(rematch(table(), "new")), "A rematch comes after game over.");
  assert.deepEqual(rematch(table({ phase: "over" }), "same"), { type: "rematch", deal: "same" });
});

test("a deal number is grouped to be read out", () => {
  assert.equal(dealText(42), "42");
  assert.equal(dealText(1234), "1234");
  assert.equal(dealText(12345), "12 345");
  assert.equal(dealText(2n ** 64n - 1n), "18 446 744 073 709 551 615");
});

test("the rules in one line", () => {
  assert.equal(rulesLine(DEFAULT_RULES, null, { words: en }), "Aces high · 1 down · short loses · shuffled · no limit");
  const four = { ...DEFAULT_RULES, players: 4, face_down: 3, aces: "low", won_cards: "fixed", round_limit: 26, tie_break: "battle" };
  assert.equal(rulesLine(four, null, { words: en }), "Aces low · 3 down · short is out · in order · 26 rounds · ties play on");
  const old = { ...four, both_short: "end", fixed_order: "seat0", short_war: "last_card", round_limit: null };
  assert.equal(rulesLine(old, 10, { words: en }), "Aces low · 3 down · short plays last card · all short ends it · in order, seat 1 first · 10 minutes · ties play on");
});

test("links from a page on this machine warn, or use the server's network address", () => {
  const local = new URL("http://127.0.0.1:8765/#join=K7MX-QD4R");
  assert.ok(isLoopback("127.0.0.1") && isLoopback("localhost") && isLoopback("[::1]") && !isLoopback("192.168.1.20"));
  assert.equal(linkBase(local), "http://127.0.0.1:8765/");
  assert.match(say(localWarning(local, linkBase(local))), /^This page was opened as 127\.0\.0\.1, which works only on this machine/);
  const addresses = ["http://127.0.0.1:8765/", "not a url", "http://192.168.1.20:8765/"];
  assert.equal(linkBase(local, addresses), "http://192.168.1.20:8765/");
  assert.equal(say(localWarning(local, linkBase(local, addresses))), "These links use http://192.168.1.20:8765/, this machine's address on the home network (127.0.0.1 works only on this machine).");
  const lan = new URL("http://192.168.1.20:8765/war/#join=K7MX-QD4R");
  assert.equal(linkBase(lan, ["http://10.0.0.2:8765/"]), "http://192.168.1.20:8765/war/", "a network page keeps its own address");
  assert.equal(localWarning(lan, linkBase(lan)), null);
  // behind a proxy: the server's --public-url, path and all
  assert.equal(linkBase(local, ["https://war.example.org/family/"]), "https://war.example.org/family/");
  // the server listens on this machine alone: say so, and how to start it for the family
  assert.match(say(localWarning(local, linkBase(local, []), [])), /^127\.0\.0\.1 works only on this machine, and relatives' phones cannot reach this server: start it with make run HOST=0\.0\.0\.0 \(war-server --host 0\.0\.0\.0\) for the home network\.$/);
  assert.match(say(localWarning(local, linkBase(local), null)), /^This page was opened as 127\.0\.0\.1/, "a server that did not say");
});

test("with war-server --outside, the house's page gives the outside link for relatives elsewhere", () => {
  const lan = new URL("http://192.168.77.20:8765/#join=K7MX-QD4R");
  assert.equal(outsideBase(lan, "https://203.0.113.2/"), "https://203.0.113.2/");
  assert.equal(outsideBase(new URL("http://127.0.0.1:8765/"), "https://203.0.113.2/"), "https://203.0.113.2/");
  // the relative's own page, opened at the outside link: its own links are the outside ones
  assert.equal(outsideBase(new URL("https://203.0.113.2/#join=K7MX-QD4R"), "https://203.0.113.2/"), null);
  for (const bad of [null, undefined, 7, "not a url", "http://203.0.113.2/", "https://127.0.0.1/"]) {
    assert.equal(outsideBase(lan, bad), null, String(bad));
  }
  // each link says which it is, in every language
  for (const tag of ["en", "es", "fr", "de", "pl"]) {
    const catalog = words(tag);
    for (const key of ["page.join_link_outside", "page.join_link_house", "page.qr_label_house"]) {
      assert.ok(catalog.text(key).length > 0 && !catalog.text(key).includes("page."), `${tag} ${key}`);
    }
  }
});

test("the join page says whose table it is and how many seats are free", () => {
  const info = (extra) => ({ type: "room_info", seq: 3, host: "Grandma", players: 4, free: 2, away: 0, phase: "waiting", ...extra });
  const en = words("en");
  assert.equal(tableLine(info(), en), "Grandma's table — 2 of 4 seats free");
  assert.equal(tableLine(info({ host: "Chris", free: 1, players: 2 }), en), "Chris's table — 1 of 2 seats free");
  assert.equal(tableLine(info({ free: 0, phase: "playing" }), en), "Grandma's table — the game is on and every seat is taken");
  assert.equal(
    tableLine(info({ free: 0, away: 1, phase: "playing" }), en),
    "Grandma's table — the game is on; 1 seat is away: type exactly the name you played under to take yours back",
  );
  assert.equal(tableLine(info({ host: null }), en), "A table — 2 of 4 seats free");
  assert.equal(tableLine(info(), words("pl")), "Stół: Grandma — wolne 2 z 4 miejsc");
  assert.equal(tableLine(info(), words("de")), "Tisch von Grandma — 2 von 4 Plätzen frei");
});

test("a look-up sends look_up and resolves to the room_info, or null without an answer", async () => {
  const sent = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      queueMicrotask(() => this.onopen());
    }
    send(data) {
      sent.push(decodeClientFrame(data));
      const info = { type: "room_info", seq: 2, host: "Ann", players: 2, free: 1, away: 0, phase: "waiting" };
      queueMicrotask(() => {
        this.onmessage({ data: encodeClientMessage(info) });
        this.onclose();
      });
    }
    close() {}
  }
  const answer = await lookUp("ws://127.0.0.1:1/", "K7MX-QD4R", { WebSocketImpl: FakeSocket });
  assert.deepEqual(sent, [{ type: "look_up", v: 1, code: "K7MX-QD4R" }]);
  assert.equal(answer.type, "room_info");
  assert.equal(answer.host, "Ann");
  class Silent {
    constructor() {
      queueMicrotask(() => this.onclose());
    }
    close() {}
  }
  assert.equal(await lookUp("ws://127.0.0.1:1/", "K7MX-QD4R", { WebSocketImpl: Silent }), null);
});

test("the rules of a room stored before 0.3 say that given-back cards go back unshuffled", () => {
  const old = { ...DEFAULT_RULES, players: 4, taken_back: "as_laid" };
  assert.match(rulesSentence(old, null, { words: en }), /their cards go back unshuffled \(the old rule\)\./);
  assert.doesNotMatch(rulesSentence({ ...DEFAULT_RULES, players: 4 }, null, { words: en }), /old rule/);
  assert.doesNotMatch(rulesSentence({ ...old, players: 2 }, null, { words: en }), /old rule/);
  assert.doesNotMatch(rulesSentence({ ...old, won_cards: "fixed" }, null, { words: en }), /old rule/);
});

test("the table's words in the other languages", () => {
  const view = table({ war_depth: 1, war_seats: [0, 1], spectators: 1, rules: { ...DEFAULT_RULES, players: 3, round_limit: 26 } });
  assert.deepEqual(marks(view, view.seats[0], 0, "de"), ["du", "du bist dran"]);
  assert.deepEqual(marks(view, view.seats[2], 0, "pl"), ["poza tą wojną"]);
  assert.equal(whereLine(view, words("pl")), "runda 3 z 26 · ogląda 1");
  assert.equal(whereLine(table({ phase: "waiting", rules: { ...DEFAULT_RULES, round_limit: 22 } }), words("pl")), "gra na 22 rundy");
  for (const tag of ["de", "es", "fr", "pl"]) {
    assert.notEqual(rulesLine(DEFAULT_RULES, null, { words: words(tag) }), rulesLine(DEFAULT_RULES, null, { words: en }), tag);
    assert.notEqual(say(turnOver(table({ my_seat: null })), tag), say(turnOver(table({ my_seat: null }))), tag);
  }
});
