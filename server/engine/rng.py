"""The game's random stream: PCG32 (PCG-XSH-RR 64/32), a bit reservoir and Fisher–Yates.

Everything here is specified exactly, so a deal number replays the same game on every
Python version and machine (see docs/rules.md, "The random stream"):

1. **Seeding.** ``initstate = splitmix64(deal)`` — the first output of Vigna's SplitMix64
   started at state ``deal``; ``initseq = STREAM`` (0x574152, ASCII "WAR"). PCG32 is then
   seeded exactly like the reference ``pcg32_srandom_r(initstate, initseq)``.
2. **Words.** `Pcg32.next_u32` is the reference ``pcg32_random_r``.
3. **Bits.** Words feed a reservoir of bits, least significant bit first; `Pcg32.bits`
   takes ``k`` bits as a little-endian number. A fresh word is appended above the bits
   still waiting whenever fewer than ``k`` remain.
4. **Bounded draws.** `Pcg32.below(n)` with ``k = (n - 1).bit_length()`` draws ``k``
   bits until the value is below ``n`` (rejection sampling: no bias). ``below(1)`` draws
   nothing. So a power of two costs exactly ``k`` bits: a coin is one bit.
5. **Shuffle.** `Pcg32.shuffle` is Fisher–Yates from the end: for ``i = n-1 .. 1`` swap
   item ``i`` with item ``below(i + 1)``.
"""

from __future__ import annotations

from typing import TypeVar

from server.engine.errors import DealError
from vocabulary import MAX_DEAL

__all__ = ["STREAM", "Pcg32", "splitmix64"]

T = TypeVar("T")

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
MULT = 6364136223846793005
STREAM = 0x574152  # "WAR"
_GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(state: int) -> int:
    """The first output of SplitMix64 started at ``state`` (a 64-bit value)."""
    z = (state + _GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class Pcg32:
    """PCG32 with a bit reservoir; see the module docstring for the exact algorithm."""

    __slots__ = ("bits_left", "inc", "reservoir", "state")

    def __init__(self, initstate: int, initseq: int) -> None:
        """Seed like the reference ``pcg32_srandom_r(initstate, initseq)``."""
        self.inc = ((initseq << 1) | 1) & MASK64
        self.state = 0
        self.reservoir = 0
        self.bits_left = 0
        self.next_u32()
        self.state = (self.state + initstate) & MASK64
        self.next_u32()

    @classmethod
    def for_deal(cls, deal: int) -> Pcg32:
        """The stream of deal number ``deal`` (an int in 0 .. 2**64 - 1).

        Raises `DealError` for anything else.
        """
        if isinstance(deal, bool) or not isinstance(deal, int) or not 0 <= deal <= MAX_DEAL:
            raise DealError(f"deal must be an integer from 0 to 2**64-1, not {deal!r}")
        return cls(splitmix64(deal), STREAM)

    def next_u32(self) -> int:
        """The next 32-bit output (reference ``pcg32_random_r``); bypasses the reservoir."""
        old = self.state
        self.state = (old * MULT + self.inc) & MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & MASK32
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << (-rot & 31))) & MASK32

    def bits(self, k: int) -> int:
        """The next ``k`` bits of the reservoir as a number in ``0 .. 2**k - 1``."""
        while self.bits_left < k:
            self.reservoir |= self.next_u32() << self.bits_left
            self.bits_left += 32
        value = self.reservoir & ((1 << k) - 1)
        self.reservoir >>= k
        self.bits_left -= k
        return value

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n - 1`` by rejection sampling on ``k`` bits."""
        if n <= 1:
            return 0
        k = (n - 1).bit_length()
        while True:
            value = self.bits(k)
            if value < n:
                return value

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place: Fisher–Yates from the end using `below`.

        Same result as ``for i in range(len(items) - 1, 0, -1): j = below(i + 1); swap``;
        written out with local variables because it runs for every won pile.
        """
        state = self.state
        inc = self.inc
        reservoir = self.reservoir
        left = self.bits_left
        for i in range(len(items) - 1, 0, -1):
            k = i.bit_length()
            mask = (1 << k) - 1
            while True:
                if left < k:
                    old = state
                    state = (old * MULT + inc) & MASK64
                    xs = (((old >> 18) ^ old) >> 27) & MASK32
                    rot = old >> 59
                    reservoir |= (((xs >> rot) | (xs << (-rot & 31))) & MASK32) << left
                    left += 32
                j = reservoir & mask
                reservoir >>= k
                left -= k
                if j <= i:
                    break
            items[i], items[j] = items[j], items[i]
        self.state = state
        self.reservoir = reservoir
        self.bits_left = left
