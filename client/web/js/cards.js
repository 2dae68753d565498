// Cards for people: rank words ("Queen", "10"), suit symbols and colours, as
// client/cards.py has them. A card on the wire is a rank (2-9 T J Q K A) and a suit
// (S H D C); only the rank matters in War, the suit is shown.

export const RANK_WORDS = Object.freeze({
  A: "Ace",
  K: "King",
  Q: "Queen",
  J: "Jack",
  T: "10",
  9: "9",
  8: "8",
  7: "7",
  6: "6",
  5: "5",
  4: "4",
  3: "3",
  2: "2",
});
export const SUIT_SYMBOLS = Object.freeze({ S: "♠", H: "♥", D: "♦", C: "♣" });
export const SUIT_NAMES = Object.freeze({ S: "spades", H: "hearts", D: "diamonds", C: "clubs" });

const CARD = /^[2-9TJQKA][SHDC]$/;

function checked(card) {
  if (typeof card !== "string" || !CARD.test(card)) throw new RangeError(`not a card code: ${card}`);
  return card;
}

/** "QH" -> "Queen", "TS" -> "10". */
export const rankWord = (card) => RANK_WORDS[checked(card)[0]];

/** The short rank drawn on a card face: "Q", "10", "7". */
export const rankLabel = (card) => (checked(card)[0] === "T" ? "10" : card[0]);

/** True for hearts and diamonds. */
export const isRed = (card) => "HD".includes(checked(card)[1]);

/** "Queen of hearts", for screen readers. */
export const cardName = (card) => `${rankWord(card)} of ${SUIT_NAMES[card[1]]}`;
