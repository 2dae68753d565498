"""docker-compose.yml: war-server believes X-Forwarded-For from Caddy's fixed address only.

Caddy gets a fixed address on a fixed subnet; the war service trusts exactly that address
by default (with .env.example and without it). Never the gateway: through the published
port, Docker's userland proxy connects from the gateway on behalf of anyone, and never the
subnet, where other containers live.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from server.adapters.addresses.forwarded import client_address
from server.adapters.settings.config import load_settings
from tests.deploy._interpolate import interpolate, references
from tests.deploy._repo import CADDYFILE, HOSTING_DOC, compose, env_example, service_environment

VARIABLE = "WAR_TRUSTED_PROXIES"
PLAYER = "203.0.113.7"


def _ipam() -> dict[str, Any]:
    (config,) = compose()["networks"]["default"]["ipam"]["config"]
    assert isinstance(config, dict)
    return config


def _subnet() -> ipaddress.IPv4Network:
    return ipaddress.IPv4Network(_ipam()["subnet"])


def _caddy_address() -> ipaddress.IPv4Address:
    caddy = compose()["services"]["caddy"]
    return ipaddress.IPv4Address(caddy["networks"]["default"]["ipv4_address"])


def _gateway() -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(_ipam()["gateway"])


def test_caddy_has_a_fixed_address_no_other_container_can_get() -> None:
    subnet = _subnet()
    dynamic = ipaddress.IPv4Network(_ipam()["ip_range"])
    caddy = _caddy_address()
    assert dynamic.subnet_of(subnet)
    assert _gateway() in subnet
    assert caddy in subnet
    assert caddy not in dynamic  # Docker hands out addresses from ip_range only
    assert caddy not in {_gateway(), subnet.network_address, subnet.broadcast_address}
    assert "networks" not in compose()["services"]["war"]  # on the same default network


def test_the_default_names_caddys_address() -> None:
    (ref,) = references(service_environment(compose()["services"]["war"])[VARIABLE])
    assert (ref.name, ref.operator) == (VARIABLE, ":-")
    assert ipaddress.ip_address(ref.argument) == _caddy_address()


@pytest.mark.parametrize(
    "env",
    [pytest.param(env_example(), id=".env.example"), pytest.param({}, id="no .env value")],
)
def test_the_war_service_trusts_only_caddy(env: dict[str, str]) -> None:
    value = interpolate(service_environment(compose()["services"]["war"])[VARIABLE], env)
    trusted = load_settings([], {"HOME": "/data", VARIABLE: value}).trusted_proxies
    assert trusted == (ipaddress.ip_network(_caddy_address()),)
    believed = [
        str(address)
        for address in _subnet()
        if client_address(str(address), [PLAYER], trusted).address == PLAYER
    ]
    assert believed == [str(_caddy_address())]  # not the gateway, not the war container


def test_none_turns_it_off() -> None:
    value = interpolate(
        service_environment(compose()["services"]["war"])[VARIABLE], {VARIABLE: "none"}
    )
    assert load_settings([], {"HOME": "/data", VARIABLE: value}).trusted_proxies == ()


def test_the_guide_and_the_caddyfile_say_so() -> None:
    guide = HOSTING_DOC.read_text(encoding="utf-8")
    assert f"`{_caddy_address()}`" in guide
    assert f"`{_gateway()}`" in guide
    assert VARIABLE in CADDYFILE.read_text(encoding="utf-8")
