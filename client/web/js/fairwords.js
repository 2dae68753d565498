// What the fair-deal check found, as the catalogs' `check` messages say it: the twin of
// client/fair/words.py, pinned to it by tests/vectors/functions/fair-checks.json.
//
// The check (engine/fairness.js, engine/check.js) gives language-neutral values: a finding
// of the reveal ({code, ...values}) or the replay's first mismatch ({step, what, seat,
// expected, shown, facts}). checkSaid turns either into a message for the viewer's
// catalog, each seat by the name the table shows (`names`, seat order; null: an open seat).
// Imported with the engine at game over, so the first load does not grow.

import { count, named, openSeat, rank, said, suit } from "./catalog.js";

// The catalog message of each finding's code (an unknown code: check.record).
const FINDINGS = {
  malformed: "check.malformed",
  seed_size: "check.malformed",
  server_seed_size: "check.malformed",
  seeds_per_seat: "check.seeds_per_seat",
  seeds_for_seats: "check.seeds_per_seat",
  rules_missing: "check.rules",
  rules_value: "check.rules",
  rules_unplayable: "check.rules",
  server_seed_mismatch: "check.server_seed_mismatch",
  seat_commitments: "check.seat_commitments",
  seed_uncommitted: "check.seed_uncommitted",
  seed_unused: "check.seed_unused",
  seed_mismatch: "check.seed_mismatch",
  not_my_seed: "check.not_my_seed",
  deal_mismatch: "check.deal_mismatch",
  server_seed: "check.server_seed",
  seat_seeds: "check.seat_seeds",
  my_seed: "check.my_seed",
  deal: "check.deal",
  commitment_changed: "check.commitment_changed",
  seat_commitment_changed: "check.seat_commitment_changed",
  rules_changed: "check.rules_changed",
  time_up_early: "check.time_up_early",
  my_seed_dropped: "check.my_seed_dropped",
};
const WHAT = { seed_size: "seed", server_seed_size: "server_seed" };

/** `seat` (from 0) as the table says it: a person of the table's words (a computer seat
 * in the viewer's words, view.js's seatPerson), a name, or an open seat. */
export function seatPerson(names, seat) {
  const name = names[seat] ?? null;
  if (name !== null && typeof name === "object") return name;
  return name === null ? openSeat(seat + 1) : named(name);
}

const isInt = (value) => Number.isInteger(value);
const cardName = (code) => said("table.card_name", { rank: rank(code), suit: suit(code) });

function findingSaid(finding, names) {
  const values = {};
  if (isInt(finding.seat)) values.who = seatPerson(names, finding.seat);
  const what = finding.what ?? WHAT[finding.code];
  if (what !== undefined && what !== null) values.what = String(what);
  for (const name of ["deal", "derived"]) if (name in finding) values[name] = String(finding[name]);
  if (isInt(finding.seconds)) values.seconds = finding.seconds;
  return said(FINDINGS[finding.code] ?? "check.record", values);
}

function takeSaid(step, facts, names) {
  const seat = isInt(facts.seat) ? facts.seat : 0;
  const n = isInt(facts.count) ? facts.count : 0;
  const who = seatPerson(names, seat);
  const cards = count("card", n);
  if (!isInt(facts.deal_seat) || !isInt(facts.deal_count)) return said("check.take_extra", { step, who, cards });
  if (facts.deal_seat === seat && facts.deal_count === n) return said("check.take_piles", { step });
  const owner = seatPerson(names, facts.deal_seat);
  return said("check.take", { step, who, cards, owner, haul: count("card", facts.deal_count) });
}

function cardSaid(m, names) {
  const who = seatPerson(names, m.seat ?? 0);
  if (m.expected === "none") return said("check.card_extra", { step: m.step, who, shown: cardName(m.shown) });
  if (m.shown === "none") return said("check.card_missing", { step: m.step, who, expected: cardName(m.expected) });
  return said("check.card", { step: m.step, who, shown: cardName(m.shown), expected: cardName(m.expected) });
}

function endSaid(step, field) {
  if (field === "over") return said("check.over", { step });
  if (field === "goes_on") return said("check.goes_on", { step });
  return said("check.end", { step, field });
}

function mismatchSaid(m, names) {
  const facts = m.facts ?? {};
  if (m.what === "card") return cardSaid(m, names);
  if (m.what === "take") return takeSaid(m.step, facts, names);
  if (m.what === "end") return endSaid(m.step, String(facts.field ?? ""));
  if (m.what === "laid") return said("check.laid", { step: m.step, who: seatPerson(names, m.seat ?? 0) });
  if (m.what === "out") return said("check.out", { step: m.step, who: seatPerson(names, m.seat ?? 0) });
  if (m.what === "war") return said("check.war", { step: m.step });
  if (m.what === "missing") return said("check.missing", { step: m.step });
  return said("check.flip", { step: m.step });
}

/** What the check `found` (a finding, or the replay's first mismatch), to be said in the
 * viewer's language; `names`: each seat's name as the table shows it (null: open). */
export const checkSaid = (found, names = []) => ("code" in found ? findingSaid(found, names) : mismatchSaid(found, names));
