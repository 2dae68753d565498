"""The door: find the router, map the port, keep the lease, follow the address, close.

`open_outside` is the whole of it for the server (the package's docstring shows the use).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address
from typing import Literal

from server.adapters.logs import get_logger
from server.adapters.outside import transport, upnp
from server.adapters.outside.addresses import (
    default_gateway,
    default_gateway6,
    global_ipv6_addresses,
    lan_address,
)
from server.adapters.outside.errors import (
    NoRouterError,
    OutsideError,
    PortTakenError,
    RouterRefusedError,
    SharedAddressError,
)
from server.adapters.outside.routers import (
    Ask,
    Grant,
    NatPmpRouter,
    PcpRouter,
    Router,
    RouterGoneError,
    UpnpRouter,
    checked_external,
)

log = get_logger()

Method = Literal["upnp", "pcp", "nat-pmp"]
METHODS: tuple[Method, ...] = ("upnp", "pcp", "nat-pmp")
DESCRIPTION = "Family War"
LEASE = 3600
CHECK_EVERY = 300.0
SSDP_WAIT = 2.0
CLOSE_TIMEOUT = 5.0
RETRY_AFTER = 30.0


@dataclass(frozen=True)
class Pinhole:
    """An IPv6 address and port the router's firewall lets the internet reach."""

    address: IPv6Address
    port: int

    @property
    def url(self) -> str:
        return (
            f"https://[{self.address}]/"
            if self.port == 443
            else (f"https://[{self.address}]:{self.port}/")
        )


@dataclass(frozen=True)
class Change:
    """What changed: the router's external address (None while lost), the IPv6 pinhole,
    and the failure when the door was lost (the door keeps asking; a later `Change` with
    ``lost`` None says it is back)."""

    external_address: IPv4Address | None
    ipv6: Pinhole | None
    lost: OutsideError | None


class Door:
    """An open door: a public port on the router leading to this machine's LAN port."""

    def __init__(
        self,
        router: Router,
        ask: Ask,
        grant: Grant,
        external: IPv4Address,
        lease: int,
        check_every: float,
    ) -> None:
        self.router = router
        self.ask = ask
        self.external_address = external
        self.lease = lease
        self.granted_lease = grant.lease
        self.check_every = check_every
        self.ipv6: Pinhole | None = None
        self.renewals = 0
        self._pinhole_router: PcpRouter | None = None
        self._lost: OutsideError | None = None
        self._changes: asyncio.Queue[Change] = asyncio.Queue()
        self._renewed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def protocol(self) -> str:
        """How the router was asked: upnp-igd2, upnp-igd1, pcp or nat-pmp."""
        return self.router.name

    @property
    def public_port(self) -> int:
        return self.ask.public_port

    @property
    def lan_address(self) -> IPv4Address:
        return self.ask.lan_address

    @property
    def url(self) -> str:
        """The outside link's origin: ``https://<external address>/`` (with the port unless 443)."""
        port = "" if self.public_port == 443 else f":{self.public_port}"
        return f"https://{self.external_address}{port}/"

    async def changes(self) -> AsyncIterator[Change]:
        """Each change, as it happens: a new external address (re-issue the certificate,
        reprint the link), a lost door, a door back. One consumer at a time."""
        while True:
            yield await self._changes.get()

    async def renewed(self) -> int:
        """Wait for the next renewal of the lease; the number of renewals so far."""
        async with self._renewed:
            await self._renewed.wait()
            return self.renewals

    def _start(self) -> None:
        self._task = asyncio.create_task(self._keep(), name="outside-door")

    def _next_wait(self) -> float:
        if self.granted_lease <= 0:  # a permanent mapping: only the address to watch
            return self.check_every
        return max(1.0, min(self.granted_lease / 2, self.check_every))

    async def _keep(self) -> None:
        loop = asyncio.get_running_loop()
        renew_at = loop.time() + (self.granted_lease / 2 if self.granted_lease else 1e12)
        while True:
            await asyncio.sleep(self._next_wait() if not self._lost else RETRY_AFTER)
            try:
                if self._lost or loop.time() >= renew_at - 0.05:
                    grant = await self.router.map(self.lease)
                    self.granted_lease = grant.lease
                    renew_at = loop.time() + (grant.lease / 2 if grant.lease else 1e12)
                    await self._renew_pinhole()
                    self.renewals += 1
                    log.info("outside_renewed", protocol=self.protocol, lease=grant.lease)
                    async with self._renewed:
                        self._renewed.notify_all()
                address = await self.router.external_address()
            except OutsideError as failure:
                if not isinstance(failure, type(self._lost)):
                    log.warning("outside_lost", step=failure.step, error=str(failure))
                    self._lost = failure
                    self._changes.put_nowait(Change(None, self.ipv6, failure))
                continue
            if self._lost or address != self.external_address:
                log.info("outside_address", address=str(address), was=str(self.external_address))
                self._lost = None
                self.external_address = address
                self._changes.put_nowait(Change(address, self.ipv6, None))

    async def _renew_pinhole(self) -> None:
        if self._pinhole_router is not None:
            with contextlib.suppress(OutsideError):
                await self._pinhole_router.map(self.lease)

    async def close(self) -> None:
        """Remove the mapping and the pinhole (if still ours); idempotent; bounded in time,
        and finished even when the task closing is being cancelled."""
        if self._closed:
            return
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

        async def remove() -> None:
            for router in (self._pinhole_router, self.router):
                if router is None:
                    continue
                try:
                    await asyncio.wait_for(router.unmap(), CLOSE_TIMEOUT)
                except (OutsideError, TimeoutError, OSError) as failure:
                    log.warning("outside_unmap_failed", protocol=router.name, error=str(failure))
            log.info("outside_closed", protocol=self.protocol, port=self.public_port)

        await asyncio.shield(asyncio.ensure_future(remove()))


async def _find_upnp(ask: Ask, gateway: IPv4Address | None, wait: float) -> UpnpRouter | None:
    for location in await transport.search_gateways(ask.lan_address, gateway, wait):
        try:
            answer = await transport.http(location.host, location.port, "GET", location.path)
            if answer.status != 200:
                raise upnp.UpnpFormatError(f"HTTP status {answer.status}")
            found = upnp.parse_description(answer.body, location)
        except (OSError, TimeoutError, ValueError) as failure:
            log.info("outside_igd_ignored", location=str(location.host), reason=str(failure)[:200])
            continue
        return UpnpRouter(ask, location, found)
    return None


async def _open_ipv4(
    ask: Ask, gateway: IPv4Address | None, methods: Sequence[Method], lease: int, ssdp_wait: float
) -> tuple[Router, Grant, IPv4Address]:
    refused: OutsideError | None = None
    for method in methods:
        router: Router | None
        if method == "upnp":
            router = await _find_upnp(ask, gateway, ssdp_wait)
        elif gateway is None:
            continue
        else:
            router = PcpRouter(ask, gateway) if method == "pcp" else NatPmpRouter(ask, gateway)
        if router is None:
            continue
        try:
            if isinstance(router, PcpRouter):
                grant = await router.map(lease)
                try:
                    external = checked_external(router.name, grant.external_address)
                except OutsideError:
                    await router.unmap()
                    raise
            else:
                external = await router.external_address()
                grant = await router.map(lease)
        except RouterGoneError:
            continue  # nothing answers this protocol: try the next
        except (SharedAddressError, PortTakenError):
            raise
        except RouterRefusedError as failure:
            refused = refused or failure
            continue
        except ValueError as failure:  # a PCP request answered in NAT-PMP's version
            log.info("outside_method_skipped", method=method, reason=str(failure)[:200])
            continue
        return router, grant, external
    if refused is not None:
        raise refused
    raise NoRouterError(ask.public_port, ask.lan_address, ask.lan_port)


async def _open_ipv6(ask: Ask, lease: int) -> tuple[PcpRouter, Pinhole] | None:
    """A pinhole for this machine's global IPv6 address, by PCP at the IPv6 default router."""
    addresses = global_ipv6_addresses()
    gateway = default_gateway6()
    if not addresses or gateway is None:
        return None
    server, interface = gateway
    scope = socket.if_nametoindex(interface) if server.is_link_local else 0
    six = Ask(ask.lan_address, ask.lan_port, ask.lan_port, ask.description)
    router = PcpRouter(six, server, client=addresses[0], scope=scope)
    try:
        grant = await router.map(lease)
    except (OutsideError, ValueError, OSError) as failure:
        log.info("outside_ipv6_unavailable", reason=str(failure)[:200])
        return None
    return router, Pinhole(addresses[0], grant.public_port)


@contextlib.asynccontextmanager
async def open_outside(
    lan_port: int,
    public_port: int = 443,
    *,
    lease: int = LEASE,
    description: str = DESCRIPTION,
    methods: Sequence[Method] = METHODS,
    ipv6: bool = True,
    check_every: float = CHECK_EVERY,
    ssdp_wait: float = SSDP_WAIT,
    gateway: IPv4Address | None = None,
) -> AsyncIterator[Door]:
    """Open the door (see the package docstring); raise an `OutsideError` if it cannot."""
    if not 1 <= lan_port <= 65535 or not 1 <= public_port <= 65535:
        raise ValueError("ports are 1 to 65535")
    gateway = gateway or default_gateway()
    if gateway is None:
        raise NoRouterError(public_port, None, lan_port)
    ask = Ask(lan_address(gateway), lan_port, public_port, description)
    started = asyncio.get_running_loop().time()
    router, grant, external = await _open_ipv4(ask, gateway, methods, lease, ssdp_wait)
    door = Door(router, ask, grant, external, lease, check_every)
    try:
        if ipv6:
            opened = await _open_ipv6(ask, lease)
            if opened is not None:
                door._pinhole_router, door.ipv6 = opened
        log.info(
            "outside_open", protocol=door.protocol, address=str(external), port=public_port,
            lan=f"{ask.lan_address}:{lan_port}", lease=grant.lease,
            ipv6=str(door.ipv6.address) if door.ipv6 else None,
            seconds=round(asyncio.get_running_loop().time() - started, 3),
        )  # fmt: skip
        door._start()
        yield door
    finally:
        await door.close()


__all__ = ["Change", "Door", "Pinhole", "open_outside"]
