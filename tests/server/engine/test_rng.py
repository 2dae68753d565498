"""The random stream: published PCG32/SplitMix64 vectors, then our documented layers.

The published vectors check the generators against sources outside this project. The
pinned vectors of `Pcg32.for_deal`, `below` and `shuffle` are this project's contract
(docs/rules.md): if one changes, every recorded deal number would replay differently, so
do not "update" them — find out what moved.
"""

from __future__ import annotations

from collections import Counter

import pytest

from server.engine import DealError
from server.engine.rng import STREAM, Pcg32, splitmix64

GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def test_pcg32_reference_vector() -> None:
    # pcg32-demo / pcg-random.org, pcg32_srandom_r(&rng, 42u, 54u), round 1.
    rng = Pcg32(42, 54)
    assert [rng.next_u32() for _ in range(6)] == [
        0xA15C02B7,
        0x7B47F409,
        0xBA1D3330,
        0x83D2F293,
        0xBFA4784B,
        0xCBED606E,
    ]


def test_splitmix64_reference_vectors() -> None:
    # Vigna's splitmix64.c from state 0 gives E220A839..., 6E789E6A..., 06C45D18...;
    # each output is splitmix64() of the state advanced by the golden gamma.
    assert splitmix64(0) == 0xE220A8397B1DCDAF
    assert splitmix64(GOLDEN_GAMMA) == 0x6E789E6AA1B965F4
    assert splitmix64(2 * GOLDEN_GAMMA % 2**64) == 0x06C45D188009454F
    assert splitmix64(1) == 0x910A2DEC89025CC1


def test_deal_seeding_is_splitmix_then_pcg_on_stream_war() -> None:
    assert int.from_bytes(b"WAR", "big") == STREAM
    for deal in (0, 1, 2**64 - 1):
        a, b = Pcg32.for_deal(deal), Pcg32(splitmix64(deal), STREAM)
        assert [a.next_u32() for _ in range(8)] == [b.next_u32() for _ in range(8)]


def test_pinned_words_of_deals() -> None:
    words = {
        0: [0xEB68D7BA, 0xAAC407F7, 0x13CFC953, 0xFA4A1FCB],
        1: [0xED31F9E4, 0x9FB2FF41, 0x9C0FF6DE, 0xB5C9D09F],
        2**64 - 1: [0xA3455CBB, 0x2ABD215D, 0xD06869A3, 0x020CA92A],
    }
    for deal, expected in words.items():
        rng = Pcg32.for_deal(deal)
        assert [rng.next_u32() for _ in range(4)] == expected


@pytest.mark.parametrize("deal", [-1, 2**64, 3.0, False, None])
def test_bad_deals(deal: object) -> None:
    with pytest.raises(DealError, match="deal must be an integer from 0 to 2\\*\\*64-1"):
        Pcg32.for_deal(deal)  # type: ignore[arg-type]


def test_bits_come_least_significant_first_across_words() -> None:
    words = Pcg32(42, 54)
    stream = sum(words.next_u32() << (32 * i) for i in range(4))  # 128 bits, word 0 lowest
    rng = Pcg32(42, 54)
    taken = [rng.bits(k) for k in (1, 5, 7, 3, 30, 2, 32, 6)]
    offset = 0
    for k, value in zip((1, 5, 7, 3, 30, 2, 32, 6), taken, strict=True):
        assert value == (stream >> offset) & ((1 << k) - 1)
        offset += k


def test_below_is_rejection_sampling_on_k_bits() -> None:
    reference = Pcg32(42, 54)
    rng = Pcg32(42, 54)
    for n in (1, 2, 3, 5, 6, 7, 8, 13, 52, 1000):
        k = (n - 1).bit_length()
        while True:
            value = reference.bits(k) if k else 0
            if value < n:
                break
        assert rng.below(n) == value


def test_pinned_below_and_coins_of_deal_0() -> None:
    rng = Pcg32.for_deal(0)
    assert [rng.below(6) for _ in range(20)] == [
        2, 3, 5, 1, 2, 3, 3, 5, 3, 1, 0, 4, 0, 3, 5, 2, 4, 2, 1, 1
    ]  # fmt: skip
    rng = Pcg32.for_deal(0)
    assert [rng.bits(1) for _ in range(20)] == [
        0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1
    ]  # fmt: skip


def test_shuffle_is_fisher_yates_from_the_end() -> None:
    for deal in range(50):
        items = list(range(52))
        Pcg32.for_deal(deal).shuffle(items)
        rng = Pcg32.for_deal(deal)
        expected = list(range(52))
        for i in range(51, 0, -1):
            j = rng.below(i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        assert items == expected


def test_pinned_shuffle_of_deal_0() -> None:
    deck = list(range(52))
    Pcg32.for_deal(0).shuffle(deck)
    assert deck == [
        10, 7, 47, 41, 17, 36, 42, 39, 37, 38, 2, 22, 27, 40, 6, 14, 28, 24, 32, 21, 46, 16, 23,
        8, 44, 34, 5, 15, 49, 35, 51, 25, 0, 12, 3, 50, 29, 19, 18, 33, 11, 45, 9, 20, 48, 4, 1,
        31, 43, 26, 13, 30,
    ]  # fmt: skip


def test_below_is_uniform_enough() -> None:
    """Chi-square over 60,000 draws of below(6) and below(52); fixed seed, so exact."""
    rng = Pcg32.for_deal(12345)
    for n, draws in ((6, 60_000), (52, 104_000)):
        counts = Counter(rng.below(n) for _ in range(draws))
        expected = draws / n
        chi2 = sum((counts[v] - expected) ** 2 / expected for v in range(n))
        # 99.9th percentile of chi-square: 20.5 for 5 degrees of freedom, 87.0 for 51.
        assert chi2 < (20.5 if n == 6 else 87.0)


def test_two_card_shuffle_is_one_coin() -> None:
    rng, coins = Pcg32.for_deal(3), Pcg32.for_deal(3)
    for _ in range(100):
        pair = ["x", "y"]
        rng.shuffle(pair)
        assert pair == (["x", "y"] if coins.bits(1) else ["y", "x"])
