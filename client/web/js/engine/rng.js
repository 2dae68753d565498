// The game's random stream, as server/engine/rng.py specifies it (docs/rules.md, "The
// random stream"): SplitMix64 seeding, PCG32 (PCG-XSH-RR 64/32), a bit reservoir read
// least significant bit first, rejection sampling below n, Fisher–Yates from the end.
// 64-bit arithmetic is BigInt; the reservoir stays a Number (at most 32 + 6 bits here, so
// exact). Pinned to the Python engine by tests/vectors/engine/steps.json.

const MASK64 = (1n << 64n) - 1n;
const MULT = 6364136223846793005n;
const GOLDEN = 0x9e3779b97f4a7c15n;
export const STREAM = 0x574152n; // "WAR"
export const MAX_DEAL = MASK64;

/** The first output of SplitMix64 started at `state` (a BigInt). */
export function splitmix64(state) {
  let z = (state + GOLDEN) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** A deal number as a BigInt in 0 .. 2**64 - 1 (a Number, a BigInt or a decimal string). */
export function dealNumber(deal) {
  let value;
  if (typeof deal === "bigint") value = deal;
  else if (typeof deal === "number" && Number.isSafeInteger(deal)) value = BigInt(deal);
  else if (typeof deal === "string" && /^[0-9]{1,20}$/.test(deal)) value = BigInt(deal);
  if (value === undefined || value < 0n || value > MAX_DEAL) {
    throw new RangeError(`deal must be an integer from 0 to 2**64-1, not ${String(deal)}`);
  }
  return value;
}

export class Pcg32 {
  /** Seeded like the reference pcg32_srandom_r(initstate, initseq) (BigInts). */
  constructor(initstate, initseq) {
    this.inc = ((initseq << 1n) | 1n) & MASK64;
    this.state = 0n;
    this.reservoir = 0; // waiting bits, least significant first
    this.bitsLeft = 0;
    this.nextU32();
    this.state = (this.state + initstate) & MASK64;
    this.nextU32();
  }

  /** The stream of deal number `deal`. */
  static forDeal(deal) {
    return new Pcg32(splitmix64(dealNumber(deal)), STREAM);
  }

  /** The next 32-bit word (reference pcg32_random_r), as a Number. */
  nextU32() {
    const old = this.state;
    this.state = (old * MULT + this.inc) & MASK64;
    const xorshifted = Number((((old >> 18n) ^ old) >> 27n) & 0xffffffffn);
    const rot = Number(old >> 59n);
    return ((xorshifted >>> rot) | (xorshifted << (-rot & 31))) >>> 0;
  }

  /** The next `k` bits (k ≤ 21) of the reservoir as a number in 0 .. 2**k - 1. */
  bits(k) {
    while (this.bitsLeft < k) {
      this.reservoir += this.nextU32() * 2 ** this.bitsLeft;
      this.bitsLeft += 32;
    }
    const scale = 2 ** k;
    const value = this.reservoir % scale;
    this.reservoir = (this.reservoir - value) / scale;
    this.bitsLeft -= k;
    return value;
  }

  /** A uniform integer in 0 .. n - 1 by rejection sampling on bit_length(n - 1) bits. */
  below(n) {
    if (n <= 1) return 0;
    const k = (n - 1).toString(2).length;
    for (;;) {
      const value = this.bits(k);
      if (value < n) return value;
    }
  }

  /** Shuffle `items` in place: for i = n-1 .. 1 swap items i and below(i + 1). */
  shuffle(items) {
    for (let i = items.length - 1; i > 0; i -= 1) {
      const j = this.below(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
  }
}
