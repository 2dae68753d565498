// Plays a batch of games with the browser's engine for tests/client/web/test_engine_agree.py:
// reads [{rules, deal, stop_at}, ...] as JSON on standard input and writes, for each, every
// step's events (the one-line form of _engine.mjs) and the standings, as JSON.

import { play } from "./_engine.mjs";

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const results = JSON.parse(input).map(({ rules, deal, stop_at: stopAt }) => {
    const { steps, game } = play(rules, deal, stopAt);
    return { steps, standings: game.standings };
  });
  process.stdout.write(JSON.stringify(results));
});
