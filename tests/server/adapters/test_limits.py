"""server.adapters.addresses.limits, fake clock: the per-connection rate limit, address slots."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.adapters.addresses.limits import AddressSlots, Handling, RateLimiter


def test_rate_limiter_allows_a_burst_of_twice_the_rate() -> None:
    limiter = RateLimiter(rate=5, now=0.0)
    verdicts = [limiter.check(0.0) for _ in range(10)]
    assert verdicts == [Handling.ACCEPT] * 10
    assert limiter.check(0.0) is Handling.REFUSE


def test_rate_limiter_sustains_the_rate_forever() -> None:
    limiter = RateLimiter(rate=16, now=0.0)
    # exactly 16 a second (times exact in binary) for a minute, after using up the burst
    for _ in range(32):
        assert limiter.check(0.0) is Handling.ACCEPT
    for i in range(1, 16 * 60 + 1):
        assert limiter.check(i / 16) is Handling.ACCEPT
    assert limiter.check(60.0) is Handling.REFUSE


def test_flood_is_refused_once_then_dropped_then_closed() -> None:
    limiter = RateLimiter(rate=2, now=0.0)  # burst 4
    assert [limiter.check(0.0) for _ in range(4)] == [Handling.ACCEPT] * 4
    assert limiter.check(0.0) is Handling.REFUSE
    assert [limiter.check(0.0) for _ in range(3)] == [Handling.DROP] * 3
    # a whole burst (4) dropped: the next one closes
    assert limiter.check(0.0) is Handling.CLOSE


def test_a_pause_ends_the_flood_and_the_next_one_is_refused_again() -> None:
    limiter = RateLimiter(rate=1, now=0.0)  # burst 2
    assert [limiter.check(0.0) for _ in range(3)] == [
        Handling.ACCEPT,
        Handling.ACCEPT,
        Handling.REFUSE,
    ]
    assert limiter.check(0.0) is Handling.DROP
    assert limiter.check(1.0) is Handling.ACCEPT  # a token came back: flood over
    assert limiter.check(1.0) is Handling.REFUSE  # a new flood gets its own error


def test_a_slow_rate_still_lets_one_message_through() -> None:
    limiter = RateLimiter(rate=0.25, now=0.0)  # burst max(1, 0.5) = 1
    assert limiter.check(0.0) is Handling.ACCEPT
    assert limiter.check(1.0) is Handling.REFUSE
    assert limiter.check(4.0) is Handling.ACCEPT


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
        accepted += verdict is Handling.ACCEPT
        assert accepted <= max(1.0, 2 * rate) + rate * now + 1e-6


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
