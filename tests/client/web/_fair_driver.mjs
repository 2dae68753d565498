// Feeds server message streams to the page's fair-deal check (client/web/js/fair.js) for
// tests/client/test_fair_tamper.py: reads [{frames: [hex msgpack frame or "connect" (the
// page opened a new connection there; the first is opened before the frames), ...], seed:
// hex or null, game, lang}, ...] as JSON on standard input and writes, for each, what the
// check at game over found ({ok, chosen, problem, proved}, said in the language `lang`,
// English when none is given) and the game record the page would save then (record), as
// JSON. The table's view follows the frames as the page's does, for the names.

import { Catalog } from "../../../client/web/js/catalog.js";
import { Fair } from "../../../client/web/js/fair.js";
import { apply, initialView } from "../../../client/web/js/view.js";
import { decodeServerMessage } from "../../../client/web/js/wire.js";
import { loadCatalog } from "./_vectors.mjs";

const said = (found, words) =>
  found === null ? null : { ...found, problem: found.problem === null ? null : words.say(found.problem), proved: found.proved.map((item) => words.say(item)) };

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", async () => {
  const results = [];
  for (const { frames, seed, game, lang = "en" } of JSON.parse(input)) {
    const words = new Catalog(loadCatalog(lang), { strict: true });
    const fair = new Fair();
    if (seed !== null) fair.seeds.set(game, seed);
    let found = null;
    let view = initialView();
    fair.connected();
    for (const frame of frames) {
      if (frame === "connect") {
        fair.connected();
        continue;
      }
      const message = decodeServerMessage(Buffer.from(frame, "hex"));
      view = apply(view, message);
      const check = fair.follow(message, view);
      if (check !== null) found = await check;
      await Promise.resolve();
    }
    results.push(found === null ? null : { ...said(found, words), record: fair.record() });
  }
  process.stdout.write(JSON.stringify(results));
});
