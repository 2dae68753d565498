"""server.adapters.addresses.forwarded: the rightmost-untrusted X-Forwarded-For rule, proxies."""

from __future__ import annotations

import ipaddress
from typing import TypeAlias

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from server.adapters.addresses.forwarded import (
    MAX_HOPS,
    ClientAddress,
    Network,
    _entry,
    client_address,
    ip_of,
)
from server.adapters.settings.config import ConfigError, load_settings

HOME = {"HOME": "/home/ann"}
PROXY = "172.30.87.10"
TRUSTED: tuple[Network, ...] = (
    ipaddress.ip_network(PROXY),
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1"),
)


def resolve(peer: str, *values: str, trusted: tuple[Network, ...] = TRUSTED) -> ClientAddress:
    return client_address(peer, values, trusted)


# --- examples ------------------------------------------------------------------------


def test_caddy_replaces_the_header_with_the_client() -> None:
    assert resolve(PROXY, "203.0.113.7") == ClientAddress("203.0.113.7", proxy=PROXY)


def test_nginx_appends_the_client_to_what_it_was_sent() -> None:
    forged = "198.51.100.1, 127.0.0.1, 203.0.113.7"  # the client wrote the first two
    assert resolve("127.0.0.1", forged).address == "203.0.113.7"


def test_trusted_hops_are_skipped_from_the_right() -> None:
    header = "198.51.100.1, 203.0.113.7, 127.0.0.1, 172.30.87.10"
    assert resolve("::1", header) == ClientAddress("203.0.113.7", proxy="::1")


def test_an_untrusted_peer_is_the_client_whatever_it_sends() -> None:
    assert resolve("203.0.113.9", "198.51.100.1") == ClientAddress("203.0.113.9")
    assert resolve("172.30.87.1", "198.51.100.1") == ClientAddress("172.30.87.1")  # gateway


def test_without_trusted_proxies_the_header_is_never_read() -> None:
    assert resolve("127.0.0.1", "198.51.100.1", trusted=()) == ClientAddress("127.0.0.1")


def test_a_peer_that_is_not_an_ip_address_is_not_trusted() -> None:
    assert resolve("/run/war.sock", "198.51.100.1") == ClientAddress("/run/war.sock")
    assert resolve("", "198.51.100.1") == ClientAddress("")


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ((), "no X-Forwarded-For header"),
        (("",), "no X-Forwarded-For header"),
        ((" , ",), "no X-Forwarded-For header"),
        (("unknown",), "not an address in X-Forwarded-For: 'unknown'"),
        (("203.0.113.7, ",), "not an address in X-Forwarded-For: ''"),
        (("203.0.113.7:http",), "not an address in X-Forwarded-For: '203.0.113.7:http'"),
        (("[2001:db8::1",), "not an address in X-Forwarded-For: '[2001:db8::1'"),
        (("[203.0.113.7]",), "not an address in X-Forwarded-For: '[203.0.113.7]'"),
        (("fe80::1%eth0",), "not an address in X-Forwarded-For: 'fe80::1%eth0'"),
        (("2001:db8::/64",), "not an address in X-Forwarded-For: '2001:db8::/64'"),
        (("x" * 500,), "not an address in X-Forwarded-For: '" + "x" * 40 + "'"),
    ],
)
def test_a_missing_or_malformed_header_gives_the_peer(values: tuple[str, ...], reason: str) -> None:
    assert client_address(PROXY, values, TRUSTED) == ClientAddress(PROXY, ignored=reason)


def test_junk_left_of_the_answer_is_never_read() -> None:
    assert resolve("127.0.0.1", "<script>, unknown, 203.0.113.7").address == "203.0.113.7"


@pytest.mark.parametrize(
    ("entry", "address"),
    [
        ("2001:db8::7", "2001:db8::7"),
        ("2001:DB8:0:0::7", "2001:db8::7"),
        ("[2001:db8::7]", "2001:db8::7"),
        ("[2001:db8::7]:4711", "2001:db8::7"),
        ("203.0.113.7:4711", "203.0.113.7"),
        ("\t203.0.113.7 ", "203.0.113.7"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
    ],
)
def test_entry_forms_and_normal_form(entry: str, address: str) -> None:
    assert resolve(PROXY, entry).address == address


def test_header_lines_read_as_one_list_in_order() -> None:
    assert resolve(PROXY, "198.51.100.1", "203.0.113.7").address == "203.0.113.7"
    assert resolve(PROXY, "203.0.113.7", "127.0.0.1").address == "203.0.113.7"


def test_a_mapped_or_zoned_peer_is_matched_as_its_address() -> None:
    assert resolve("::ffff:127.0.0.1", "203.0.113.7").address == "203.0.113.7"
    zoned = (ipaddress.ip_network("fe80::/10"),)
    assert resolve("fe80::1%eth0", "203.0.113.7", trusted=zoned).address == "203.0.113.7"


def test_when_every_entry_is_trusted_the_leftmost_is_the_client() -> None:
    assert resolve(PROXY, "127.0.0.5, 127.0.0.1") == ClientAddress("127.0.0.5", proxy=PROXY)


def test_a_chain_longer_than_max_hops_is_not_believed() -> None:
    at_most = ", ".join(["127.0.0.1"] * MAX_HOPS)
    assert resolve(PROXY, at_most).address == "127.0.0.1"
    assert resolve(PROXY, "203.0.113.7, " + at_most) == ClientAddress(
        PROXY, ignored=f"more than {MAX_HOPS} trusted X-Forwarded-For hops"
    )


def test_ip_of() -> None:
    assert ip_of("::ffff:10.0.0.1") == ipaddress.ip_address("10.0.0.1")
    assert ip_of("fe80::1%lo") == ipaddress.ip_address("fe80::1")
    assert ip_of("war") is None


# --- properties ----------------------------------------------------------------------

IP: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address


def _unmapped(address: IP) -> bool:
    return not isinstance(address, ipaddress.IPv6Address) or address.ipv4_mapped is None


def _network(address: IP, bits: int) -> Network:
    return ipaddress.ip_network((address, min(bits, address.max_prefixlen)), strict=False)


any_ip: st.SearchStrategy[IP] = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).filter(
    _unmapped
)
networks: st.SearchStrategy[tuple[Network, ...]] = st.lists(
    st.builds(_network, any_ip, st.integers(8, 128)), min_size=1, max_size=4
).map(tuple)
header_text = st.text(
    alphabet=st.sampled_from("0123456789abcdef.:,[] \t%xunknow"), max_size=80
) | st.lists(any_ip.map(str), max_size=5).map(", ".join)


def _trusted(address: IP, nets: tuple[Network, ...]) -> bool:
    # an IPv4 address is trusted in its IPv4-mapped IPv6 form too (::ffff:a.b.c.d)
    forms: list[IP] = [address]
    if isinstance(address, ipaddress.IPv4Address):
        forms.append(ipaddress.IPv6Address(int(ipaddress.IPv6Address("::ffff:0:0")) | int(address)))
    return any(form in net for form in forms for net in nets)


@given(trusted=networks, peer=any_ip, values=st.lists(header_text, max_size=3))
def test_a_forged_header_from_an_untrusted_peer_is_never_believed(
    trusted: tuple[Network, ...],
    peer: IP,
    values: list[str],
) -> None:
    assume(not _trusted(peer, trusted))
    assert client_address(str(peer), values, trusted) == ClientAddress(str(peer))


@given(
    trusted=networks,
    client=any_ip,
    forged=st.lists(header_text, max_size=3),
    hops=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 2**64)), min_size=1, max_size=MAX_HOPS
    ),
    split=st.booleans(),
)
def test_the_client_behind_trusted_proxies_is_found_whatever_it_forged(
    trusted: tuple[Network, ...],
    client: IP,
    forged: list[str],
    hops: list[tuple[int, int]],
    split: bool,
) -> None:
    """Client → proxy 1 → … → proxy n → server; each proxy appends the address it saw."""
    assume(not _trusted(client, trusted))
    nets = [trusted[i % len(trusted)] for i, _ in hops]
    proxies = [str(net[n % net.num_addresses]) for net, (_, n) in zip(nets, hops, strict=True)]
    added = [str(client), *proxies[:-1]]  # what proxies 1..n wrote: who connected to them
    # one header line, or each entry on a line of its own
    values = [*forged, *added] if split else [", ".join([*forged, *added])]
    found = client_address(proxies[-1], values, trusted)
    assert found == ClientAddress(str(client), proxy=proxies[-1])


@given(trusted=networks, peer=any_ip, values=st.lists(header_text, max_size=3))
def test_the_answer_is_the_peer_or_an_entry_of_the_header(
    trusted: tuple[Network, ...],
    peer: IP,
    values: list[str],
) -> None:
    found = client_address(str(peer), values, trusted)
    if found.proxy is None:
        assert found.address == str(peer)
    else:
        assert found.proxy == str(peer)
        assert found.ignored is None
        entries = {str(_entry(e)) for value in values for e in value.split(",")}
        assert found.address in entries


# --- the setting ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("none", ()),
        ("None", ()),
        ("172.30.87.10", ("172.30.87.10/32",)),
        (" 127.0.0.1 , ::1 ", ("127.0.0.1/32", "::1/128")),
        ("10.0.0.0/8,fd00::/8", ("10.0.0.0/8", "fd00::/8")),
    ],
)
def test_trusted_proxies_setting(text: str, expected: tuple[str, ...]) -> None:
    by_flag = load_settings(["--trusted-proxies", text], HOME).trusted_proxies
    by_env = load_settings([], {**HOME, "WAR_TRUSTED_PROXIES": text}).trusted_proxies
    assert by_flag == by_env == tuple(ipaddress.ip_network(n) for n in expected)


def test_trusted_proxies_default_to_none() -> None:
    assert load_settings([], HOME).trusted_proxies == ()
    assert load_settings([], {**HOME, "WAR_TRUSTED_PROXIES": " "}).trusted_proxies == ()


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (
            ["--trusted-proxies", "caddy"],
            {},
            "--trusted-proxies: not an IP address or network: 'caddy'",
        ),
        (
            [],
            {"WAR_TRUSTED_PROXIES": "10.0.0.1/8"},
            "WAR_TRUSTED_PROXIES: not an IP address or network: '10.0.0.1/8' "
            "(10.0.0.1/8 has host bits set)",
        ),
        (
            ["--trusted-proxies", "10.0.0.0/33"],
            {},
            "--trusted-proxies: not an IP address or network: '10.0.0.0/33'",
        ),
        (
            ["--trusted-proxies", "127.0.0.1,,::1"],
            {},
            "--trusted-proxies: an empty entry in the list '127.0.0.1,,::1'",
        ),
        (
            ["--trusted-proxies", "127.0.0.1 ::1"],
            {},
            "--trusted-proxies: not an IP address or network: '127.0.0.1 ::1'",
        ),
    ],
)
def test_bad_trusted_proxies_are_named(argv: list[str], env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_settings(argv, {**HOME, **env})
    assert str(error.value).startswith(message)


def test_a_trusted_ipv6_network_covers_the_ipv4_addresses_mapped_into_it() -> None:
    # found by hypothesis: a proxy at ::ffff:0:0 inside a trusted ::/8 is read as 0.0.0.0
    trusted = (ipaddress.IPv6Network("::/8"),)
    found = client_address("::ffff:0:0", ["203.0.113.9"], trusted)
    assert found.address == "203.0.113.9"
    mapped = (ipaddress.IPv6Network("::ffff:10.0.0.0/104"),)
    assert client_address("10.1.2.3", ["203.0.113.9"], mapped).address == "203.0.113.9"
    assert client_address("11.1.2.3", ["203.0.113.9"], mapped).address == "11.1.2.3"
