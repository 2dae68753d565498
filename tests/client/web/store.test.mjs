// What the page remembers: a seat per player code (any case, with or without hyphens) and
// name (a shared computer keeps one for each person at the table), forgotten after 30
// days; a browser that refuses storage is survived, and said so.

import assert from "node:assert/strict";
import { said } from "../../../client/web/js/catalog.js";
import { test } from "node:test";

import { MAX_AGE_MS, SeatStore, nameKey, normalizeCode } from "../../../client/web/js/store.js";
import { MemoryStorage } from "./_storage.mjs";

const record = { room: "r8k2", token: "token-0123456789abcdef", seat: 1, name: "Ben" };

test("a seat is found by its code in any spelling and its name, and forgotten", () => {
  const store = new SeatStore(new MemoryStorage(), () => 1000);
  assert.equal(store.put("K7MX-QD4R", record), null);
  assert.deepEqual(store.get("k7mxqd4r", "Ben"), { ...record, saved: 1000 });
  assert.deepEqual(store.get("K7MX-QD4R", " BEN "), { ...record, saved: 1000 }, "a name in any case");
  assert.equal(store.get("K7MX-QD4R", "Cy"), null, "another name's seat is not Ben's");
  assert.equal(normalizeCode("k7mx-qd4r"), "K7MXQD4R");
  assert.equal(nameKey("Ｂｅｎ "), "ben"); // full-width letters are the same name
  store.forget("K7MXQD4R", "ben");
  assert.equal(store.get("K7MX-QD4R", "Ben"), null);
});

test("a shared computer keeps a seat for each name at one table", () => {
  let now = 1000;
  const storage = new MemoryStorage();
  const store = new SeatStore(storage, () => now);
  const opa = { room: "r8k2", token: "token-opa-0123456789", seat: 0, name: "Opa" };
  const oma = { room: "r8k2", token: "token-oma-0123456789", seat: 1, name: "Oma" };
  store.put("K7MX-QD4R", opa);
  now = 2000;
  store.put("K7MX-QD4R", oma);
  store.put("AAAA-AAAA", { ...opa, room: "other" });
  assert.equal(store.get("K7MX-QD4R", "Opa").token, opa.token);
  assert.equal(store.get("K7MX-QD4R", "Oma").token, oma.token);
  assert.deepEqual(store.all("k7mx-qd4r").map((r) => r.name), ["Oma", "Opa"], "the latest first, this code only");
  now = 3000;
  store.put("K7MX-QD4R", { ...opa, token: "token-opa-newer-0123" }); // Opa's seat resumed: a new token
  assert.equal(store.get("K7MX-QD4R", "Opa").token, "token-opa-newer-0123");
  assert.equal(store.get("K7MX-QD4R", "Oma").token, oma.token, "Oma's seat is untouched");
  store.forget("K7MX-QD4R", "Oma");
  assert.deepEqual(store.all("K7MX-QD4R").map((r) => r.name), ["Opa"]);
});

test("a seat an older page kept under the code alone is still found, and replaced", () => {
  const storage = new MemoryStorage();
  const store = new SeatStore(storage, () => 1000);
  storage.setItem("family-war.seat.K7MXQD4R", JSON.stringify({ ...record, saved: 900 }));
  assert.equal(store.get("K7MX-QD4R", "Ben").token, record.token);
  assert.equal(store.get("K7MX-QD4R", "Cy"), null);
  store.put("K7MX-QD4R", { ...record, token: "token-newer-0123456789" });
  assert.deepEqual([...storage.items.keys()], ["family-war.seat.K7MXQD4R/ben"]);
  assert.equal(store.get("K7MX-QD4R", "Ben").token, "token-newer-0123456789");
});

test("old seats are dropped, unreadable ones ignored", () => {
  let now = 0;
  const storage = new MemoryStorage();
  const store = new SeatStore(storage, () => now);
  store.put("AAAA-AAAA", record);
  storage.setItem("family-war.seat.BROKEN/ann", "{not json");
  storage.setItem("family-war.seat.WRONG", JSON.stringify({ room: 1 }));
  storage.setItem("someone-else", "kept");
  now = MAX_AGE_MS;
  assert.equal(store.get("AAAA-AAAA", "Ben"), null);
  assert.deepEqual(store.all("AAAA-AAAA"), []);
  store.put("BBBB-BBBB", record);
  assert.deepEqual([...storage.items.keys()].sort(), ["family-war.seat.BBBBBBBB/ben", "someone-else"]);
});

test("the name is remembered", () => {
  const storage = new MemoryStorage();
  new SeatStore(storage).name = "Grandma";
  assert.equal(new SeatStore(storage).name, "Grandma");
});

test("a browser without storage, or with a full one, is survived", () => {
  const none = new SeatStore(null);
  assert.deepEqual(none.put("AAAA-AAAA", record), said("close.no_memory"));
  assert.equal(none.get("AAAA-AAAA", "Ben"), null);
  assert.deepEqual(none.all("AAAA-AAAA"), []);
  assert.equal(none.name, "");
  const full = new MemoryStorage();
  full.setItem = () => {
    const error = new Error("quota");
    error.name = "QuotaExceededError";
    throw error;
  };
  assert.deepEqual(new SeatStore(full).put("AAAA-AAAA", record), said("close.no_memory_because", { problem: "QuotaExceededError" }));
});
