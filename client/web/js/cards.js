// Cards for people, as client/words/cards.py: suit symbols and colours; their words and face
// labels are each language's (catalog.js: rank(), suit(), Catalog.label) (README.md).

import { rank, suit } from "./catalog.js";

export const SUIT_SYMBOLS = Object.freeze({ S: "♠", H: "♥", D: "♦", C: "♣" });

function checked(card) {
  if (!/^[2-9TJQKA][SHDC]$/.test(card)) throw new RangeError(`not a card code: ${card}`);
  return card;
}

export const isRed = (card) => "HD".includes(checked(card)[1]);

/** "Queen of hearts", for screen readers, in `words`. */
export const cardName = (card, words) => words.text("table.card_name", { rank: rank(checked(card)), suit: suit(card) });
