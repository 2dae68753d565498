"""server.core.limits with a fake clock: token bucket, per-connection rate limit, address slots."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.core.limits import (
    AddressSlots,
    RateLimiter,
    TokenBucket,
    Verdict,
    WorkBudget,
    address_key,
)


def test_bucket_starts_full_and_empties() -> None:
    bucket = TokenBucket(rate=1.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]


def test_bucket_refills_at_its_rate_up_to_the_burst() -> None:
    bucket = TokenBucket(rate=2.0, burst=4, now=0.0)
    for _ in range(4):
        assert bucket.take(0.0)
    assert not bucket.take(0.0)
    assert not bucket.take(0.49)  # 0.98 tokens
    assert bucket.take(0.5)  # one token after half a second at 2/s
    assert bucket.tokens(100.0) == 4.0  # capped at the burst


def test_bucket_ignores_a_clock_going_backwards() -> None:
    bucket = TokenBucket(rate=1.0, burst=1, now=10.0)
    assert bucket.take(10.0)
    assert not bucket.take(5.0)
    assert not bucket.take(10.5)
    assert bucket.take(11.0)


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (-1, 1), (1, 0.5), (float("nan"), 2)])
def test_bucket_refuses_nonsense(rate: float, burst: float) -> None:
    with pytest.raises(ValueError, match="must be"):
        TokenBucket(rate=rate, burst=burst, now=0.0)


def test_rate_limiter_allows_a_burst_of_twice_the_rate() -> None:
    limiter = RateLimiter(rate=5, now=0.0)
    verdicts = [limiter.check(0.0) for _ in range(10)]
    assert verdicts == [Verdict.ACCEPT] * 10
    assert limiter.check(0.0) is Verdict.REFUSE


def test_rate_limiter_sustains_the_rate_forever() -> None:
    limiter = RateLimiter(rate=16, now=0.0)
    # exactly 16 a second (times exact in binary) for a minute, after using up the burst
    for _ in range(32):
        assert limiter.check(0.0) is Verdict.ACCEPT
    for i in range(1, 16 * 60 + 1):
        assert limiter.check(i / 16) is Verdict.ACCEPT
    assert limiter.check(60.0) is Verdict.REFUSE


def test_flood_is_refused_once_then_dropped_then_closed() -> None:
    limiter = RateLimiter(rate=2, now=0.0)  # burst 4
    assert [limiter.check(0.0) for _ in range(4)] == [Verdict.ACCEPT] * 4
    assert limiter.check(0.0) is Verdict.REFUSE
    assert [limiter.check(0.0) for _ in range(3)] == [Verdict.DROP] * 3
    # a whole burst (4) dropped: the next one closes
    assert limiter.check(0.0) is Verdict.CLOSE


def test_a_pause_ends_the_flood_and_the_next_one_is_refused_again() -> None:
    limiter = RateLimiter(rate=1, now=0.0)  # burst 2
    assert [limiter.check(0.0) for _ in range(3)] == [
        Verdict.ACCEPT,
        Verdict.ACCEPT,
        Verdict.REFUSE,
    ]
    assert limiter.check(0.0) is Verdict.DROP
    assert limiter.check(1.0) is Verdict.ACCEPT  # a token came back: flood over
    assert limiter.check(1.0) is Verdict.REFUSE  # a new flood gets its own error


def test_a_slow_rate_still_lets_one_message_through() -> None:
    limiter = RateLimiter(rate=0.25, now=0.0)  # burst max(1, 0.5) = 1
    assert limiter.check(0.0) is Verdict.ACCEPT
    assert limiter.check(1.0) is Verdict.REFUSE
    assert limiter.check(4.0) is Verdict.ACCEPT


@given(
    rate=st.floats(min_value=0.5, max_value=100),
    gaps=st.lists(st.floats(min_value=0, max_value=2), max_size=300),
)
def test_never_more_accepted_than_burst_plus_rate_times_time(
    rate: float, gaps: list[float]
) -> None:
    limiter = RateLimiter(rate=rate, now=0.0)
    now = 0.0
    accepted = 0
    for gap in gaps:
        now += gap
        verdict = limiter.check(now)
        accepted += verdict is Verdict.ACCEPT
        assert accepted <= max(1.0, 2 * rate) + rate * now + 1e-6


@pytest.mark.parametrize(
    ("peer", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::1", "::/64"),
        ("/run/war.sock", "/run/war.sock"),
        ("", ""),
    ],
)
def test_address_key(peer: str, key: str) -> None:
    assert address_key(peer) == key


def test_address_slots_cap_each_address_separately() -> None:
    slots = AddressSlots(limit=2)
    assert slots.acquire("192.0.2.1")
    assert slots.acquire("192.0.2.1")
    assert not slots.acquire("192.0.2.1")
    assert slots.acquire("192.0.2.2")
    assert slots.held("192.0.2.1") == 2
    assert slots.total == 3
    slots.release("192.0.2.1")
    assert slots.acquire("192.0.2.1")
    assert not slots.acquire("::ffff:192.0.2.1")  # the same address, mapped


def test_address_slots_count_an_ipv6_64_as_one_address() -> None:
    slots = AddressSlots(limit=1)
    assert slots.acquire("2001:db8::1")
    assert not slots.acquire("2001:db8::2")
    assert slots.acquire("2001:db8:0:1::1")


def test_address_slots_release_everything_then_forget() -> None:
    slots = AddressSlots(limit=3)
    for _ in range(3):
        assert slots.acquire("192.0.2.9")
    for _ in range(3):
        slots.release("192.0.2.9")
    assert slots.total == 0
    with pytest.raises(ValueError, match=r"no connection slot held for '192\.0\.2\.9'"):
        slots.release("192.0.2.9")


def test_address_slots_need_a_positive_limit() -> None:
    with pytest.raises(ValueError, match="at least 1, not 0"):
        AddressSlots(limit=0)


def test_a_charge_may_go_into_debt_and_wait_says_when_it_is_paid() -> None:
    bucket = TokenBucket(rate=10.0, burst=100, now=0.0)
    bucket.charge(130.0, 0.0)
    assert bucket.tokens(0.0) == -30.0
    assert bucket.wait(0.0) == pytest.approx(3.1)  # until one token is back
    assert not bucket.take(3.0)
    assert bucket.take(3.1)


def test_work_budget_is_per_address_with_a_slash_64_as_one() -> None:
    budget = WorkBudget(rate=100.0, burst=1_000)
    assert budget.wait("2001:db8::1", 0.0) == 0.0
    assert budget.charge("2001:db8::1", 900.0, 0.0) == 0.0
    assert budget.charge("2001:db8::2", 200.0, 0.0) == pytest.approx(1.01)  # 100 in debt
    assert budget.wait("2001:db8:0:0:ffff::1", 0.05) == pytest.approx(0.96)
    assert budget.wait("2001:db8:0:1::1", 0.05) == 0.0  # another /64
    assert budget.wait("192.0.2.1", 0.05) == 0.0


def test_work_budget_forgets_paid_up_addresses_and_stays_bounded() -> None:
    budget = WorkBudget(rate=100.0, burst=1_000, max_addresses=50)
    for n in range(200):
        budget.charge(f"192.0.2.{n % 250}", 2_000.0, 0.0)
    assert len(budget) == 50  # all in debt: the least recently charged went at the cap
    for n in range(200, 260):  # long after: each call looks at the oldest two
        budget.charge("198.51.100.1", 1.0, 10_000.0 + n)
    assert len(budget) == 1


def test_work_budget_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="must be"):
        WorkBudget(rate=0, burst=10)
    with pytest.raises(ValueError, match="max_addresses"):
        WorkBudget(rate=1, burst=10, max_addresses=0)
