// The browser table's reducer and sentences against the shared vectors, in every language:
// for every frame a viewpoint received, the same view as the Python client (the scenes,
// tests/vectors/*.json) and the same sentences (the plain ones and the table's), status
// line, votes line and rules sentence in each catalog (tests/vectors/words/<tag>/), both
// written by `python -m tests.vectors.generate`; never edited by hand.

import assert from "node:assert/strict";
import { describe as suite, test } from "node:test";

import { Catalog } from "../../../client/web/js/catalog.js";
import { describe, rulesSentence, status, votesSentence } from "../../../client/web/js/sentences.js";
import { eveningLines, eveningScore } from "../../../client/web/js/talk.js";
import { apply, initialView } from "../../../client/web/js/view.js";
import { decodeServerMessage } from "../../../client/web/js/wire.js";
import { LANGUAGES, digest, frameOf, loadCatalog, vectors, wordsOf } from "./_vectors.mjs";

const all = vectors();

test("there are vectors to check, in every language", () => {
  assert.ok(all.length >= 8, `only ${all.length} vector files`);
  assert.equal(LANGUAGES[0], "en");
  for (const tag of ["de", "es", "fr", "pl"]) assert.ok(LANGUAGES.includes(tag), tag);
});

for (const [name, vector] of all) {
  suite(name, () => {
    test("the scenes: every view as the Python client's", () => {
      for (const viewpoint of vector.viewpoints) {
        let view = initialView();
        const shown = {};
        viewpoint.steps.forEach((step, index) => {
          const where = `${name} ${viewpoint.who} step ${index} (${step.type})`;
          const message = decodeServerMessage(frameOf(step));
          assert.equal(message.type, step.type, where);
          view = apply(view, message);
          Object.assign(shown, step.view);
          assert.deepEqual(digest(view), shown, where);
        });
      }
    });
    for (const tag of LANGUAGES) {
      test(`what each viewpoint is told in ${tag}`, () => {
        const words = new Catalog(loadCatalog(tag), { strict: true });
        const told = wordsOf(tag, name).viewpoints;
        assert.equal(told.length, vector.viewpoints.length);
        vector.viewpoints.forEach((viewpoint, v) => {
          const me = viewpoint.seat;
          let view = initialView();
          let rules = null;
          let evening = null;
          assert.equal(told[v].steps.length, viewpoint.steps.length);
          viewpoint.steps.forEach((step, index) => {
            const line = told[v].steps[index];
            const where = `${tag} ${name} ${viewpoint.who} step ${index} (${step.type})`;
            const message = decodeServerMessage(frameOf(step));
            const before = view;
            view = apply(view, message);
            const said = describe(before, message, view, me, { words });
            assert.deepEqual(said, line.say, where);
            assert.deepEqual(describe(before, message, view, me, { table: true, words }), line.table ?? said, where);
            assert.equal(status(view, me, { words }), line.status, where);
            assert.equal(status(view, me, { touch: true, words }), line.touch ?? line.status, where);
            assert.equal(votesSentence(view, me, { words }), line.votes ?? null, where);
            rules = line.rules ?? rules;
            assert.equal(rulesSentence(view.rules, view.minutes, { words }), rules, where);
            evening = line.evening ?? evening;
            assert.deepEqual([eveningScore(view.evening, { words, view }), ...eveningLines(view.evening, { words, view })], evening, where);
          });
        });
      });
    }
  });
}
