"""server.core.budgets with a fake clock: the token bucket, address keys, the work budget."""

from __future__ import annotations

import pytest

from server.core.budgets import TokenBucket, WorkBudget, address_key


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
