"""Who is in the house: loopback and this machine's own networks, never a header."""

from __future__ import annotations

import ipaddress

from server.adapters.addresses.forwarded import ClientAddress, client_address
from server.adapters.outside.house import (
    LOOPBACK,
    house_networks,
    in_house,
    parse_if_inet6,
    parse_route,
)

ROUTE = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t014DA8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t004DA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth0\t0000000A\t014DA8C0\t0003\t0\t0\t0\t000000FF\t0\t0\t0
"""
IF_INET6 = """\
00000000000000000000000000000001 01 80 10 80       lo
20010db8007700000000000000000020 02 40 00 00     eth0
fe800000000000000000000000000001 02 40 20 80     eth0
"""
HOUSE = (
    *LOOPBACK,
    *parse_route(ROUTE),
    *parse_if_inet6(IF_INET6),
)


def test_the_house_is_the_connected_networks_not_the_routed_ones() -> None:
    assert parse_route(ROUTE) == [ipaddress.IPv4Network("192.168.77.0/24")]  # not 10/8
    assert ipaddress.IPv6Network("2001:db8:77::/64") in parse_if_inet6(IF_INET6)
    assert set(LOOPBACK) <= set(house_networks())


def test_loopback_and_the_home_network_are_the_house() -> None:
    for address in ("127.0.0.1", "::1", "192.168.77.31", "2001:db8:77::99"):
        assert in_house(ClientAddress(address), {}, HOUSE), address


def test_a_stranger_is_not_the_house_even_from_a_private_address() -> None:
    for address in ("203.0.113.100", "10.1.2.3", "192.168.1.20", "100.64.0.9", "2001:db8:99::1"):
        assert not in_house(ClientAddress(address), {}, HOUSE), address


def test_a_forwarded_header_cannot_fake_the_house() -> None:
    """A stranger writing X-Forwarded-For: 127.0.0.1 keeps their own address (the server
    trusts no proxy), and a loopback peer carrying a proxy's header is a proxy on this
    machine relaying someone from anywhere."""
    for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
        spoofed = {header: "127.0.0.1"}
        stranger = client_address("203.0.113.100", ["127.0.0.1"], ())
        assert not in_house(stranger, spoofed, HOUSE)
        assert not in_house(client_address("127.0.0.1", ["203.0.113.100"], ()), spoofed, HOUSE)


def test_behind_a_trusted_proxy_the_address_it_names_is_judged() -> None:
    trusted = (ipaddress.IPv4Network("127.0.0.1/32"),)
    relayed = client_address("127.0.0.1", ["203.0.113.100"], trusted)
    assert not in_house(relayed, {"X-Forwarded-For": "203.0.113.100"}, HOUSE)
    inside = client_address("127.0.0.1", ["192.168.77.31"], trusted)
    assert in_house(inside, {"X-Forwarded-For": "192.168.77.31"}, HOUSE)
