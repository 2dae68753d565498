"""Whose address is whose: shared (carrier-grade NAT) addresses, the default gateways, and
this machine's global IPv6 addresses, from Linux's /proc tables."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.adapters.outside.addresses import (
    is_shared,
    parse_default_gateway,
    parse_default_gateway6,
    parse_global_ipv6,
)


@pytest.mark.parametrize(
    ("address", "shared"),
    [
        ("100.64.0.2", True),  # RFC 6598, the carrier's shared space
        ("100.127.255.254", True),
        ("10.1.2.3", True),
        ("172.16.0.1", True),
        ("172.31.255.1", True),
        ("192.168.1.1", True),
        ("169.254.3.4", True),
        ("0.0.0.0", True),
        ("203.0.113.2", False),  # a documentation address: public for this purpose
        ("100.128.0.1", False),
        ("100.63.255.255", False),
        ("172.32.0.1", False),
        ("81.2.69.160", False),
    ],
)
def test_a_shared_address_is_told_from_the_lines_own(address: str, shared: bool) -> None:
    assert is_shared(IPv4Address(address)) is shared


ROUTE = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
eth0\t00000000\t014DA8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
"""


def test_the_default_gateway_is_the_lowest_metric_default_route() -> None:
    assert parse_default_gateway(ROUTE) == IPv4Address("192.168.77.1")
    assert parse_default_gateway(ROUTE.splitlines()[0]) is None


IPV6_ROUTE = (
    "20010db8007700000000000000000000 40 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0\n"
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "20010db8007700000000000000000001 00000400 00000003 00000000 00000003     eth0\n"
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\n"
)


def test_the_ipv6_default_router_and_its_interface() -> None:
    assert parse_default_gateway6(IPV6_ROUTE) == (IPv6Address("2001:db8:77::1"), "eth0")
    assert parse_default_gateway6(IPV6_ROUTE.splitlines()[2]) is None


IF_INET6 = """00000000000000000000000000000001 01 80 10 80       lo
20010db8007700000000000000000020 02 40 00 80     eth0
20010db800770000a1b2c3d4e5f60718 02 40 00 01     eth0
20010db8007700000000000000000099 02 40 00 20     eth0
fd000000000000000000000000000002 02 40 00 80     eth0
fe80000000000000706486fffe99708d 02 40 20 80     eth0
"""


def test_only_stable_global_ipv6_addresses_are_offered() -> None:
    # not the temporary (0x01), the deprecated (0x20), the unique-local nor the link-local
    assert parse_global_ipv6(IF_INET6) == [IPv6Address("2001:db8:77::20")]


@given(st.text(max_size=400))
def test_garbage_tables_give_nothing_rather_than_an_error(text: str) -> None:
    parse_default_gateway(text)
    parse_default_gateway6(text)
    parse_global_ipv6(text)
