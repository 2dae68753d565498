// Feeds server message streams to the page's fair-deal check (client/web/js/fair.js) for
// tests/client/test_fair_tamper.py: reads [{frames: [hex msgpack frame, ...], seed: hex
// or null, game}, ...] as JSON on standard input and writes, for each, what the check
// at game over found ({ok, chosen, problem, proved}, said in English) and the game record
// the page would save then (record), as JSON.

import { Catalog } from "../../../client/web/js/catalog.js";
import { Fair } from "../../../client/web/js/fair.js";
import { decodeServerMessage } from "../../../client/web/js/wire.js";
import { loadCatalog } from "./_vectors.mjs";

const en = new Catalog(loadCatalog("en"), { strict: true });
const said = (found) =>
  found === null ? null : { ...found, problem: found.problem === null ? null : en.say(found.problem), proved: found.proved.map((item) => en.say(item)) };

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", async () => {
  const results = [];
  for (const { frames, seed, game } of JSON.parse(input)) {
    const fair = new Fair();
    if (seed !== null) fair.seeds.set(game, seed);
    let found = null;
    for (const frame of frames) {
      const check = fair.follow(decodeServerMessage(Buffer.from(frame, "hex")));
      if (check !== null) found = await check;
      await Promise.resolve();
    }
    results.push(found === null ? null : { ...said(found), record: fair.record() });
  }
  process.stdout.write(JSON.stringify(results));
});
