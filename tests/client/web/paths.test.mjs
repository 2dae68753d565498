// The second path's merge (paths.js) gives what protocol/paths.py gives: the shared vectors
// tests/vectors/paths.json, written from the Python class by `make vectors`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { MOST_HELD, MOST_HELD_BYTES, PathMerge, PathOverflowError, SECOND } from "../../../client/web/js/paths.js";
import { VECTORS } from "./_vectors.mjs";

const vector = JSON.parse(readFileSync(join(VECTORS, "paths.json"), "utf8"));

test("the limits are the Python class's", () => {
  assert.deepEqual(vector.limits, { messages: MOST_HELD, bytes: MOST_HELD_BYTES });
});

test("every case of the shared vectors, step by step", () => {
  assert.ok(vector.cases.length >= 14);
  let overflows = 0;
  for (const c of vector.cases) {
    const limits = c.limits ?? vector.limits;
    const merge = new PathMerge(limits.messages, limits.bytes);
    const delivered = [];
    for (const [i, step] of c.steps.entries()) {
      const where = `${c.about}, step ${i}`;
      if ("attach" in step) merge.attach(step.attach);
      else if ("detach" in step) merge.detach();
      else {
        assert.equal(merge.counts[step.path], step.index, where);
        if (step.overflow) {
          assert.throws(() => merge.receive(step.path, step.message), PathOverflowError, where);
          assert.equal(merge.attached, false, where);
          overflows += 1;
        } else {
          const out = merge.receive(step.path, step.message);
          assert.deepEqual(out, step.deliver, where);
          delivered.push(...out);
        }
      }
    }
    assert.deepEqual(delivered, c.delivered, c.about);
    assert.equal(merge.next, c.next, c.about);
  }
  assert.ok(overflows >= 2);
});

test("a message's size is its bytes: an ArrayBuffer from a socket, as the page holds it", () => {
  const merge = new PathMerge(16, 10);
  merge.attach(1);
  assert.deepEqual(merge.receive(SECOND, new ArrayBuffer(6)), []);
  assert.throws(() => merge.receive(SECOND, new ArrayBuffer(5)), PathOverflowError);
  assert.throws(() => merge.receive(SECOND, new ArrayBuffer(1)), /no second path/);
});
