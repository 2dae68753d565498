"""The three ways to ask a home router for a port, behind one interface (`Router`).

Each knows this machine's LAN address and port, the public port, and the description
that names the game. ``map(lease)`` makes the mapping (or renews it), ``external_address()``
asks for the router's own address, ``unmap()`` removes the mapping if it is still ours.
A mapping that exists already is never taken over: UPnP looks it up first
(GetSpecificPortMappingEntry) and takes it only when it leads to this very machine and
port (a stale one of ours); NAT-PMP and PCP pick the public port themselves when the one
asked for is held, and a mapping granted on another port is given back at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address
from typing import Protocol, TypeVar

from server.adapters.outside import transport
from server.adapters.outside.addresses import is_shared
from server.adapters.outside.errors import (
    OutsideError,
    PortTakenError,
    RouterRefusedError,
    SharedAddressError,
)
from server.adapters.outside.wire import natpmp, pcp, upnp

T = TypeVar("T")


class RouterGoneError(OutsideError):
    """The router that answered before does not answer now (it may be rebooting)."""

    step = "router"

    def __init__(self, router: str) -> None:
        super().__init__(
            f"The router ({router}) stopped answering: the door stays open until the lease "
            "runs out and is asked for again at the next renewal."
        )


@dataclass(frozen=True)
class Grant:
    """What the router granted: the public port, the lease (seconds; 0 = until removed),
    and the external address when the answer tells it."""

    public_port: int
    lease: int
    external_address: IPv4Address | IPv6Address | None


@dataclass(frozen=True)
class Ask:
    """What every router is asked for."""

    lan_address: IPv4Address
    lan_port: int
    public_port: int
    description: str


class Router(Protocol):
    name: str

    async def external_address(self) -> IPv4Address: ...

    async def still_mapped(self) -> bool:
        """Whether the router still holds the mapping (False: it forgot, as after a
        reboot); asked right after `external_address`."""
        ...

    async def map(self, lease: int) -> Grant: ...

    async def unmap(self) -> None: ...


def checked_external(router: str, address: IPv4Address | IPv6Address | None) -> IPv4Address:
    """The router's external address, if it is the line's own; else the failure saying so."""
    if not isinstance(address, IPv4Address) or address == IPv4Address(0):
        raise RouterRefusedError(
            router, 0, "it knows no external address (is it connected to the internet?)"
        )
    if is_shared(address):
        raise SharedAddressError(address)
    return address


class UpnpRouter:
    """An Internet Gateway Device (v1 or v2), by SOAP on its WAN connection service."""

    def __init__(self, ask: Ask, location: upnp.Location, gateway: upnp.Gateway) -> None:
        self.ask = ask
        self.location = location
        self.gateway = gateway
        self.name = f"upnp-igd{gateway.version}"
        self._mapped = False

    async def _call(
        self, action: str, arguments: list[tuple[str, str]], service: upnp.Service | None = None
    ) -> dict[str, str]:
        service = service or self.gateway.wan
        headers, body = upnp.soap_request(service.service_type, action, arguments)
        try:
            answer = await transport.http(
                transport.Endpoint(*self.location.endpoint), "POST", service.control_path,
                (headers, body),
            )  # fmt: skip
        except (OSError, TimeoutError, ValueError) as failure:
            raise RouterGoneError(self.name) from failure
        try:
            return upnp.parse_soap_answer(answer.status, answer.body, action)
        except ValueError as failure:  # (a SOAP fault is an UpnpActionError: the caller's)
            why = f"it answered {action} with something that is not UPnP ({str(failure)[:80]})"
            raise RouterRefusedError(self.name, self.ask.public_port, why) from failure

    async def external_address(self) -> IPv4Address:
        try:
            out = await self._call("GetExternalIPAddress", [])
        except upnp.UpnpActionError as error:
            raise RouterRefusedError(self.name, self.ask.public_port, str(error)) from error
        address = out.get("NewExternalIPAddress", "")
        try:
            parsed = IPv4Address(address) if address else None
        except ValueError:
            parsed = None
        return checked_external(self.name, parsed)

    async def holder(self) -> tuple[str, int] | None:
        """Who the router forwards the public port to now: (client, port), or None."""
        try:
            out = await self._call("GetSpecificPortMappingEntry", self._key())
        except upnp.UpnpActionError as error:
            if error.code == upnp.NO_SUCH_ENTRY:
                return None
            raise RouterRefusedError(self.name, self.ask.public_port, str(error)) from error
        port = out.get("NewInternalPort", "")
        return out.get("NewInternalClient", "")[:64], int(port) if port.isdigit() else 0

    async def still_mapped(self) -> bool:
        holder = await self.holder()
        return holder is not None and self._ours(holder)

    def _key(self) -> list[tuple[str, str]]:
        return [
            ("NewRemoteHost", ""),
            ("NewExternalPort", str(self.ask.public_port)),
            ("NewProtocol", "TCP"),
        ]

    def _ours(self, holder: tuple[str, int]) -> bool:
        return holder == (str(self.ask.lan_address), self.ask.lan_port)

    async def map(self, lease: int) -> Grant:
        holder = await self.holder()
        if holder is not None and not self._ours(holder):
            raise PortTakenError(self.ask.public_port, f"{holder[0]}:{holder[1]}")
        try:
            await self._add(lease)
        except upnp.UpnpActionError as error:
            if error.code == upnp.ONLY_PERMANENT_LEASES and lease:
                await self._add(0)
                lease = 0
            elif error.code == upnp.CONFLICT:
                raise PortTakenError(self.ask.public_port, "another machine") from error
            else:
                raise RouterRefusedError(self.name, self.ask.public_port, str(error)) from error
        self._mapped = True
        return Grant(self.ask.public_port, lease, None)

    async def _add(self, lease: int) -> None:
        await self._call(
            "AddPortMapping",
            [
                *self._key(),
                ("NewInternalPort", str(self.ask.lan_port)),
                ("NewInternalClient", str(self.ask.lan_address)),
                ("NewEnabled", "1"),
                ("NewPortMappingDescription", self.ask.description),
                ("NewLeaseDuration", str(lease)),
            ],
        )

    async def unmap(self) -> None:
        if not self._mapped:
            return
        self._mapped = False
        holder = await self.holder()
        if holder is None or not self._ours(holder):
            return  # gone already, or another's now: not ours to remove
        try:
            await self._call("DeletePortMapping", self._key())
        except upnp.UpnpActionError as error:
            if error.code != upnp.NO_SUCH_ENTRY:
                raise RouterRefusedError(self.name, self.ask.public_port, str(error)) from error


class NatPmpRouter:
    """A NAT-PMP router (RFC 6886) at the default gateway."""

    name = "nat-pmp"

    def __init__(self, ask: Ask, gateway: IPv4Address) -> None:
        self.ask = ask
        self.gateway = gateway
        self._mapped = False
        self._epoch: tuple[int, float] | None = None  # the router's epoch, our clock then
        self._rebooted = False

    def _saw_epoch(self, epoch: int) -> None:
        """RFC 6886 §3.6: an epoch that ran slower than 7/8 of our clock (less 2 s) since
        the last answer means the router restarted and forgot its mappings."""
        now = asyncio.get_running_loop().time()
        if self._epoch is not None:
            last, then = self._epoch
            if epoch < last + (now - then) * 7 / 8 - 2:
                self._rebooted = True
        self._epoch = (epoch, now)

    async def still_mapped(self) -> bool:
        rebooted, self._rebooted = self._rebooted, False
        return not rebooted

    async def _ask(self, payload: bytes, parse: Callable[[bytes], T]) -> T:
        answer = await transport.ask_udp(
            transport.Peer(self.gateway, natpmp.PORT), payload, parse, self.ask.lan_address
        )
        if answer is None:
            raise RouterGoneError(self.name)
        return answer

    async def external_address(self) -> IPv4Address:
        answer = await self._ask(natpmp.address_request(), natpmp.parse_address_answer)
        self._saw_epoch(answer.epoch)
        if answer.result == 3:  # network failure: no external address (RFC 6886 §3.5)
            return checked_external(self.name, None)
        if answer.result:
            raise RouterRefusedError(
                self.name, self.ask.public_port, natpmp.result_text(answer.result)
            )
        return checked_external(self.name, answer.address)

    async def map(self, lease: int) -> Grant:
        request = natpmp.map_request(self.ask.lan_port, self.ask.public_port, lease)
        answer = await self._ask(
            request, lambda data: natpmp.parse_map_answer(data, self.ask.lan_port)
        )
        if answer.result:
            why = natpmp.result_text(answer.result)
            raise RouterRefusedError(self.name, self.ask.public_port, why)
        self._mapped = True
        self._saw_epoch(answer.epoch)
        self._rebooted = False  # mapped now, whatever happened before
        if answer.public_port != self.ask.public_port:
            await self.unmap()  # the port asked for is held: give back the one we got
            raise PortTakenError(self.ask.public_port, "another machine")
        if lease and not answer.lifetime:
            raise RouterRefusedError(self.name, self.ask.public_port, "it granted no time")
        return Grant(answer.public_port, answer.lifetime, None)

    async def unmap(self) -> None:
        if not self._mapped:
            return
        self._mapped = False
        request = natpmp.map_request(self.ask.lan_port, 0, 0)
        await self._ask(request, lambda data: natpmp.parse_map_answer(data, self.ask.lan_port))


class PcpRouter:
    """A PCP server (RFC 6887) at the default gateway: MAP for IPv4 through the NAT, or for
    IPv6 a pinhole through the firewall (`client` is then this machine's IPv6 address)."""

    name = "pcp"

    def __init__(
        self,
        ask: Ask,
        server: IPv4Address | IPv6Address,
        client: IPv4Address | IPv6Address | None = None,
        scope: int = 0,
    ) -> None:
        self.ask = ask
        self.server = server
        self.client = client or ask.lan_address
        self.scope = scope
        self.nonce = os.urandom(12)
        self._mapped = False
        self._last_lease = 0

    async def _map(self, lease: int, public_port: int) -> pcp.MapAnswer:
        request = pcp.map_request(self.nonce, self.client, self.ask.lan_port, public_port, lease)
        answer = await transport.ask_udp(
            transport.Peer(self.server, pcp.PORT, self.scope), request,
            self._parse, self.client,
        )  # fmt: skip
        if answer is None:
            raise RouterGoneError(self.name)
        return answer

    def _parse(self, data: bytes) -> pcp.MapAnswer:
        if pcp.is_pcp_version_mismatch(data):  # a NAT-PMP-only router: say so at once
            return pcp.MapAnswer(pcp.UNSUPPORTED_VERSION, 0, 0, self.ask.lan_port, 0, self.server)
        return pcp.parse_map_answer(data, self.nonce, self.ask.lan_port)

    async def map(self, lease: int) -> Grant:
        answer = await self._map(lease, self.ask.public_port)
        if answer.result == pcp.UNSUPPORTED_VERSION:
            raise RouterGoneError(self.name)  # no PCP here (NAT-PMP may answer)
        if answer.result == pcp.CANNOT_PROVIDE_EXTERNAL:
            raise PortTakenError(self.ask.public_port, "another machine")
        if answer.result:
            why = pcp.result_text(answer.result)
            raise RouterRefusedError(self.name, self.ask.public_port, why)
        self._mapped = True
        self._last_lease = answer.lifetime
        if answer.public_port != self.ask.public_port:
            with contextlib.suppress(OutsideError):  # (the port taken is what to say)
                await self.unmap()  # the port asked for is held: give back the one we got
            raise PortTakenError(self.ask.public_port, "another machine")
        if lease and not answer.lifetime:
            raise RouterRefusedError(self.name, self.ask.public_port, "it granted no time")
        return Grant(answer.public_port, answer.lifetime, answer.external_address)

    async def still_mapped(self) -> bool:
        return True  # `external_address` has just mapped it again

    async def external_address(self) -> IPv4Address:
        """Renews the mapping (PCP tells the address only in a MAP answer)."""
        grant = await self.map(self._last_lease or 120)
        return checked_external(self.name, grant.external_address)

    async def unmap(self) -> None:
        """Remove the mapping (a MAP with lifetime 0, RFC 6887 section 15).

        Raises:
            RouterRefusedError: the router kept it (miniupnpd 2.3 refuses to remove a
                pinhole PCP has renewed: "not authorized"); it ends with its lease.
        """
        if not self._mapped:
            return
        self._mapped = False
        answer = await self._map(0, self.ask.public_port)
        if answer.result:
            why = f"it would not remove the mapping ({pcp.result_text(answer.result)})"
            raise RouterRefusedError(self.name, self.ask.public_port, why)
