// Sitting down as the page does it (client/web/js/address.js, forms.js, ending.js): where
// the address leads, the create_room message the create form makes (or why not, in the
// viewer's words), a code as typed, and a connection that could not reach the server.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { parseFragment } from "../../../client/web/js/address.js";
import { Catalog, said } from "../../../client/web/js/catalog.js";
import { cannotReach } from "../../../client/web/js/ending.js";
import { roomOpening, typedCode } from "../../../client/web/js/forms.js";
import { Decoder } from "../../../client/web/js/msgpack.js";
import { MAX_DEAL, MAX_MINUTES, MAX_ROUND_LIMIT } from "../../../client/web/js/vocabulary.js";
import { encodeClientMessage } from "../../../client/web/js/wire.js";
import { LANGUAGES, WEB, loadCatalog } from "./_vectors.mjs";

const en = new Catalog(loadCatalog("en"), { strict: true });

/** The create form as index.html fills it by default, with `changes`. */
function createForm(changes = {}) {
  const values = {
    players: "2",
    computers: "0",
    face_down: "1",
    short_war: "lose",
    won_cards: "shuffle",
    aces: "high",
    limit: "none",
    limit_number: "",
    tie_break: "draw",
    talk: "players",
    deal: "",
    password: "",
    ...changes,
  };
  const form = new FormData();
  for (const [name, value] of Object.entries(values)) form.append(name, value);
  return form;
}

test("the address leads to a players' link, a watch link, or the start page", () => {
  assert.deepEqual(parseFragment("#join=K7MX-QD4R"), ["join", "K7MX-QD4R"]);
  assert.deepEqual(parseFragment("#watch=9hwt-2cbn"), ["watch", "9HWT-2CBN"]);
  assert.deepEqual(parseFragment("#join=ABCD"), ["join", "ABCD"]);
  assert.deepEqual(parseFragment(`#join=${"A".repeat(32)}`), ["join", "A".repeat(32)]);
  for (const hash of ["", "#", "#join=", "#join=ABC", `#join=${"A".repeat(33)}`, "#join=K7MX QD4R", "#play=K7MX", "join=K7MX", "#join=K7MX&x=1"]) {
    assert.deepEqual(parseFragment(hash), [null, null], hash);
  }
});

test("every field the create form's opening reads is in index.html's create form", () => {
  const html = readFileSync(join(WEB, "index.html"), "utf8");
  const form = html.slice(html.indexOf('id="create-form"'), html.indexOf("</form>", html.indexOf('id="create-form"')));
  const names = new Set([...form.matchAll(/name="([a-z_]+)"/g)].map((match) => match[1]));
  assert.deepEqual([...names].sort(), Object.keys(Object.fromEntries(createForm())).sort());
});

test("the create form's defaults make a two-player room with the default rules", () => {
  const opening = roomOpening(createForm(), "Oma");
  const rules = { players: 2, face_down: 1, aces: "high", short_war: "lose", won_cards: "shuffle", tie_break: "draw" };
  assert.deepEqual(opening, { type: "create_room", name: "Oma", rules, computers: 0, talk: "players" });
});

test("the computers are at most the other seats", () => {
  assert.equal(roomOpening(createForm({ players: "3", computers: "3" }), "Oma").computers, 2);
  assert.equal(roomOpening(createForm({ players: "4", computers: "2" }), "Oma").computers, 2);
});

test("a time limit in minutes, a round limit typed or picked, or none", () => {
  const minutes = roomOpening(createForm({ limit: "minutes", limit_number: "15" }), "Oma");
  assert.equal(minutes.minutes, 15);
  assert.equal("round_limit" in minutes.rules, false);
  assert.equal(roomOpening(createForm({ limit: "rounds", limit_number: "300" }), "Oma").rules.round_limit, 300);
  assert.equal(roomOpening(createForm({ limit: "50" }), "Oma").rules.round_limit, 50);
  const none = roomOpening(createForm(), "Oma");
  assert.equal("minutes" in none || "round_limit" in none.rules, false);
});

test("a limit out of range is refused in the viewer's words, naming the most", () => {
  for (const [limit, number, most] of [
    ["minutes", "0", MAX_MINUTES],
    ["minutes", String(MAX_MINUTES + 1), MAX_MINUTES],
    ["minutes", "1.5", MAX_MINUTES],
    ["minutes", "", MAX_MINUTES],
    ["rounds", String(MAX_ROUND_LIMIT + 1), MAX_ROUND_LIMIT],
  ]) {
    const refusal = roomOpening(createForm({ limit, limit_number: number }), "Oma");
    assert.deepEqual(refusal, said("page.bad_limit", { what: limit, most }), `${limit} ${number}`);
    assert.ok(en.say(refusal).length > 0);
  }
  assert.equal(roomOpening(createForm({ limit: "minutes", limit_number: String(MAX_MINUTES) }), "Oma").minutes, MAX_MINUTES);
});

test("a deal is read exactly, spaces left out, up to the largest 64-bit one", () => {
  assert.equal(roomOpening(createForm({ deal: "12 345" }), "Oma").deal, 12345);
  assert.equal(roomOpening(createForm({ deal: String(Number.MAX_SAFE_INTEGER) }), "Oma").deal, Number.MAX_SAFE_INTEGER);
  assert.equal(roomOpening(createForm({ deal: String(MAX_DEAL) }), "Oma").deal, MAX_DEAL);
  for (const deal of [String(MAX_DEAL + 1n), "-1", "1e5", "0x10", "123456789012345678901"]) {
    const refusal = roomOpening(createForm({ deal }), "Oma");
    assert.deepEqual(refusal, said("page.bad_deal", { most: String(MAX_DEAL) }), deal);
  }
});

test("a password goes with the opening only when one is typed", () => {
  assert.equal(roomOpening(createForm({ password: "geheim" }), "Oma").password, "geheim");
  assert.equal("password" in roomOpening(createForm(), "Oma"), false);
});

test("the opening goes out on the wire with a 64-bit deal as an integer", () => {
  const opening = roomOpening(createForm({ players: "3", computers: "1", limit: "minutes", limit_number: "30", deal: String(MAX_DEAL) }), "Oma");
  const sent = new Decoder({ useBigInt64: true }).decode(encodeClientMessage(opening));
  assert.equal(sent.type, "create_room");
  assert.equal(BigInt(sent.deal), MAX_DEAL);
  assert.equal(sent.minutes, 30);
  assert.deepEqual(sent.rules, opening.rules);
});

test("a code is typed in any case, with spaces around it, or refused", () => {
  const typed = (code) => {
    const form = new FormData();
    form.append("code", code);
    return typedCode(form);
  };
  assert.equal(typed("  k7mx-qd4r "), "K7MX-QD4R");
  assert.equal(typed("ABCD"), "ABCD");
  for (const code of ["", "ABC", "K7MX QD4R", "K7MX_QD4R", "A".repeat(33), "ÄBCD"]) assert.equal(typed(code), null, code);
});

test("the server could not be reached: at once, or when reconnecting gave up", () => {
  const connect = said("close.cannot_connect");
  const reach = said("close.cannot_reach");
  assert.equal(cannotReach(connect), true);
  assert.equal(cannotReach(reach), true);
  assert.equal(cannotReach(said("close.gave_up", { reason: reach })), true);
  assert.equal(cannotReach(said("close.gave_up", { reason: said("close.closed") })), false);
  assert.equal(cannotReach(said("close.closed")), false);
});

test("every refusal the forms can give is said in every language", () => {
  for (const tag of LANGUAGES) {
    const words = new Catalog(loadCatalog(tag), { strict: true });
    for (const refusal of [roomOpening(createForm({ limit: "rounds", limit_number: "0" }), "Oma"), roomOpening(createForm({ deal: "-1" }), "Oma")]) {
      assert.ok(words.say(refusal).length > 0, `${tag} ${refusal.key}`);
    }
  }
});

test("a players' link preloads what sitting down needs as the page starts; no other page does", async () => {
  const { JOIN_NEEDS, preloadNext } = await import("../../../client/web/js/address.js");
  const preloaded = (hash) => {
    const links = [];
    const doc = { createElement: () => ({}), head: { append: (link) => links.push(link) } };
    preloadNext(doc, hash);
    return links.map((link) => [link.rel, new URL(link.href).pathname.split("/js/")[1]]);
  };
  assert.deepEqual(JOIN_NEEDS, ["./lookup.js", "./fair.js"]);
  assert.deepEqual(preloaded("#join=K7MX-QD4R"), [
    ["modulepreload", "lookup.js"],
    ["modulepreload", "fair.js"],
  ]);
  for (const hash of ["", "#watch=9HWT-2CBN", "#join=", "#elsewhere"]) assert.deepEqual(preloaded(hash), [], hash);
});

