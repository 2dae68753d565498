// The browser table's reducer and sentences against the shared vectors: for every frame a
// viewpoint received, the same sentences (the plain ones and the table's), status line,
// votes line and view as the Python client
// (tests/vectors/, written by `python -m tests.vectors.generate`; never edited by hand).

import assert from "node:assert/strict";
import { describe as suite, test } from "node:test";

import { describe, status, votesSentence } from "../../../client/web/js/sentences.js";
import { apply, initialView } from "../../../client/web/js/view.js";
import { decodeServerMessage } from "../../../client/web/js/wire.js";
import { digest, frameOf, vectors } from "./_vectors.mjs";

const all = vectors();

test("there are vectors to check", () => {
  assert.ok(all.length >= 8, `only ${all.length} vector files`);
});

for (const [name, vector] of all) {
  suite(name, () => {
    for (const viewpoint of vector.viewpoints) {
      test(`${viewpoint.who} (seat ${viewpoint.seat})`, () => {
        const me = viewpoint.seat;
        let view = initialView();
        const shown = {};
        viewpoint.steps.forEach((step, index) => {
          const where = `${name} ${viewpoint.who} step ${index} (${step.type})`;
          const message = decodeServerMessage(frameOf(step));
          assert.equal(message.type, step.type, where);
          const before = view;
          view = apply(view, message);
          assert.deepEqual(describe(before, message, view, me), step.say, where);
          assert.deepEqual(describe(before, message, view, me, { table: true }), step.table ?? step.say, where);
          assert.equal(status(view, me), step.status, where);
          assert.equal(status(view, me, { touch: true }), step.touch ?? step.status, where);
          assert.equal(votesSentence(view, me), step.votes ?? null, where);
          Object.assign(shown, step.view);
          assert.deepEqual(digest(view), shown, where);
        });
      });
    }
  });
}
