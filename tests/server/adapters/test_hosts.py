"""The names a request may use (`server.adapters.addresses.hosts`), and --allowed-hosts read."""

from __future__ import annotations

import pytest

from server.adapters.addresses.hosts import host_allowed, normal_host
from server.adapters.settings.config import ConfigError, load_settings


@pytest.mark.parametrize(
    "value",
    [None, "127.0.0.1", "192.168.1.20:8765", "[::1]:80", "[fe80::1]", "localhost", "a.localhost:1"],
)
def test_addresses_and_localhost_are_allowed(value: str | None) -> None:
    assert host_allowed(value, None, ())


@pytest.mark.parametrize(
    "value", ["rebind.example", "127.0.0.1.nip.io", "localhost.example", "", "a b", "x:99999"]
)
def test_other_names_are_not(value: str) -> None:
    assert not host_allowed(value, None, ())


def test_public_url_and_listed_names() -> None:
    listed = (normal_host("War.Home.Arpa."), normal_host(".lan"))
    assert host_allowed("war.home.arpa:8765", None, listed)
    assert host_allowed("kitchen.lan", None, listed)
    assert not host_allowed("lan", None, listed)
    assert not host_allowed("home.arpa", None, listed)
    assert host_allowed("WAR.example.org", "war.example.org", ())
    assert not host_allowed("evil.war.example.org", "war.example.org", ())


@pytest.mark.parametrize("text", ["a..b", "bad name", "*.example", "exämple.org"])
def test_bad_allowed_hosts_are_refused_at_start(text: str) -> None:
    with pytest.raises(ConfigError, match="allowed-hosts"):
        load_settings(["--allowed-hosts", text], {"HOME": "/tmp"})
    with pytest.raises(ConfigError, match="public-url"):
        load_settings(["--public-url", "war.example.org"], {"HOME": "/tmp"})
