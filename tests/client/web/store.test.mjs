// What the page remembers: a seat per player code (any case, with or without hyphens),
// forgotten after 30 days; a browser that refuses storage is survived, and said so.

import assert from "node:assert/strict";
import { said } from "../../../client/web/js/catalog.js";
import { test } from "node:test";

import { MAX_AGE_MS, SeatStore, normalizeCode } from "../../../client/web/js/store.js";
import { MemoryStorage } from "./_storage.mjs";

const record = { room: "r8k2", token: "token-0123456789abcdef", seat: 1, name: "Ben" };

test("a seat is found by its code in any spelling, and forgotten", () => {
  const store = new SeatStore(new MemoryStorage(), () => 1000);
  assert.equal(store.put("K7MX-QD4R", record), null);
  assert.deepEqual(store.get("k7mxqd4r"), { ...record, saved: 1000 });
  assert.equal(normalizeCode("k7mx-qd4r"), "K7MXQD4R");
  store.forget("K7MXQD4R");
  assert.equal(store.get("K7MX-QD4R"), null);
});

test("old seats are dropped, unreadable ones ignored", () => {
  let now = 0;
  const storage = new MemoryStorage();
  const store = new SeatStore(storage, () => now);
  store.put("AAAA-AAAA", record);
  storage.setItem("family-war.seat.BROKEN", "{not json");
  storage.setItem("family-war.seat.WRONG", JSON.stringify({ room: 1 }));
  storage.setItem("someone-else", "kept");
  now = MAX_AGE_MS;
  assert.equal(store.get("AAAA-AAAA"), null);
  store.put("BBBB-BBBB", record);
  assert.deepEqual([...storage.items.keys()].sort(), ["family-war.seat.BBBBBBBB", "someone-else"]);
});

test("the name is remembered", () => {
  const storage = new MemoryStorage();
  new SeatStore(storage).name = "Grandma";
  assert.equal(new SeatStore(storage).name, "Grandma");
});

test("a browser without storage, or with a full one, is survived", () => {
  const none = new SeatStore(null);
  assert.deepEqual(none.put("AAAA-AAAA", record), said("close.no_memory"));
  assert.equal(none.get("AAAA-AAAA"), null);
  assert.equal(none.name, "");
  const full = new MemoryStorage();
  full.setItem = () => {
    const error = new Error("quota");
    error.name = "QuotaExceededError";
    throw error;
  };
  assert.deepEqual(new SeatStore(full).put("AAAA-AAAA", record), said("close.no_memory_because", { problem: "QuotaExceededError" }));
});
