"""The router step (server/adapters/outside's door) against a real router: Debian's miniupnpd in
the lab (tests/lab/lab.py), by UPnP-IGD v2 and v1, PCP and NAT-PMP."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from ipaddress import IPv4Address, IPv6Address
from typing import cast

import pytest

from server.adapters.outside import (
    Ipv6RefusedError,
    NoRouterError,
    Options,
    OutsideError,
    Pinhole,
    PortTakenError,
    RouterRefusedError,
    SharedAddressError,
    open_ipv6,
    open_outside,
)
from server.adapters.outside.door import Method
from server.adapters.outside.routers import Ask, NatPmpRouter, PcpRouter
from tests.lab.lab import (
    CGNAT_WAN_IP,
    DEN_IP,
    HOME_IP,
    HOME_IP6,
    NET_IP6,
    ROUTER_LAN_IP,
    WAN_IP,
    Forward,
    Lab,
)

OURS = Forward("tcp", 443, HOME_IP, 8443)
WAIT = 20.0  # seconds: a bound far above what any step takes, never a measure
METHODS: list[tuple[Method, ...]] = [("upnp",), ("pcp",), ("nat-pmp",)]


def _reach(lab: Lab, address: str, port: int) -> str:
    """Connect from the internet to `address`:`port` and return what the home's listener
    on 8443 saw as the peer's address."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with lab.inside("home"):
        listener = socket.create_server(("::" if family == socket.AF_INET6 else HOME_IP, 8443),
                                        family=family)  # fmt: skip
    with listener:
        listener.settimeout(WAIT)
        with lab.inside("net"):
            client = socket.create_connection((address, port), timeout=WAIT)
        with client:
            accepted, peer = listener.accept()
            accepted.close()
    return str(peer[0])


async def test_upnp_opens_the_port_to_this_machine_and_closing_removes_it(lab: Lab) -> None:
    with lab.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",), ipv6=False)) as door:
            assert door.protocol == "upnp-igd2"
            assert door.external_address == IPv4Address(WAN_IP)
            assert door.lan_address == IPv4Address(HOME_IP)
            assert door.url == "https://203.0.113.2/"
            assert lab.forwards() == [OURS]
            listed = lab.upnpc("home", "-l")
            assert "Family War" in listed
            assert _reach(lab, WAN_IP, 443) == "203.0.113.100"
        assert lab.forwards() == []


async def test_an_igd_version_1_is_asked_alike(lab_igd1: Lab) -> None:
    with lab_igd1.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",), ipv6=False)) as door:
            assert door.protocol == "upnp-igd1"
            assert lab_igd1.forwards() == [OURS]
        assert lab_igd1.forwards() == []


@pytest.mark.parametrize("methods", [("pcp",), ("nat-pmp",)])
async def test_pcp_and_nat_pmp_open_the_port_and_closing_removes_it(
    lab_no_upnp: Lab, methods: tuple[Method, ...]
) -> None:
    with lab_no_upnp.inside("home"):
        async with open_outside(8443, 443, Options(methods=methods, ipv6=False)) as door:
            assert door.protocol == methods[0]
            assert door.external_address == IPv4Address(WAN_IP)
            assert lab_no_upnp.forwards() == [OURS]
            assert _reach(lab_no_upnp, WAN_IP, 443) == "203.0.113.100"
        assert lab_no_upnp.forwards() == []


async def test_with_upnp_off_the_door_falls_back_to_pcp_then_nat_pmp(lab_no_upnp: Lab) -> None:
    with lab_no_upnp.inside("home"):
        async with open_outside(8443, 443, Options(ssdp_wait=0.5, ipv6=False)) as door:
            assert door.protocol == "pcp"
        async with open_outside(
            8443, 443, Options(methods=("upnp", "nat-pmp"), ssdp_wait=0.5, ipv6=False)
        ) as door:
            assert door.protocol == "nat-pmp"
            assert lab_no_upnp.forwards() == [OURS]
        assert lab_no_upnp.forwards() == []


async def test_no_router_answering_is_said_with_what_to_do(lab_no_upnp: Lab) -> None:
    with lab_no_upnp.inside("home"), pytest.raises(NoRouterError) as failed:
        async with open_outside(8443, 443, Options(methods=("upnp",), ssdp_wait=0.5, ipv6=False)):
            pass
    said = str(failed.value)
    assert failed.value.step == "router"
    assert "UPnP" in said and "docs/hosting.md" in said and "192.168.77.20:8443" in said


@pytest.mark.parametrize("methods", METHODS)
async def test_the_lease_is_renewed_before_it_runs_out(
    make_lab: Callable[..., Lab], methods: tuple[Method, ...]
) -> None:
    lab = make_lab("public")
    with lab.inside("home"):
        async with open_outside(
            8443, 443, Options(methods=methods, lease=2, check_every=60, ipv6=False)
        ) as door:
            for renewal in (1, 2, 3):  # 3 renewals at half the lease: past the first lease
                assert await asyncio.wait_for(door.renewed(), WAIT) == renewal
                assert lab.forwards() == [OURS]
        assert lab.forwards() == []


@pytest.mark.parametrize("methods", METHODS)
async def test_another_machines_mapping_is_never_taken(
    lab: Lab, methods: tuple[Method, ...]
) -> None:
    theirs = Forward("tcp", 443, DEN_IP, 443)
    lab.upnpc("den", "-e", "the den's", "-a", DEN_IP, "443", "443", "TCP", "0")
    try:
        assert lab.forwards() == [theirs]
        with lab.inside("home"), pytest.raises(PortTakenError) as taken:
            async with open_outside(8443, 443, Options(methods=methods, ipv6=False)):
                pass
        assert taken.value.public_port == 443
        assert "443" in str(taken.value) and "--outside-port" in str(taken.value)
        if methods == ("upnp",):
            assert taken.value.holder == f"{DEN_IP}:443"
        assert lab.forwards() == [theirs]  # theirs untouched, nothing of ours left
    finally:
        lab.upnpc("den", "-d", "443", "TCP")
    assert lab.forwards() == []


async def test_another_port_is_free_beside_theirs(lab: Lab) -> None:
    lab.upnpc("den", "-a", DEN_IP, "443", "443", "TCP", "0")
    try:
        with lab.inside("home"):
            async with open_outside(8443, 8443, Options(methods=("upnp",), ipv6=False)) as door:
                assert door.url == "https://203.0.113.2:8443/"
                assert Forward("tcp", 8443, HOME_IP, 8443) in lab.forwards()
    finally:
        lab.upnpc("den", "-d", "443", "TCP")
    assert lab.forwards() == []


async def test_a_stale_mapping_of_ours_is_taken_back_and_removed(lab: Lab) -> None:
    # what a server killed without a clean exit leaves: 443 to this machine's 8443
    lab.upnpc("home", "-e", "Family War", "-a", HOME_IP, "8443", "443", "TCP", "0")
    assert lab.forwards() == [OURS]
    with lab.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",), ipv6=False)) as door:
            assert door.protocol == "upnp-igd2"
            assert lab.forwards() == [OURS]
    assert lab.forwards() == []


@pytest.mark.parametrize("method", ["pcp", "nat-pmp"])
async def test_a_stale_pcp_or_nat_pmp_mapping_of_ours_is_taken_back(
    lab_no_upnp: Lab, method: Method
) -> None:
    ask = Ask(IPv4Address(HOME_IP), 8443, 443, "Family War")
    gateway = IPv4Address(ROUTER_LAN_IP)
    with lab_no_upnp.inside("home"):
        # a server killed without a clean exit: its mapping (and its PCP nonce) left behind
        crashed = PcpRouter(ask, gateway) if method == "pcp" else NatPmpRouter(ask, gateway)
        await crashed.map(3600)
        assert lab_no_upnp.forwards() == [OURS]
        async with open_outside(8443, 443, Options(methods=(method,), ipv6=False)) as door:
            assert door.protocol == method
            assert lab_no_upnp.forwards() == [OURS]
    assert lab_no_upnp.forwards() == []


@pytest.mark.parametrize("methods", METHODS)
async def test_a_shared_address_is_said_and_nothing_is_left_mapped(
    lab_cgnat: Lab, methods: tuple[Method, ...]
) -> None:
    with lab_cgnat.inside("home"), pytest.raises(SharedAddressError) as shared:
        async with open_outside(8443, 443, Options(methods=methods, ipv6=False)):
            pass
    assert shared.value.address == IPv4Address(CGNAT_WAN_IP)
    said = str(shared.value)
    assert "shared address (carrier-grade NAT)" in said
    assert "public IPv4 address" in said and "IPv6" in said and "tunnel" in said
    assert lab_cgnat.forwards() == []


async def test_a_new_external_address_is_a_change(make_lab: Callable[..., Lab]) -> None:
    lab = make_lab("public")
    with lab.inside("home"):
        async with open_outside(
            8443, 443, Options(methods=("upnp",), check_every=0.2, ipv6=False)
        ) as door:
            changes = door.changes()
            lab.set_wan_ip("203.0.113.5")
            change = await asyncio.wait_for(anext(changes), WAIT)
            assert change.external_address == IPv4Address("203.0.113.5")
            assert change.lost is None
            assert door.url == "https://203.0.113.5/"
            assert door.renewals == 1, "the mapping is asked for again for the new address"
            assert lab.forwards() == [OURS]
            assert _reach(lab, "203.0.113.5", 443) == "203.0.113.100"
        assert lab.forwards() == []


async def test_ipv6_opens_a_pinhole_to_the_global_address(lab_ipv6: Lab) -> None:
    with lab_ipv6.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",))) as door:
            assert door.ipv6 == Pinhole(IPv6Address(HOME_IP6), 8443)
            assert door.ipv6.url == "https://[2001:db8:77::20]:8443/"
            assert _reach(lab_ipv6, HOME_IP6, 8443) == NET_IP6
            assert lab_ipv6.pinholes() == [(HOME_IP6, 8443)]
        assert lab_ipv6.pinholes() == []
        assert lab_ipv6.forwards() == []


async def test_without_pcp_the_pinhole_is_asked_of_upnps_ipv6_firewall(
    make_lab: Callable[..., Lab],
) -> None:
    lab = make_lab("ipv6", pcp=False)
    with lab.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",), lease=2)) as door:
            assert door.ipv6 == Pinhole(IPv6Address(HOME_IP6), 8443)
            assert lab.pinholes() == [(HOME_IP6, 8443)]
            await asyncio.wait_for(door.renewed(), WAIT)  # UpdatePinhole with the mapping
            assert lab.pinholes() == [(HOME_IP6, 8443)]
            assert _reach(lab, HOME_IP6, 8443) == NET_IP6
        assert lab.pinholes() == []
        assert lab.forwards() == []


async def test_a_router_that_stops_answering_is_a_lost_door_until_it_is_back(
    make_lab: Callable[..., Lab],
) -> None:
    lab = make_lab("public")
    options = Options(methods=("upnp",), check_every=0.2, retry_after=0.2, ipv6=False)
    with lab.inside("home"):
        async with open_outside(8443, 443, options) as door:
            changes = door.changes()
            lab.stop_router()  # the router reboots: its daemon gone, its rules with it
            lost = await asyncio.wait_for(anext(changes), WAIT)
            assert lost.external_address is None and lost.lost is not None
            assert lost.lost.step == "router"
            lab.start_router()
            back = await asyncio.wait_for(anext(changes), WAIT)
            assert back.external_address == IPv4Address(WAN_IP) and back.lost is None
            assert lab.forwards() == [OURS]  # mapped anew
        assert lab.forwards() == []


class RogueDevice:
    """A machine in the house (the den) posing as a router: it answers every SSDP search,
    once sending us to the internet and once to its own description, a billion-laughs
    XML bomb; its HTTP server counts what it is asked."""

    BOMB = (
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>'
        b"<root>&c;</root>"
    )

    def __init__(self) -> None:
        self.searches = 0
        self.fetches = 0

    async def start(self, lab: Lab) -> list[asyncio.BaseTransport | asyncio.Server]:
        loop = asyncio.get_running_loop()
        with lab.inside("den"):
            ssdp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ssdp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ssdp.bind(("", 1900))
            group = socket.inet_aton("239.255.255.250") + socket.inet_aton(DEN_IP)
            ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group)
            transport, _ = await loop.create_datagram_endpoint(lambda: _RogueSsdp(self), sock=ssdp)
            server = await asyncio.start_server(self._http, DEN_IP, 5000)
        return [transport, server]

    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        self.fetches += 1
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n"
            + f"Content-Length: {len(self.BOMB)}\r\n\r\n".encode()
            + self.BOMB
        )
        await writer.drain()
        writer.close()


class _RogueSsdp(asyncio.DatagramProtocol):
    def __init__(self, rogue: RogueDevice) -> None:
        self.rogue = rogue

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | object, ...]) -> None:
        if not data.startswith(b"M-SEARCH"):
            return
        self.rogue.searches += 1
        target = "urn:schemas-upnp-org:device:InternetGatewayDevice:2"
        for location in ("http://203.0.113.100/rootDesc.xml", f"http://{DEN_IP}:5000/d.xml"):
            answer = f"HTTP/1.1 200 OK\r\nST: {target}\r\nLOCATION: {location}\r\n\r\n"
            self.transport.sendto(answer.encode(), (str(addr[0]), int(str(addr[1]))))


@pytest.mark.parametrize("variant", ["public", "no-upnp"])
async def test_a_machine_posing_as_the_router_is_not_believed(
    make_lab: Callable[..., Lab], variant: str
) -> None:
    lab = make_lab(variant)
    rogue = RogueDevice()
    opened = await rogue.start(lab)
    try:
        with lab.inside("home"):
            async with open_outside(8443, 443, Options(ssdp_wait=0.5, ipv6=False)) as door:
                assert door.protocol == ("upnp-igd2" if variant == "public" else "pcp")
                assert lab.forwards() == [OURS]
        assert rogue.searches >= 1  # it heard the search and answered
        assert rogue.fetches == 0  # and was never asked for anything
        assert lab.forwards() == []
    finally:
        for closing in opened:
            closing.close()


async def test_a_router_that_rebooted_between_checks_is_asked_again_at_once(
    make_lab: Callable[..., Lab],
) -> None:
    lab = make_lab("public")
    options = Options(methods=("upnp",), check_every=0.3, retry_after=0.3, ipv6=False)
    with lab.inside("home"):
        async with open_outside(8443, 443, options) as door:  # a lease of an hour
            lab.stop_router()
            lab.start_router()
            assert lab.forwards() == []  # the router forgot the mapping
            await asyncio.wait_for(door.renewed(), WAIT)  # the next check maps it again
            assert lab.forwards() == [OURS]
        assert lab.forwards() == []


async def test_behind_a_shared_address_the_ipv6_pinhole_opens_alone(
    make_lab: Callable[..., Lab],
) -> None:
    """The carrier shares the IPv4 address and routes IPv6: the IPv4 door is refused
    (shared address) and leaves nothing, the pinhole alone opens, is renewed, is lost
    while the router is down and back when it is up, and is removed at the end."""
    lab = make_lab("cgnat6")
    six = IPv6Address(HOME_IP6)
    options = Options(lease=2, retry_after=0.2, ssdp_wait=0.5)
    with lab.inside("home"):
        with pytest.raises(SharedAddressError):
            async with open_outside(8443, 443, Options(methods=("upnp",), ipv6=False)):
                pass
        async with open_ipv6(six, 8443, options) as door:
            assert door.ipv6 == Pinhole(six, 8443)
            assert door.external_address == six and door.public_port == 8443
            assert lab.pinholes() == [(HOME_IP6, 8443)]
            assert lab.forwards() == []
            # (in a thread: the loop goes on renewing the pinhole's 2 s lease meanwhile)
            assert await asyncio.to_thread(_reach, lab, HOME_IP6, 8443) == NET_IP6
            changes = door.changes()
            lab.stop_router()
            lost = await asyncio.wait_for(anext(changes), WAIT)
            assert lost.lost is not None and lost.external_address is None
            lab.start_router()
            back = await asyncio.wait_for(anext(changes), WAIT)
            assert back.lost is None and back.ipv6 == Pinhole(six, 8443)
            assert lab.pinholes() == [(HOME_IP6, 8443)]
        assert lab.pinholes() == []


async def test_a_router_that_opens_no_pinhole_is_said(make_lab: Callable[..., Lab]) -> None:
    lab = make_lab("cgnat")  # no IPv6 at all: nothing to open a pinhole to
    with lab.inside("home"), pytest.raises(Ipv6RefusedError) as refused:
        async with open_ipv6(IPv6Address(HOME_IP6), 443, Options(ssdp_wait=0.5)):
            pass
    assert refused.value.step == "ipv6"
    assert "UPnP or PCP for IPv6" in str(refused.value)


@pytest.mark.parametrize("pcp", [True, False], ids=["pcp", "upnp"])
async def test_a_pinhole_moves_to_a_renumbered_address(
    make_lab: Callable[..., Lab], pcp: bool
) -> None:
    """The provider renumbers the home's prefix (the old address deprecated, still the
    machine's): the old pinhole is removed from the old address (PCP, or UPnP's
    DeletePinhole, which the router takes only from the address it opened for), the new
    one opened, renewed with the mapping, and it alone reaches the home."""
    lab = make_lab("ipv6", pcp=pcp)
    # (the lab's miniupnpd 2.3 no longer lets PCP remove a pinhole PCP renewed, "Unauthorized
    # to remove PCP mapping": the renewal is watched over UPnP only)
    lease = 3600 if pcp else 2
    with lab.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",), lease=lease)) as door:
            assert lab.pinholes() == [(HOME_IP6, 8443)]
            moved = IPv6Address(lab.renumber_ipv6())
            await door.remove_pinhole()
            assert door.ipv6 is None and lab.pinholes() == []
            assert await door.add_pinhole(moved, 8443) == Pinhole(moved, 8443)
            assert lab.pinholes() == [(str(moved), 8443)]
            if not pcp:
                await asyncio.wait_for(door.renewed(), WAIT)  # UpdatePinhole, the new one's
                assert lab.pinholes() == [(str(moved), 8443)]
            assert lab.forwards() == [OURS]
            lab.drop_old_ipv6()
            assert await asyncio.to_thread(_reach, lab, str(moved), 8443) == NET_IP6
        assert lab.pinholes() == []
        assert lab.forwards() == []


async def test_behind_a_shared_address_the_pinhole_alone_moves(
    make_lab: Callable[..., Lab],
) -> None:
    """The old address already gone when the server looks (no deprecation first): the
    router will not hear from it, so removing its pinhole fails, saying so, and ends with
    its lease; the pinhole alone to the new address opens, renews and closes all the same."""
    lab = make_lab("cgnat6", pcp=False)  # UPnP's pinholes (PCP's: see the test above)
    options = Options(lease=2, retry_after=0.2, ssdp_wait=0.5)
    with lab.inside("home"):
        async with open_ipv6(IPv6Address(HOME_IP6), 8443, options) as door:
            moved = IPv6Address(lab.renumber_ipv6())
            lab.drop_old_ipv6()
            with pytest.raises((OSError, OutsideError)):
                await door.remove_pinhole()
            assert door.ipv6 is None
            assert await door.add_pinhole(moved, 8443) == Pinhole(moved, 8443)
            assert door.external_address == moved and door.public_port == 8443
            renewals = door.renewals
            changes = door.changes()
            lab.stop_router()  # renewals of the new pinhole go on: lost, then back
            lost = await asyncio.wait_for(anext(changes), WAIT)
            assert lost.lost is not None
            lab.start_router()
            back = await asyncio.wait_for(anext(changes), WAIT)
            assert back.ipv6 == Pinhole(moved, 8443) and door.renewals > renewals
            assert lab.pinholes() == [(str(moved), 8443)]
            assert await asyncio.to_thread(_reach, lab, str(moved), 8443) == NET_IP6
        assert lab.pinholes() == []


async def test_a_pinhole_the_router_will_not_remove_is_said(make_lab: Callable[..., Lab]) -> None:
    """The lab's miniupnpd 2.3 refuses to remove, by PCP, a pinhole PCP has renewed ("not
    authorized"): the removal raises, saying so, rather than pass for done; the pinhole
    stays until its lease ends."""
    lab = make_lab("ipv6")
    with lab.inside("home"):
        async with open_outside(8443, 443, Options(methods=("upnp",), lease=6)) as door:
            assert door.ipv6 is not None and lab.pinholes() == [(HOME_IP6, 8443)]
            await asyncio.wait_for(door.renewed(), WAIT)
            with pytest.raises(RouterRefusedError, match="would not remove the mapping"):
                await door.remove_pinhole()
            assert door.ipv6 is None
            assert lab.pinholes() == [(HOME_IP6, 8443)]
        assert lab.forwards() == []
