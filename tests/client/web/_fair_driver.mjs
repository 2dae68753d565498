// Feeds server message streams to the page's fair-deal check (client/web/js/fair.js) for
// tests/client/test_fair_tamper.py: reads [{frames: [hex msgpack frame, ...], seed: hex
// or null, game}, ...] as JSON on standard input and writes, for each, what the check
// at game over found ({ok, chosen, problem, proved}) and the game record the page would
// save then (record), as JSON.

import { Fair } from "../../../client/web/js/fair.js";
import { decodeServerMessage } from "../../../client/web/js/wire.js";

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
    results.push(found === null ? null : { ...found, record: fair.record() });
  }
  process.stdout.write(JSON.stringify(results));
});
