"""IPv6: no translation, only the router's firewall to open for this machine's own global
address and its LAN port. PCP first (a MAP for the IPv6 address at the IPv6 default
router), then UPnP-IGDv2's WANIPv6FirewallControl (AddPinhole, UpdatePinhole,
DeletePinhole; asked over IPv6 from that address, as routers check the caller is the
machine it opens for). Where neither works, there is no IPv6 door, and no error: the IPv4
door is the one that counts.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from ipaddress import IPv6Address
from typing import Protocol

from server.adapters.logs import get_logger
from server.adapters.outside import transport
from server.adapters.outside.addresses import default_gateway6, global_ipv6_addresses
from server.adapters.outside.errors import OutsideError, RouterRefusedError
from server.adapters.outside.routers import Ask, Grant, PcpRouter, RouterGoneError, UpnpRouter
from server.adapters.outside.wire import upnp

log = get_logger()
MAX_PINHOLE_LEASE = 86400  # WANIPv6FirewallControl's upper bound for LeaseTime


@dataclass(frozen=True)
class Pinhole:
    """An IPv6 address and port the router's firewall lets the internet reach."""

    address: IPv6Address
    port: int

    @property
    def url(self) -> str:
        port = "" if self.port == 443 else f":{self.port}"
        return f"https://[{self.address}]{port}/"


class Hole(Protocol):
    name: str

    async def map(self, lease: int) -> Grant: ...

    async def unmap(self) -> None: ...


class UpnpPinhole:
    """A pinhole by UPnP-IGDv2's WANIPv6FirewallControl:1."""

    name = "upnp-pinhole"

    def __init__(
        self, ask: Ask, router: UpnpRouter, server: IPv6Address, address: IPv6Address
    ) -> None:
        firewall = router.gateway.firewall6
        if firewall is None:
            raise ValueError("the router has no IPv6 firewall control")
        self.ask = ask
        self.firewall = firewall
        self.endpoint = transport.Endpoint(server, router.location.port, address)
        self.address = address
        self.unique_id: str | None = None

    async def _call(self, action: str, arguments: list[tuple[str, str]]) -> dict[str, str]:
        soap = upnp.soap_request(self.firewall.service_type, action, arguments)
        try:
            answer = await transport.http(self.endpoint, "POST", self.firewall.control_path, soap)
        except (OSError, TimeoutError, ValueError) as failure:
            raise RouterGoneError(self.name) from failure
        try:
            return upnp.parse_soap_answer(answer.status, answer.body, action)
        except upnp.UpnpActionError as error:
            raise RouterRefusedError(self.name, self.ask.lan_port, str(error)) from error

    async def map(self, lease: int) -> Grant:
        lease = min(max(lease, 1), MAX_PINHOLE_LEASE)
        if self.unique_id is not None:
            try:
                await self._call(
                    "UpdatePinhole", [("UniqueID", self.unique_id), ("NewLeaseTime", str(lease))]
                )
                return Grant(self.ask.lan_port, lease, self.address)
            except RouterRefusedError:
                self.unique_id = None  # gone (the router restarted): open it anew
        out = await self._call(
            "AddPinhole",
            [
                ("RemoteHost", ""),
                ("RemotePort", "0"),
                ("InternalClient", str(self.address)),
                ("InternalPort", str(self.ask.lan_port)),
                ("Protocol", "6"),
                ("LeaseTime", str(lease)),
            ],
        )
        unique_id = out.get("UniqueID", "")
        if not unique_id.isdigit() or len(unique_id) > 5:
            raise RouterRefusedError(self.name, self.ask.lan_port, "no pinhole identifier")
        self.unique_id = unique_id
        return Grant(self.ask.lan_port, lease, self.address)

    async def unmap(self) -> None:
        unique_id, self.unique_id = self.unique_id, None
        if unique_id is not None:
            await self._call("DeletePinhole", [("UniqueID", unique_id)])


async def open_pinhole(
    ask: Ask,
    lease: int,
    upnp_router: UpnpRouter | None,
    address: IPv6Address | None = None,
    port: int | None = None,
) -> tuple[Hole, Pinhole] | None:
    """A pinhole to ``address`` (this machine's first global IPv6 address) and ``port``
    (`ask.lan_port`), or None."""
    addresses = global_ipv6_addresses()
    gateway = default_gateway6()
    if address is None:
        address = addresses[0] if addresses else None
    if address is None or address not in addresses or gateway is None:
        return None
    server, interface = gateway
    port = port or ask.lan_port
    six = Ask(ask.lan_address, port, port, ask.description)
    scope = socket.if_nametoindex(interface) if server.is_link_local else 0
    holes: list[Hole] = [PcpRouter(six, server, client=address, scope=scope)]
    # (UPnP over HTTP to a link-local router would need a scope the URL cannot carry)
    if upnp_router and upnp_router.gateway.firewall6 and not server.is_link_local:
        holes.append(UpnpPinhole(six, upnp_router, server, address))
    for hole in holes:
        try:
            grant = await hole.map(lease)
        except (OutsideError, ValueError, OSError) as failure:
            log.info("outside_ipv6_unavailable", method=hole.name, reason=str(failure)[:200])
            continue
        return hole, Pinhole(address, grant.public_port)
    return None
