// The settings of a game and its cards, as server/engine/rules.py and cards.py define
// them (docs/rules.md): every setting checked, cards as numbers (rank * suits + suit, rank
// 0 the deck's lowest in the aces-high order), labels like "QH".

import { ENUMS, RULE_DEFAULTS } from "../vocabulary.js";

export const RANK_CHARS = "23456789TJQKA";
export const SUIT_CHARS = "SHDC";

// The choices and defaults are the vocabulary's (generated from the Python sources), so the
// page's engine cannot drift from the server's; the deck's size is the engine's own.
const CHOICES = Object.freeze(
  Object.fromEntries(Object.keys(ENUMS).filter((name) => name in RULE_DEFAULTS).map((name) => [name, ENUMS[name]])),
);
const DEFAULTS = Object.freeze({ ...RULE_DEFAULTS, ranks: 13, suits: 4 });
/** Every setting, in the order the engine (and the fair-deal derivation) lists them. */
export const RULE_FIELDS = Object.freeze(Object.keys(DEFAULTS));

const wholeIn = (value, low, high) => Number.isInteger(value) && value >= low && value <= high;

/**
 * Frozen rules with every setting: `given` holds some or all of them (missing ones take
 * today's defaults, as `Rules(...)` does). Throws a RangeError naming the setting.
 */
export function makeRules(given) {
  const rules = { ...DEFAULTS };
  for (const [name, value] of Object.entries(given)) {
    if (!(name in DEFAULTS)) throw new RangeError(`unknown rules setting '${name}'`);
    rules[name] = value;
  }
  if (![2, 3, 4].includes(rules.players)) throw new RangeError(`players must be 2, 3 or 4, not ${rules.players}`);
  if (![1, 3].includes(rules.face_down)) throw new RangeError(`face_down must be 1 or 3, not ${rules.face_down}`);
  for (const [name, allowed] of Object.entries(CHOICES)) {
    if (!allowed.includes(rules[name])) throw new RangeError(`${name} must be ${allowed.join(" or ")}, not ${rules[name]}`);
  }
  if (rules.round_limit !== null && !wholeIn(rules.round_limit, 1, 1_000_000)) {
    throw new RangeError(`round_limit must be null or 1 to 1000000, not ${rules.round_limit}`);
  }
  if (!wholeIn(rules.ranks, 1, 13)) throw new RangeError(`ranks must be 1 to 13, not ${rules.ranks}`);
  if (!wholeIn(rules.suits, 1, 4)) throw new RangeError(`suits must be 1 to 4, not ${rules.suits}`);
  if (rules.ranks * rules.suits < rules.players) {
    throw new RangeError(`deck of ${rules.ranks * rules.suits} cards is too small for ${rules.players} players`);
  }
  return Object.freeze(rules);
}

export const deckSize = (rules) => rules.ranks * rules.suits;

/** The code of card `card`: rank char + suit char, e.g. "TS", "QH". */
export function cardLabel(card, rules) {
  const rank = RANK_CHARS[RANK_CHARS.length - rules.ranks + Math.floor(card / rules.suits)];
  return rank + SUIT_CHARS[card % rules.suits];
}

/** How strong each card is (index = card; higher beats lower, equal ties). */
export function strengths(rules) {
  const table = [];
  for (let card = 0; card < deckSize(rules); card += 1) {
    const index = Math.floor(card / rules.suits);
    if (rules.aces === "high") table.push(index);
    else table.push(index === rules.ranks - 1 ? 0 : index + 1); // the ace drops below all
  }
  return table;
}
