// The fair deal's check at a game's end (docs/fairness.md, "What each check proves"): the
// game shown against the deal it was claimed to be, or what differs from what was pinned
// at its start. Imported by fair.js (`Fair.over`, `Fair.failed`) when a game ends or its
// check fails, with the engine's checks and their words: never with the page's first load
// nor when a player sits down (docs/performance.md, "The browser table").

import { said } from "./catalog.js";
import { fromHex, seenWhole } from "./fair.js";

/** The check of `game` (one of `fair`'s), failed now: what differs from what was pinned. */
export async function failed(fair, game) {
  const { checkSaid } = await import("./fairwords.js");
  const problem = checkSaid(game.broken, fair.names);
  return { game: game.number, fingerprint: game.print, ok: false, chosen: game.shown_deal != null, problem, proved: [] };
}

/** The check of `game` (`fair`'s current game when `message`, its game_over, came). */
export async function over(fair, game, message) {
  if (game.broken) return failed(fair, game);
  const end = { step: message.step, winner: message.winner, termination: message.termination, counts: message.counts, ...message.summary, standings: message.standings ?? [] };
  const shown = { flips: game.flips, takes: game.takes, laid: game.laid, wars: game.wars, outs: game.outs, whole: seenWhole(game), end };
  const [{ checkFairDeal }, { checkReplay }, { checkSaid }] = await Promise.all([
    import("./engine/fairness.js"),
    import("./engine/check.js"),
    import("./fairwords.js"),
  ]);
  const names = fair.names;
  const words = (found) => checkSaid(found, names);
  const rules = game.rules ?? fair.rules;
  const finish = (result) => ({ game: game.number, fingerprint: game.print, ...result });
  if (game.shown_deal !== null && game.shown_deal !== undefined) {
    const replay = checkReplay(rules, game.shown_deal, shown);
    const problem = replay.mismatch === null ? null : words(replay.mismatch);
    return finish({ ok: problem === null, chosen: true, problem, proved: [] });
  }
  if (!game.deal_commitment) return finish({ ok: null, chosen: false, problem: said("fair.no_commitment"), proved: [] });
  if (!message.fairness) return finish({ ok: false, chosen: false, problem: said("fair.no_seeds"), proved: [] });
  const claim = {
    rules,
    deal_commitment: game.deal_commitment,
    server_seed: message.fairness.server_seed,
    seeds: message.fairness.seeds,
    deal: message.summary.deal,
    seed_commitments: game.seed_commitments,
  };
  const seed = fair.seeds.get(game.number);
  // my seed is looked for where the table was shown my commitment at the start (a seat
  // taken over on another device holds the old device's: nothing of mine to find)
  if (seed !== undefined && game.mySeedCommitment === null) await fair.mine();
  const pinnedMine = fair.seat !== null ? (game.seed_commitments?.[fair.seat] ?? null) : null;
  const mineShown = seed !== undefined && pinnedMine !== null && pinnedMine === game.mySeedCommitment;
  const mine = mineShown || game.accepted ? { seat: fair.seat, seed: fromHex(seed) } : {};
  const result = checkFairDeal(claim, shown, mine);
  const proved = result.reveal.proved.map(words);
  let problem = result.reveal.problem === null || result.reveal.problem === undefined ? null : words(result.reveal.problem);
  if (result.replay !== null) {
    if (result.replay.mismatch === null) proved.push(said("fair.every_card"));
    else problem = words(result.replay.mismatch);
  }
  return finish({ ok: result.ok, chosen: false, problem, proved });
}
