"""`server.adapters.addresses.limits.ConnectionGate` on a fake clock: new connections per address,
penalties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.adapters.addresses.limits import ConnectionGate, Throttle
from server.core.budgets import TokenBucket


def gate(
    rate: float = 5.0,
    burst: int = 20,
    *,
    penalty: float = 10.0,
    penalty_max: float = 300.0,
    max_addresses: int = 1000,
) -> ConnectionGate:
    return ConnectionGate(
        rate, burst, penalty=penalty, penalty_max=penalty_max, max_addresses=max_addresses
    )


def test_a_burst_is_admitted_then_the_rate_applies() -> None:
    g = gate(rate=5.0, burst=20)
    assert [g.admit("203.0.113.5", 0.0) for _ in range(20)] == [None] * 20
    refusal = g.admit("203.0.113.5", 0.0)
    assert refusal == Throttle(retry_after=0.2, penalized=False, first=True)
    assert g.admit("203.0.113.5", 0.1) == Throttle(retry_after=0.1, penalized=False, first=False)
    assert g.admit("203.0.113.5", 0.2) is None  # one token every 0.2 s
    assert g.admit("203.0.113.5", 0.2) is not None


def test_the_rate_is_sustained_forever() -> None:
    g = gate(rate=4.0, burst=2)
    assert g.admit("198.51.100.1", 0.0) is None
    assert g.admit("198.51.100.1", 0.0) is None
    for i in range(1, 4 * 60 + 1):  # exactly 4 a second (times exact in binary)
        assert g.admit("198.51.100.1", i / 4) is None
    assert g.admit("198.51.100.1", 60.0) is not None


def test_addresses_have_their_own_buckets() -> None:
    g = gate(burst=1)
    assert g.admit("203.0.113.5", 0.0) is None
    assert g.admit("203.0.113.5", 0.0) is not None
    assert g.admit("203.0.113.6", 0.0) is None


def test_ipv6_counts_per_64_and_mapped_ipv4_as_ipv4() -> None:
    g = gate(burst=1)
    assert g.admit("2001:db8:1::5", 0.0) is None
    assert g.admit("2001:db8:1::ffff", 0.0) is not None  # the same /64
    assert g.admit("2001:db8:2::5", 0.0) is None
    assert g.admit("192.0.2.7", 0.0) is None
    assert g.admit("::ffff:192.0.2.7", 0.0) is not None


def test_first_marks_the_first_refusal_after_an_admission() -> None:
    g = gate(rate=1.0, burst=1)
    assert g.admit("a", 0.0) is None
    firsts = [r.first for r in (g.admit("a", 0.0), g.admit("a", 0.5)) if r is not None]
    assert firsts == [True, False]
    assert g.admit("a", 1.0) is None
    refusal = g.admit("a", 1.0)
    assert refusal is not None
    assert refusal.first


def test_a_penalty_refuses_the_address_until_it_ends() -> None:
    g = gate(burst=20, penalty=10.0)
    assert g.admit("203.0.113.5", 0.0) is None
    assert g.penalize("203.0.113.5", 1.0) == 10.0
    refusal = g.admit("203.0.113.5", 1.0)
    assert refusal == Throttle(retry_after=10.0, penalized=True, first=True)
    refusal = g.admit("203.0.113.5", 10.5)
    assert refusal is not None
    assert refusal.penalized
    assert refusal.retry_after == pytest.approx(0.5)
    assert g.admit("203.0.113.6", 5.0) is None  # another address is not touched
    assert g.admit("203.0.113.5", 11.0) is None


def test_refusals_during_a_penalty_take_no_tokens() -> None:
    g = gate(rate=1.0, burst=2, penalty=10.0)
    g.penalize("a", 0.0)
    for i in range(100):
        assert g.admit("a", i / 20) is not None
    assert g.admit("a", 10.0) is None
    assert g.admit("a", 10.0) is None  # the whole burst is there


def test_penalties_double_on_repeats_up_to_the_maximum() -> None:
    g = gate(penalty=10.0, penalty_max=45.0)
    now = 0.0
    lengths = []
    for _ in range(5):
        length = g.penalize("a", now)
        lengths.append(length)
        now += length  # comes back as soon as it may, and abuses again at once
    assert lengths == [10.0, 20.0, 40.0, 45.0, 45.0]


def test_closes_during_a_penalty_do_not_add_to_it() -> None:
    g = gate(penalty=10.0)
    assert g.penalize("a", 0.0) == 10.0
    assert g.penalize("a", 0.1) == 0.0  # another connection opened before the penalty
    refusal = g.admit("a", 0.1)
    assert refusal is not None
    assert refusal.retry_after == pytest.approx(9.9)
    assert g.penalize("a", 10.0) == 20.0  # came back and did it again


def test_a_quiet_spell_as_long_as_the_maximum_is_forgiven() -> None:
    g = gate(penalty=10.0, penalty_max=60.0)
    assert g.penalize("a", 0.0) == 10.0
    assert g.penalize("a", 10.0 + 59.0) == 20.0  # not quite forgiven
    assert g.penalize("a", 89.0 + 60.0) == 10.0  # 60 s clean after the last one ended


def test_zero_penalty_means_never() -> None:
    g = gate(penalty=0.0)
    assert g.penalize("a", 0.0) == 0.0
    assert g.admit("a", 0.0) is None


def test_a_clock_going_backwards_lifts_a_penalty_rather_than_freeze_it() -> None:
    g = gate(penalty=10.0)
    g.penalize("a", 100.0)
    assert g.admit("a", 105.0) is not None
    assert g.admit("a", 50.0) is None


def test_idle_addresses_are_forgotten() -> None:
    g = gate(rate=5.0, burst=20)
    for i in range(100):
        assert g.admit(f"10.0.0.{i}", 0.0) is None
    assert len(g) == 100
    for i in range(200):  # later, other addresses come one at a time
        g.admit(f"10.1.0.{i}", 100.0 + i)
    assert len(g) <= 2  # each full bucket again (after 0.2 s) was dropped on the way


def test_a_penalized_address_is_not_forgotten_while_it_counts() -> None:
    g = gate(penalty=10.0, penalty_max=60.0)
    g.penalize("a", 0.0)
    for i in range(100):
        g.admit(f"10.1.0.{i}", 1.0 + i / 100)
    assert g.admit("a", 5.0) is not None
    assert g.penalize("a", 20.0) == 20.0  # its strike was kept
    g.penalize("b", 0.0)
    for i in range(100):  # much later, one address connects now and then
        g.admit("10.2.0.1", 1000.0 + i)
    assert len(g) == 1  # "a", "b" and the rest were dropped on the way


@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=400))
def test_the_table_never_exceeds_its_cap(addresses: list[int]) -> None:
    g = gate(max_addresses=50)
    for n, address in enumerate(addresses):
        peer = ".".join(str((address >> s) & 255) for s in (24, 16, 8, 0))
        g.admit(peer, n / 1000)  # a spray: every bucket still far from full
        if n % 7 == 0:
            g.penalize(peer, n / 1000)
        assert len(g) <= 50


def test_at_the_cap_a_spray_pushes_out_others_but_not_a_penalty() -> None:
    g = gate(burst=1, max_addresses=5)
    assert g.admit("a", 0.0) is None
    g.penalize("b", 0.0)
    for i in range(1000):
        g.admit(f"10.3.{i // 256}.{i % 256}", 1.0)
        assert len(g) <= 5
    refusal = g.admit("b", 1.0)
    assert refusal is not None
    assert refusal.penalized  # still remembered
    assert g.admit("a", 1.0) is None  # dropped long ago: a fresh bucket


@pytest.mark.parametrize(
    ("rate", "burst", "penalty", "penalty_max", "max_addresses"),
    [
        (0.0, 1, 1.0, 1.0, 1),
        (1.0, 0, 1.0, 1.0, 1),
        (1.0, 1, -1.0, 1.0, 1),
        (1.0, 1, 2.0, 1.0, 1),
        (1.0, 1, 1.0, float("inf"), 1),
        (1.0, 1, 1.0, 1.0, 0),
    ],
)
def test_the_gate_refuses_nonsense(
    rate: float, burst: int, penalty: float, penalty_max: float, max_addresses: int
) -> None:
    with pytest.raises(ValueError, match="must be"):
        ConnectionGate(
            rate, burst, penalty=penalty, penalty_max=penalty_max, max_addresses=max_addresses
        )


def test_bucket_wait_says_when_the_next_token_comes() -> None:
    bucket = TokenBucket(rate=4.0, burst=1, now=0.0)
    assert bucket.wait(0.0) == 0.0
    assert bucket.take(0.0)
    assert bucket.wait(0.0) == 0.25
    assert bucket.wait(0.125) == 0.125
    assert bucket.wait(1.0) == 0.0
