"""server.adapters.addresses.origin: which Origin headers may open a WebSocket (sans-I/O)."""

from __future__ import annotations

import pytest

from server.adapters.addresses.origin import normal_origin, origin_allowed

LISTED = (normal_origin("https://family.example"), normal_origin("http://10.0.0.5:8000"))


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        (None, "anything"),  # war-client and other non-browser clients send no Origin
        (None, None),
        ("http://192.168.1.20:8765", "192.168.1.20:8765"),  # the server's own page
        ("http://LOCALHOST:8765", "localhost:8765"),
        ("https://myfamily.duckdns.org", "myfamily.duckdns.org"),  # behind a TLS proxy
        ("http://myfamily.example", "myfamily.example:80"),
        ("https://myfamily.example", "myfamily.example:443"),
        ("http://[::1]:8765", "[::1]:8765"),
        ("https://family.example", "game.example"),  # listed
        ("https://FAMILY.example:443", "game.example"),  # listed, in another spelling
        ("http://10.0.0.5:8000", "game.example"),
    ],
)
def test_allowed(origin: str | None, host: str | None) -> None:
    assert origin_allowed(origin, host, LISTED)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("https://evil.example", "myfamily.example"),
        ("http://192.168.1.20:9999", "192.168.1.20:8765"),  # same host, another port
        ("http://192.168.1.20", "192.168.1.20:8765"),
        ("https://myfamily.example:8443", "myfamily.example"),
        ("http://myfamily.example.evil.example", "myfamily.example"),
        ("null", "myfamily.example"),  # a sandboxed frame or a file: page
        ("", "myfamily.example"),
        ("javascript:alert(1)", "myfamily.example"),
        ("https://family.example:8443", "game.example"),  # listed host, another port
        ("http://family.example", "game.example"),  # listed host, another scheme
        ("https://evil.example", None),
        ("https://evil.example", "[bad"),
        ("http://user:pw@myfamily.example", "myfamily.example"),
    ],
)
def test_refused(origin: str, host: str | None) -> None:
    assert not origin_allowed(origin, host, LISTED)


def test_null_only_when_listed() -> None:
    assert origin_allowed("null", "x", (normal_origin("null"),))
