"""The warnings at start: no password beyond loopback, plain ws:// on a public address.

The rules are checked on `startup_warnings` with addresses given as data (no socket is
opened to them); the app is checked to log them, on loopback, with the machine's own
addresses replaced by a public one.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from server.adapters.web import exposure as _exposure
from server.adapters.web.exposure import local_addresses, startup_warnings
from tests.server.adapters._standin import standin_server

PUBLIC_V4 = ipaddress.ip_address("81.2.69.160")
PUBLIC_V6 = ipaddress.ip_address("2a00:1450:4001:80b::200e")
HOME = [ipaddress.ip_address(a) for a in ("127.0.0.1", "192.168.1.20", "::1", "fe80::1")]


def events(bound: list[str], **options: object) -> list[str]:
    values: dict[str, object] = {"tls": False, "password": False, "behind_proxy": False}
    values.update(options)
    return [w.event for w in startup_warnings(bound, **values)]  # type: ignore[arg-type]


@pytest.mark.parametrize("bound", [["127.0.0.1"], ["::1"], ["127.0.0.1", "::1"]])
def test_loopback_needs_no_warning(bound: list[str]) -> None:
    assert events(bound, local=[*HOME, PUBLIC_V4]) == []


@pytest.mark.parametrize("bound", [["192.168.1.20"], ["0.0.0.0"], ["::"], ["10.0.0.2"]])
def test_no_password_beyond_loopback_is_warned(bound: list[str]) -> None:
    assert events(bound, local=HOME) == ["no_password"]
    assert events(bound, local=HOME, password=True) == []


@pytest.mark.parametrize(
    ("bound", "local"),
    [
        (["81.2.69.160"], HOME),
        (["0.0.0.0"], [*HOME, PUBLIC_V4]),
        (["::"], [*HOME, PUBLIC_V4]),  # :: takes IPv4 too
        (["::"], [*HOME, PUBLIC_V6]),
    ],
)
def test_plain_ws_on_a_public_address_is_warned(
    bound: list[str], local: list[ipaddress.IPv4Address | ipaddress.IPv6Address]
) -> None:
    assert events(bound, local=local, password=True) == ["public_without_tls"]
    assert events(bound, local=local, password=True, tls=True) == []
    assert events(bound, local=local, password=True, behind_proxy=True) == []
    assert events(bound, local=local) == ["no_password", "public_without_tls"]


@pytest.mark.parametrize(
    "address", ["192.168.1.20", "10.1.2.3", "172.30.87.2", "100.64.0.1", "fd00::1", "fe80::2"]
)
def test_private_addresses_are_not_public(address: str) -> None:
    assert events(["0.0.0.0"], local=[ipaddress.ip_address(address)], password=True) == []


def test_the_machines_addresses_include_loopback() -> None:
    assert ipaddress.ip_address("127.0.0.1") in local_addresses()


async def test_the_app_logs_both_warnings_once_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server listens on 127.0.0.1 (as every test does); the check is told that this
    is a public machine listening everywhere."""
    monkeypatch.setattr(_exposure, "local_addresses", lambda: {PUBLIC_V4})
    monkeypatch.setattr(_exposure, "bound_addresses", lambda sockets: ["0.0.0.0"])
    with capture_logs() as logs:
        async with standin_server(tmp_path):
            pass
    warned = [e for e in logs if e["log_level"] == "warning"]
    assert [e["event"] for e in warned] == ["no_password", "public_without_tls"]
    (opened,) = [e for e in logs if e["event"] == "open"]  # and the address to open
    assert opened["url"].startswith("http://81.2.69.160:")
    assert warned[1]["addresses"] == ["81.2.69.160"]
    assert "wss://" in str(warned[1]["advice"])


async def test_the_app_is_quiet_on_loopback(tmp_path: Path) -> None:
    """No exposure warning; only the invitation's: relatives cannot reach this server."""
    with capture_logs() as logs:
        async with standin_server(tmp_path):
            pass
    warned = [e for e in logs if e["log_level"] == "warning"]
    assert [e["event"] for e in warned] == ["loopback_only"]
