// Cards for people, as client/cards.py (README.md).

export const RANK_WORDS = Object.freeze({ A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "10" });
export const SUIT_SYMBOLS = Object.freeze({ S: "♠", H: "♥", D: "♦", C: "♣" });
export const SUIT_NAMES = Object.freeze({ S: "spades", H: "hearts", D: "diamonds", C: "clubs" });

function checked(card) {
  if (!/^[2-9TJQKA][SHDC]$/.test(card)) throw new RangeError(`not a card code: ${card}`);
  return card;
}

/** "QH" -> "Queen", "TS" -> "10", "7C" -> "7". */
export const rankWord = (card) => RANK_WORDS[checked(card)[0]] ?? card[0];

/** The rank drawn on a face: "Q", "10", "7". */
export const rankLabel = (card) => (checked(card)[0] === "T" ? "10" : card[0]);

export const isRed = (card) => "HD".includes(checked(card)[1]);

/** "Queen of hearts", for screen readers. */
export const cardName = (card) => `${rankWord(card)} of ${SUIT_NAMES[card[1]]}`;
