// The fair deal's fingerprint line on the page (fairview.js), drawn into a small stand-in
// for the document: said again at once in a language picked meanwhile, its sentences
// apart, and the seats that add no seed named in the viewer's words.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Catalog } from "../../../client/web/js/catalog.js";
import { FairView } from "../../../client/web/js/fairview.js";
import { checkSaid } from "../../../client/web/js/fairwords.js";
import { initialView, seatPerson } from "../../../client/web/js/view.js";
import { loadCatalog } from "./_vectors.mjs";

const words = (tag) => new Catalog(loadCatalog(tag), { strict: true });

class Node {
  constructor() {
    this.hidden = false;
    this.children = [];
    this.classList = { toggle() {} };
  }
  set textContent(text) {
    this.children = [String(text)];
  }
  get textContent() {
    return this.children.map((c) => (typeof c === "string" ? c : c.textContent)).join("");
  }
  replaceChildren(...nodes) {
    this.children = nodes;
  }
  append(...nodes) {
    this.children.push(...nodes);
  }
}

function page() {
  const nodes = new Map();
  return {
    getElementById: (id) => nodes.get(id) ?? nodes.set(id, new Node()).get(id),
    createElement: () => new Node(),
  };
}

const FINGERPRINT = "1f2e-3d4c";
const seat = (n, name, extra = {}) => ({ seat: n, name, computer: false, computer_number: null, connected: true, ...extra });
const table = {
  ...initialView(),
  phase: "playing",
  seats: [seat(0, "Ann"), seat(1, "Computer 1", { computer: true, computer_number: 1 }), seat(2, "Computer 2", { computer: true, computer_number: 2 })],
};
const fair = { game: null, noSeed: () => [1, 2] };

test("the fingerprint line is said again in the language picked, without waiting for a message", () => {
  const doc = page();
  const view = new FairView(doc, fair, words("en"));
  view.printLine(table, FINGERPRINT);
  const line = doc.getElementById("fingerprint");
  assert.equal(
    line.textContent,
    `Deal fingerprint ${FINGERPRINT} — everyone at the table should see the same. No seed from Computer 1 and Computer 2: the deal does not depend on those seats.`,
  );
  view.speak(words("es"));
  assert.equal(
    line.textContent,
    `Huella del reparto ${FINGERPRINT}: todos en la mesa deberían ver la misma. Sin semilla de Ordenador 1 y Ordenador 2: el reparto no depende de esos puestos.`,
  );
});

test("in every language the fingerprint's sentence ends before the next begins, and no computer seat is named in English", () => {
  for (const tag of ["de", "es", "fr", "pl"]) {
    const doc = page();
    new FairView(doc, fair, words(tag)).printLine(table, FINGERPRINT);
    const text = doc.getElementById("fingerprint").textContent;
    assert.match(text, /[.!?] \p{Lu}/u, `${tag}: ${text}`);
    if (tag !== "de") assert.doesNotMatch(text, /Computer/, `${tag}: ${text}`);
  }
});

test("the check's words name a computer seat as the table says it, in the viewer's words", () => {
  const es = words("es");
  const names = table.seats.map((s) => (s.name === null ? null : seatPerson(table, s.seat))); // as fair.js keeps them
  const said = es.say(checkSaid({ code: "seed_uncommitted", seat: 2 }, names));
  assert.match(said, /Ordenador 2/);
  assert.doesNotMatch(said, /Computer/);
});
