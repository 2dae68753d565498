"""The network lab's fixtures (tests/lab/lab.py builds it; tests/lab/README.md says how).

Each fixture builds a lab of its own (its own namespaces: workers never share one) and
takes it down at the end of its scope, however the tests end. Where the platform forbids
network namespaces (not Linux, not root) the tests skip saying so; in CI (``CI`` set) they
fail instead, and anything else that stops the lab (a missing tool: run
tests/lab/setup.sh) fails everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from tests.lab.lab import Lab, NoLabError, Variant, check_platform


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def require_platform() -> None:
    """Skip (outside CI) or fail saying why no lab can be built here, or return."""
    try:
        check_platform()
    except NoLabError as unavailable:
        if unavailable.forbidden and not _ci():
            pytest.skip(f"no network lab: {unavailable}")
        pytest.fail(f"no network lab{' in CI' if _ci() else ''}: {unavailable}")


def _lab(variant: Variant, *, pebble: bool = False) -> Iterator[Lab]:
    require_platform()
    lab = Lab(variant, pebble=pebble)
    lab.up()
    try:
        yield lab
    finally:
        lab.down()


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    """The home behind a router with UPnP-IGD (v2), NAT-PMP and PCP; WAN 203.0.113.2."""
    yield from _lab("public")


@pytest.fixture(scope="module")
def lab_igd1() -> Iterator[Lab]:
    """As `lab`, the router describing itself as an IGD version 1."""
    yield from _lab("igd1")


@pytest.fixture(scope="module")
def lab_no_upnp() -> Iterator[Lab]:
    """As `lab` with UPnP switched off on the router: NAT-PMP and PCP only."""
    yield from _lab("no-upnp")


@pytest.fixture(scope="module")
def lab_cgnat() -> Iterator[Lab]:
    """The router behind a carrier's shared address: WAN 100.64.0.2, nothing inbound."""
    yield from _lab("cgnat")


@pytest.fixture(scope="module")
def lab_ipv6() -> Iterator[Lab]:
    """As `lab`, and the home has a global IPv6 address, 2001:db8:77::20."""
    yield from _lab("ipv6")


@pytest.fixture(scope="module")
def lab_acme() -> Iterator[Lab]:
    """As `lab`, and pebble serves https://203.0.113.100:14000/dir in the internet."""
    yield from _lab("public", pebble=True)


@pytest.fixture
def make_lab() -> Iterator[Callable[..., Lab]]:
    """A factory for labs of any variant and option (`Lab`'s arguments), each taken down
    at the end of the test: ``make_lab("cgnat", pebble=True)``."""
    made: list[Lab] = []

    def make(variant: Variant = "public", **options: object) -> Lab:
        require_platform()
        lab = Lab(variant, **options)  # type: ignore[arg-type]
        made.append(lab)
        return lab.up()

    try:
        yield make
    finally:
        for lab in made:
            lab.down()
