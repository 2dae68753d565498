"""The router step's decisions against routers that refuse, conflict, lie or vanish
(stand-ins at the transport's seam: no network), and the door's life: renewals, a new
address, a lost router and its return, removal on close even under cancellation."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable
from ipaddress import IPv4Address
from typing import Any, TypeVar

import pytest

from server.adapters.outside import (
    NoRouterError,
    Options,
    OutsideError,
    PortTakenError,
    RouterRefusedError,
    SharedAddressError,
    door,
    open_outside,
    transport,
)
from server.adapters.outside.routers import (
    Ask,
    Grant,
    NatPmpRouter,
    PcpRouter,
    RouterGoneError,
    UpnpRouter,
)
from server.adapters.outside.wire import httpwire, natpmp, pcp, upnp, xmlsafe

T = TypeVar("T")
ROUTER = IPv4Address("192.168.77.1")
ASK = Ask(IPv4Address("192.168.77.20"), 8443, 443, "Family War")
WAN = "urn:schemas-upnp-org:service:WANIPConnection:2"
GATEWAY = upnp.Gateway(2, upnp.Service(WAN, "/ctl/IPConn"), None)
LOCATION = upnp.Location(ROUTER, 5000, "/rootDesc.xml", upnp.IGD2)


class FakeIgd:
    """A UPnP IGD's WAN service: mappings by public port, and errors to answer with."""

    def __init__(self, external: str = "203.0.113.2") -> None:
        self.external = external
        self.mappings: dict[str, tuple[str, str, str]] = {}  # port -> client, port, lease
        self.errors: dict[str, list[int]] = {}
        self.calls: list[str] = []

    async def http(
        self, _endpoint: object, _method: str, _path: str, soap: tuple[dict[str, str], bytes]
    ) -> httpwire.Answer:
        headers, body = soap
        action = headers["SOAPAction"].strip('"').split("#")[1]
        self.calls.append(action)
        call = xmlsafe.parse(body).iter(action)[0]
        arguments = {child.tag: child.text for child in call.children}
        if self.errors.get(action):
            return _fault(self.errors[action].pop(0))
        port = arguments.get("NewExternalPort", "")
        out: dict[str, str] = {}
        if action == "GetExternalIPAddress":
            out = {"NewExternalIPAddress": self.external}
        elif action == "GetSpecificPortMappingEntry":
            if port not in self.mappings:
                return _fault(upnp.NO_SUCH_ENTRY)
            client, internal, lease = self.mappings[port]
            out = {"NewInternalClient": client, "NewInternalPort": internal,
                   "NewLeaseDuration": lease}  # fmt: skip
        elif action == "AddPortMapping":
            self.mappings[port] = (
                arguments["NewInternalClient"], arguments["NewInternalPort"],
                arguments["NewLeaseDuration"],
            )  # fmt: skip
        elif action == "DeletePortMapping":
            del self.mappings[port]
        inner = "".join(f"<{k}>{v}</{k}>" for k, v in out.items())
        return httpwire.Answer(200, {}, _envelope(f'<u:{action}Response xmlns:u="{WAN}">{inner}'
                                                  f"</u:{action}Response>"))  # fmt: skip


def _envelope(inner: str) -> bytes:
    return (
        '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/">'
        f"<s:Body>{inner}</s:Body></s:Envelope>"
    ).encode()


def _fault(code: int) -> httpwire.Answer:
    return httpwire.Answer(500, {}, _envelope(
        "<s:Fault><detail><UPnPError xmlns=\"urn:schemas-upnp-org:control-1-0\">"
        f"<errorCode>{code}</errorCode><errorDescription>E</errorDescription></UPnPError>"
        "</detail></s:Fault>"))  # fmt: skip


@pytest.fixture
def igd(monkeypatch: pytest.MonkeyPatch) -> FakeIgd:
    fake = FakeIgd()
    monkeypatch.setattr(transport, "http", fake.http)
    return fake


async def test_upnp_maps_then_removes_only_its_own(igd: FakeIgd) -> None:
    router = UpnpRouter(ASK, LOCATION, GATEWAY)
    assert await router.external_address() == IPv4Address("203.0.113.2")
    assert await router.map(3600) == Grant(443, 3600, None)
    assert igd.mappings == {"443": ("192.168.77.20", "8443", "3600")}
    assert igd.calls == ["GetExternalIPAddress", "GetSpecificPortMappingEntry", "AddPortMapping"]
    igd.mappings["443"] = ("192.168.77.30", "443", "0")  # ours ran out; the den took the port
    await router.unmap()
    assert igd.mappings == {"443": ("192.168.77.30", "443", "0")}
    assert "DeletePortMapping" not in igd.calls


async def test_upnp_falls_back_to_a_permanent_lease_when_the_router_wants_one(igd: FakeIgd) -> None:
    igd.errors["AddPortMapping"] = [upnp.ONLY_PERMANENT_LEASES]
    router = UpnpRouter(ASK, LOCATION, GATEWAY)
    assert await router.map(3600) == Grant(443, 0, None)
    assert igd.mappings["443"] == ("192.168.77.20", "8443", "0")
    await router.unmap()
    assert igd.mappings == {}


async def test_upnp_a_conflict_is_a_taken_port_and_a_refusal_is_said(igd: FakeIgd) -> None:
    igd.errors["AddPortMapping"] = [upnp.CONFLICT, 606]
    router = UpnpRouter(ASK, LOCATION, GATEWAY)
    with pytest.raises(PortTakenError):
        await router.map(3600)
    with pytest.raises(RouterRefusedError) as refused:
        await router.map(3600)
    assert "upnp-igd2" in str(refused.value) and "606" in str(refused.value)


@pytest.mark.parametrize(
    ("external", "failure"),
    [
        ("", RouterRefusedError),
        ("0.0.0.0", RouterRefusedError),
        ("not an address", RouterRefusedError),
        ("10.0.0.2", SharedAddressError),
        ("100.64.0.2", SharedAddressError),
    ],
)
async def test_upnp_an_external_address_not_the_lines_own_is_a_failure(
    igd: FakeIgd, external: str, failure: type[OutsideError]
) -> None:
    igd.external = external
    with pytest.raises(failure):
        await UpnpRouter(ASK, LOCATION, GATEWAY).external_address()


async def test_upnp_an_answer_that_is_not_soap_is_a_refusal(
    igd: FakeIgd, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def garbage(*_: object) -> httpwire.Answer:
        return httpwire.Answer(200, {}, b"<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>")

    monkeypatch.setattr(transport, "http", garbage)
    with pytest.raises(RouterRefusedError, match="not UPnP"):
        await UpnpRouter(ASK, LOCATION, GATEWAY).map(3600)


def _udp(monkeypatch: pytest.MonkeyPatch, answer: Callable[[bytes], bytes | None]) -> list[bytes]:
    sent: list[bytes] = []

    async def ask_udp(
        _peer: object, payload: bytes, accept: Callable[[bytes], T | None], _local: object
    ) -> T | None:
        sent.append(payload)
        data = answer(payload)
        return None if data is None else accept(data)

    monkeypatch.setattr(transport, "ask_udp", ask_udp)
    return sent


def _pmp_map(result: int, public: int) -> bytes:
    return struct.pack("!BBHIHHI", 0, 130, result, 9, 8443, public, 3600)


async def test_nat_pmp_a_mapping_on_another_port_is_given_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent = _udp(monkeypatch, lambda payload: _pmp_map(0, 1024 if payload[6:8] != b"\0\0" else 0))
    with pytest.raises(PortTakenError):
        await NatPmpRouter(ASK, ROUTER).map(3600)
    assert sent == [natpmp.map_request(8443, 443, 3600), natpmp.map_request(8443, 0, 0)]


async def test_nat_pmp_refusals_and_silence(monkeypatch: pytest.MonkeyPatch) -> None:
    _udp(monkeypatch, lambda _payload: _pmp_map(2, 0)[:8])
    with pytest.raises(RouterRefusedError) as refused:
        await NatPmpRouter(ASK, ROUTER).map(3600)
    assert "not authorized" in str(refused.value)
    _udp(monkeypatch, lambda _payload: struct.pack("!BBHI4s", 0, 128, 3, 9, b"\0" * 4))
    with pytest.raises(RouterRefusedError, match="no external address"):
        await NatPmpRouter(ASK, ROUTER).external_address()
    _udp(monkeypatch, lambda _payload: None)
    with pytest.raises(RouterGoneError):
        await NatPmpRouter(ASK, ROUTER).map(3600)


def _pcp_answer(request: bytes, result: int, public: int, address: str = "203.0.113.2") -> bytes:
    header = struct.pack("!BBBBII12s", 2, 0x81, 0, result, 3600, 9, b"\0" * 12)
    mapped = b"\0" * 10 + b"\xff\xff" + IPv4Address(address).packed
    return header + struct.pack("!12sB3sHH16s", request[24:36], 6, b"\0" * 3, 8443, public, mapped)


async def test_pcp_taken_ports_refusals_and_a_nat_pmp_only_router(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _udp(monkeypatch, lambda request: _pcp_answer(request, pcp.CANNOT_PROVIDE_EXTERNAL, 0))
    with pytest.raises(PortTakenError):
        await PcpRouter(ASK, ROUTER).map(3600)
    sent = _udp(monkeypatch, lambda request: _pcp_answer(request, 0, 2000))
    with pytest.raises(PortTakenError):
        await PcpRouter(ASK, ROUTER).map(3600)
    assert [struct.unpack_from("!I", p, 4)[0] for p in sent] == [3600, 0]  # given back
    _udp(monkeypatch, lambda request: _pcp_answer(request, 2, 0))
    with pytest.raises(RouterRefusedError, match="not authorized"):
        await PcpRouter(ASK, ROUTER).map(3600)
    _udp(monkeypatch, lambda _request: bytes.fromhex("0080 0001 00000000"))
    with pytest.raises(RouterGoneError):
        await PcpRouter(ASK, ROUTER).map(3600)


async def test_a_pcp_removal_the_router_refuses_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    """A MAP of lifetime 0 answered with an error (miniupnpd 2.3, for a pinhole PCP
    renewed: not authorized) is a refusal, never a silent success: the mapping stays
    until its lease ends, and the caller says so."""

    def refuse_removal(request: bytes) -> bytes:
        removal = struct.unpack_from("!I", request, 4)[0] == 0
        return _pcp_answer(request, 2 if removal else 0, 443)

    _udp(monkeypatch, refuse_removal)
    router = PcpRouter(ASK, ROUTER)
    await router.map(3600)
    with pytest.raises(RouterRefusedError, match=r"would not remove the mapping \(not authorized"):
        await router.unmap()
    await router.unmap()  # asked once: nothing more to remove


async def test_a_mapping_granted_for_no_time_is_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_time(request: bytes) -> bytes:
        answer = bytearray(_pcp_answer(request, 0, 443))
        answer[4:8] = b"\0\0\0\0"
        return bytes(answer)

    _udp(monkeypatch, no_time)
    with pytest.raises(RouterRefusedError, match="no time"):
        await PcpRouter(ASK, ROUTER).map(3600)
    _udp(monkeypatch, lambda _payload: struct.pack("!BBHIHHI", 0, 130, 0, 9, 8443, 443, 0))
    with pytest.raises(RouterRefusedError, match="no time"):
        await NatPmpRouter(ASK, ROUTER).map(3600)


async def test_pcp_a_shared_address_leaves_nothing_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _udp(monkeypatch, lambda request: _pcp_answer(request, 0, 443, "100.64.0.2"))
    with pytest.raises(SharedAddressError):
        await door._open_ipv4(ASK, ROUTER, Options(methods=("pcp",)))
    assert [struct.unpack_from("!I", p, 4)[0] for p in sent] == [3600, 0]


async def test_a_refusal_is_said_when_no_other_method_maps(monkeypatch: pytest.MonkeyPatch) -> None:
    _udp(monkeypatch, lambda p: _pcp_answer(p, 8, 0) if p[0] == 2 else None)
    with pytest.raises(RouterRefusedError, match="no resources"):
        await door._open_ipv4(ASK, ROUTER, Options(methods=("pcp", "nat-pmp")))
    _udp(monkeypatch, lambda _p: None)
    with pytest.raises(NoRouterError) as none:
        await door._open_ipv4(ASK, ROUTER, Options(methods=("pcp", "nat-pmp")))
    assert "192.168.77.20:8443" in str(none.value)


async def test_without_a_default_gateway_no_router_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(door, "default_gateway", lambda: None)
    with pytest.raises(NoRouterError):
        async with open_outside(8443):
            pass
    with pytest.raises(ValueError):
        async with open_outside(0):
            pass


class ScriptedRouter:
    """A router whose answers a test sets: its address, or a failure to raise."""

    name = "scripted"

    def __init__(self) -> None:
        self.address = IPv4Address("203.0.113.2")
        self.failure: Exception | None = None
        self.mapped = True
        self.unmap_started = asyncio.Event()
        self.unmapped = asyncio.Event()

    async def external_address(self) -> IPv4Address:
        if self.failure:
            raise self.failure
        return self.address

    async def still_mapped(self) -> bool:
        return self.mapped

    async def map(self, lease: int) -> Grant:
        if self.failure:
            raise self.failure
        self.mapped = True
        return Grant(443, lease, None)

    async def unmap(self) -> None:
        self.unmap_started.set()
        await asyncio.sleep(0)  # the removal takes a turn of the loop, as a real one does
        self.mapped = False
        self.unmapped.set()


def _door(router: ScriptedRouter, **options: Any) -> door.Door:
    opened = door.Door(router, ASK, Grant(443, 3600, None), Options(**options))
    opened.external_address = router.address
    opened._start()
    return opened


async def test_the_door_follows_a_new_address_and_a_lost_router() -> None:
    router = ScriptedRouter()
    opened = _door(router, check_every=0.01)
    changes = opened.changes()
    router.address = IPv4Address("203.0.113.5")
    change = await asyncio.wait_for(anext(changes), 10)
    assert change == door.Change(IPv4Address("203.0.113.5"), None, None)
    assert opened.url == "https://203.0.113.5/"
    router.failure = RouterGoneError("scripted")
    lost = await asyncio.wait_for(anext(changes), 10)
    assert lost.external_address is None and isinstance(lost.lost, RouterGoneError)
    await opened.close()
    assert not router.mapped


async def test_a_lost_door_comes_back() -> None:
    router = ScriptedRouter()
    router.failure = SharedAddressError(IPv4Address("100.64.0.2"))
    opened = _door(router, check_every=0.01, retry_after=0.01)
    changes = opened.changes()
    assert isinstance((await asyncio.wait_for(anext(changes), 10)).lost, SharedAddressError)
    router.failure = None
    back = await asyncio.wait_for(anext(changes), 10)
    assert back == door.Change(IPv4Address("203.0.113.2"), None, None)
    assert opened.renewals >= 1  # a lost door is mapped again, not only looked at
    await opened.close()


async def test_a_socket_error_while_open_is_a_lost_door_not_a_dead_task() -> None:
    router = ScriptedRouter()
    opened = _door(router, check_every=0.01, retry_after=0.01)
    changes = opened.changes()
    router.failure = OSError(101, "Network is unreachable")
    lost = await asyncio.wait_for(anext(changes), 10)
    assert isinstance(lost.lost, RouterGoneError)
    router.failure = None
    assert (await asyncio.wait_for(anext(changes), 10)).lost is None
    await opened.close()


async def test_the_lease_is_renewed_at_half_its_life() -> None:
    router = ScriptedRouter()
    opened = door.Door(router, ASK, Grant(443, 1, None), Options(lease=1, check_every=60))
    opened.external_address = router.address
    opened._start()
    assert await asyncio.wait_for(opened.renewed(), 10) == 1
    assert await asyncio.wait_for(opened.renewed(), 10) == 2
    await opened.close()


async def test_closing_removes_the_mapping_even_when_cancelled() -> None:
    router = ScriptedRouter()
    opened = _door(router)
    closing = asyncio.create_task(opened.close())
    await router.unmap_started.wait()
    closing.cancel()  # SIGTERM's cancellation arrives while the removal is under way
    with pytest.raises(asyncio.CancelledError):
        await closing
    await asyncio.wait_for(router.unmapped.wait(), 10)
    assert not router.mapped
    await opened.close()  # idempotent


async def test_a_router_that_forgot_the_mapping_gets_it_again_at_the_next_check() -> None:
    router = ScriptedRouter()
    opened = _door(router, check_every=0.01)  # the lease (an hour) is far
    router.mapped = False  # the router rebooted between two checks
    assert await asyncio.wait_for(opened.renewed(), 10) == 1
    assert router.mapped
    await opened.close()


def _address_answer(epoch: int) -> bytes:
    return struct.pack("!BBHI4s", 0, 128, 0, epoch, IPv4Address("203.0.113.2").packed)


async def test_nat_pmp_an_epoch_that_went_back_is_a_router_that_restarted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    epochs = iter([5000, 5000, 3])  # the second answer at once, the third after a restart
    _udp(monkeypatch, lambda _payload: _address_answer(next(epochs)))
    router = NatPmpRouter(ASK, ROUTER)
    await router.external_address()
    await router.external_address()
    assert await router.still_mapped()
    await router.external_address()
    assert not await router.still_mapped()
