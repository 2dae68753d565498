"""The door: find the router, map the port, keep the lease, follow the address, close.

`open_outside` is the whole of it for the server (the package's docstring shows the use).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address
from typing import Literal

from server.adapters.logs import get_logger
from server.adapters.outside import transport
from server.adapters.outside.addresses import default_gateway, lan_address
from server.adapters.outside.errors import (
    Ipv6RefusedError,
    NoRouterError,
    OutsideError,
    RouterRefusedError,
)
from server.adapters.outside.pinholes import Hole, Pinhole, open_pinhole
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
from server.adapters.outside.wire import upnp

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
class Options:
    """How to open the door; the defaults are the server's.

    - ``lease``: seconds asked for (renewed at half what the router grants);
    - ``description``: the name the router shows for the mapping (UPnP);
    - ``methods``: which protocols to try, in order;
    - ``ipv6``: open an IPv6 pinhole too, where this machine has a global address;
    - ``ipv6_address``, ``ipv6_port``: which address and port the pinhole is for (None:
      this machine's first global IPv6 address; the LAN port): the server gives the
      address and port its IPv6 listener holds (443, where the certificate's check
      reaches it);
    - ``check_every``: seconds between asking the router for its address;
    - ``ssdp_wait``: seconds to wait for an IGD to answer the search;
    - ``retry_after``: seconds between asking again while the door is lost;
    - ``gateway``: the router's LAN address (default: this machine's default gateway).
    """

    lease: int = LEASE
    description: str = DESCRIPTION
    methods: Sequence[Method] = METHODS
    ipv6: bool = True
    ipv6_address: IPv6Address | None = None
    ipv6_port: int | None = None
    check_every: float = CHECK_EVERY
    ssdp_wait: float = SSDP_WAIT
    retry_after: float = RETRY_AFTER
    gateway: IPv4Address | None = None


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

    def __init__(self, router: Router, ask: Ask, grant: Grant, options: Options) -> None:
        self.router = router
        self.ask = ask
        self.external_address: IPv4Address = IPv4Address(0)
        self.lease = options.lease
        self.granted_lease = grant.lease
        self.check_every = options.check_every
        self.retry_after = options.retry_after
        self.ipv6: Pinhole | None = None
        self.renewals = 0
        self._pinhole_router: Hole | None = None
        self._holes = asyncio.Lock()  # a renewal never crosses a pinhole's move
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
        return max(0.1, min(self.granted_lease / 2, self.check_every))

    async def _keep(self) -> None:
        """Renew at half the lease; between renewals ask for the address every
        ``check_every`` seconds and whether the router still holds the mapping (a router
        that rebooted forgot it: mapped again at once, not at the next renewal)."""
        loop = asyncio.get_running_loop()
        renew_at = loop.time() + (self.granted_lease / 2 if self.granted_lease else 1e12)
        while True:
            await asyncio.sleep(self._next_wait() if not self._lost else self.retry_after)
            try:
                address: IPv4Address | None = None
                due = self._lost is not None or loop.time() >= renew_at - 0.05
                if not due:
                    address = await self.router.external_address()
                    due = not await self.router.still_mapped()
                # a new address (the line's changed): the mapping is asked for again at
                # once, for a router that tied it to the old address (PCP) to move it
                moved = address is not None and address != self.external_address
                if due or moved:
                    grant = await self._renew()
                    renew_at = loop.time() + (grant.lease / 2 if grant.lease else 1e12)
                    if grant.external_address is not None:  # (PCP tells it in its answer)
                        address = checked_external(self.protocol, grant.external_address)
                if address is None:
                    address = await self.router.external_address()
            except (OutsideError, OSError, ValueError) as error:
                failure = (
                    error if isinstance(error, OutsideError) else RouterGoneError(self.protocol)
                )
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

    async def _renew(self) -> Grant:
        grant = await self.router.map(self.lease)
        self.granted_lease = grant.lease
        await self._renew_pinhole()
        self.renewals += 1
        log.info("outside_renewed", protocol=self.protocol, lease=grant.lease)
        async with self._renewed:
            self._renewed.notify_all()
        return grant

    async def _renew_pinhole(self) -> None:
        async with self._holes:
            if self._pinhole_router is None:
                return
            try:
                await self._pinhole_router.map(self.lease)
            except (OutsideError, OSError, ValueError) as failure:
                log.warning("outside_ipv6_lost", error=str(failure)[:200])

    async def remove_pinhole(self) -> None:
        """Remove the IPv6 pinhole (this machine's IPv6 address changed: `add_pinhole`
        opens one to the new address); the IPv4 mapping stays. Nothing when there is none.

        Raises:
            OutsideError, OSError, TimeoutError: the router did not remove it (it ends
                with its lease).
        """
        async with self._holes:
            hole, self._pinhole_router, self.ipv6 = self._pinhole_router, None, None
            await _remove(hole)

    async def add_pinhole(self, address: IPv6Address, port: int) -> Pinhole | None:
        """Open a pinhole to ``address``:``port`` (after `remove_pinhole`), renewed with the
        mapping and removed with it; None when the router opens none."""
        upnp_router = self.router if isinstance(self.router, UpnpRouter) else None
        async with self._holes:
            opened = await open_pinhole(self.ask, self.lease, upnp_router, address, port)
            if opened is not None:
                self._pinhole_router, self.ipv6 = opened
                log.info("outside_pinhole", protocol=opened[0].name, ipv6=str(address), port=port)
        return self.ipv6

    async def close(self) -> None:
        """Remove the mapping and the pinhole (if still ours); idempotent; bounded in time,
        and finished even when the task closing is being cancelled."""
        if self._closed:
            return
        self._closed = True
        routers = [r for r in (self._pinhole_router, self.router) if r is not None]
        await _shut(self._task, routers, self.protocol, self.public_port)


async def _remove(hole: Hole | None) -> None:
    """Remove ``hole``'s pinhole, bounded in time (a router that does not answer)"""
    if hole is not None:
        await asyncio.wait_for(hole.unmap(), CLOSE_TIMEOUT)


async def _find_upnp(ask: Ask, gateway: IPv4Address, wait: float) -> UpnpRouter | None:
    try:
        location = await transport.search_gateway(ask.lan_address, gateway, wait)
    except OSError as failure:  # no multicast on this network
        log.info("outside_search_failed", error=str(failure))
        return None
    if location is None:
        return None
    try:
        answer = await transport.http(transport.Endpoint(*location.endpoint), "GET", location.path)
        if answer.status != 200:
            raise upnp.UpnpFormatError(f"HTTP status {answer.status}")
        found = upnp.parse_description(answer.body, location)
    except (OSError, TimeoutError, ValueError) as failure:
        log.info("outside_igd_ignored", location=str(location.host), reason=str(failure)[:200])
        return None
    return UpnpRouter(ask, location, found)


async def _router(
    ask: Ask, gateway: IPv4Address, method: Method, options: Options
) -> Router | None:
    if method == "upnp":
        return await _find_upnp(ask, gateway, options.ssdp_wait)
    return PcpRouter(ask, gateway) if method == "pcp" else NatPmpRouter(ask, gateway)


async def _map(router: Router, lease: int) -> tuple[Grant, IPv4Address]:
    """Map with `router`: its address first where it tells it apart (UPnP, NAT-PMP), from
    the mapping's answer for PCP (the mapping given back if the address is shared)."""
    if not isinstance(router, PcpRouter):
        external = await router.external_address()
        return await router.map(lease), external
    grant = await router.map(lease)
    try:
        return grant, checked_external(router.name, grant.external_address)
    except OutsideError:
        with contextlib.suppress(OutsideError):  # (the shared address is what to say)
            await router.unmap()
        raise


async def _open_ipv4(
    ask: Ask, gateway: IPv4Address, options: Options
) -> tuple[Router, Grant, IPv4Address]:
    """The first method of `options` that maps; a shared address or a taken port ends the
    search at once (another protocol would hear the same); a refusal is raised when no
    other method maps either."""
    refused: OutsideError | None = None
    for method in options.methods:
        router = await _router(ask, gateway, method, options)
        if router is None:
            continue
        try:
            grant, external = await _map(router, options.lease)
        except RouterGoneError:
            continue  # nothing answers this protocol: try the next
        except RouterRefusedError as failure:
            refused = refused or failure
            continue
        return router, grant, external
    if refused is not None:
        raise refused
    raise NoRouterError(ask.public_port, ask.lan_address, ask.lan_port)


@contextlib.asynccontextmanager
async def open_outside(
    lan_port: int, public_port: int = 443, options: Options | None = None
) -> AsyncIterator[Door]:
    """Open the door (see the package docstring); raise an `OutsideError` if it cannot."""
    if not 1 <= lan_port <= 65535 or not 1 <= public_port <= 65535:
        raise ValueError("ports are 1 to 65535")
    options = options or Options()
    gateway = options.gateway or default_gateway()
    if gateway is None:
        raise NoRouterError(public_port, None, lan_port)
    try:
        lan = lan_address(gateway)
    except OSError:  # the gateway is unreachable from here
        raise NoRouterError(public_port, None, lan_port) from None
    ask = Ask(lan, lan_port, public_port, options.description)
    started = asyncio.get_running_loop().time()
    router, grant, external = await _open_ipv4(ask, gateway, options)
    door = Door(router, ask, grant, options)
    door.external_address = external
    try:
        if options.ipv6:
            upnp_router = router if isinstance(router, UpnpRouter) else None
            opened = await open_pinhole(
                ask, options.lease, upnp_router, options.ipv6_address, options.ipv6_port
            )
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


class PinholeDoor:
    """IPv6 alone: a pinhole through the router's firewall with no IPv4 mapping (the
    router's IPv4 address is shared, carrier-grade NAT). Renewed at half its lease; a
    refused or unanswered renewal is a `Change` with ``lost`` set, asked again every
    ``retry_after`` seconds until a `Change` with ``lost`` None says it is back."""

    def __init__(
        self, hole: Hole, pinhole: Pinhole, lease: int, options: Options, ask: Ask | None = None
    ) -> None:
        self.hole: Hole | None = hole
        self.ipv6: Pinhole | None = pinhole
        self.address = pinhole.address
        self.port = pinhole.port
        self.ask = ask or Ask(IPv4Address(0), pinhole.port, pinhole.port, options.description)
        self.upnp_router: UpnpRouter | None = None
        self._holes = asyncio.Lock()  # a renewal never crosses the pinhole's move
        self.lease = options.lease
        self.granted_lease = lease
        self.retry_after = options.retry_after
        self.renewals = 0
        self._lost: OutsideError | None = None
        self._changes: asyncio.Queue[Change] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def external_address(self) -> IPv6Address:
        """The address the pinhole leads to (the last one asked for)."""
        return self.address

    @property
    def public_port(self) -> int:
        return self.port

    @property
    def protocol(self) -> str:
        return self.hole.name if self.hole is not None else "none"

    async def changes(self) -> AsyncIterator[Change]:
        """A lost pinhole and its return (the address never changes: it is this machine's)."""
        while True:
            yield await self._changes.get()

    def _start(self) -> None:
        self._task = asyncio.create_task(self._keep(), name="outside-pinhole")

    async def _keep(self) -> None:
        while True:
            wait = self.retry_after if self._lost else max(1.0, self.granted_lease / 2)
            await asyncio.sleep(wait)
            try:
                async with self._holes:
                    if self.hole is None:  # removed (a new address), none opened since
                        continue
                    grant = await self.hole.map(self.lease)
            except (OutsideError, OSError, ValueError) as error:
                failure = (
                    error if isinstance(error, OutsideError) else RouterGoneError(self.protocol)
                )
                if self._lost is None:
                    log.warning("outside_lost", step=failure.step, error=str(failure)[:200])
                    self._lost = failure
                    self._changes.put_nowait(Change(None, None, failure))
                continue
            self.granted_lease = grant.lease
            self.renewals += 1
            log.info("outside_renewed", protocol=self.protocol, lease=grant.lease)
            if self._lost is not None:
                self._lost = None
                self._changes.put_nowait(Change(None, self.ipv6, None))

    async def remove_pinhole(self) -> None:
        """Remove the pinhole (this machine's IPv6 address changed: `add_pinhole` opens
        one to the new address).

        Raises:
            OutsideError, OSError, TimeoutError: the router did not remove it (it ends
                with its lease).
        """
        async with self._holes:
            hole, self.hole, self.ipv6 = self.hole, None, None
            self._lost = None
            await _remove(hole)

    async def add_pinhole(self, address: IPv6Address, port: int) -> Pinhole | None:
        """Open a pinhole to ``address``:``port`` (after `remove_pinhole`), renewed at half
        its lease; None when the router opens none."""
        self.address, self.port = address, port
        ask = Ask(self.ask.lan_address, port, port, self.ask.description)
        async with self._holes:
            opened = await open_pinhole(ask, self.lease, self.upnp_router, address, port)
            if opened is not None:
                self.hole, self.ipv6 = opened
                log.info("outside_pinhole", protocol=self.hole.name, ipv6=str(address), port=port)
        return self.ipv6

    async def close(self) -> None:
        """Remove the pinhole (bounded in time, finished even while being cancelled)."""
        if self._closed:
            return
        self._closed = True
        holes = [self.hole] if self.hole is not None else []
        await _shut(self._task, holes, self.protocol, self.public_port)


@contextlib.asynccontextmanager
async def open_ipv6(
    address: IPv6Address, port: int, options: Options | None = None
) -> AsyncIterator[PinholeDoor]:
    """A pinhole alone to ``address``:``port`` (PCP, else UPnP's WANIPv6FirewallControl),
    for a line whose IPv4 address is shared; `Ipv6RefusedError` if the router opens none."""
    options = options or Options()
    gateway = options.gateway or default_gateway()
    try:
        lan = lan_address(gateway) if gateway is not None else IPv4Address(0)
    except OSError:
        lan = IPv4Address(0)
    ask = Ask(lan, port, port, options.description)
    upnp_router = None
    if gateway is not None and lan != IPv4Address(0) and "upnp" in options.methods:
        upnp_router = await _find_upnp(ask, gateway, options.ssdp_wait)
    opened = await open_pinhole(ask, options.lease, upnp_router, address, port)
    if opened is None:
        raise Ipv6RefusedError(address, port)
    hole, pinhole = opened
    door = PinholeDoor(hole, pinhole, options.lease, options, ask)
    door.upnp_router = upnp_router
    try:
        log.info("outside_open", protocol=hole.name, ipv6=str(address), port=port)
        door._start()
        yield door
    finally:
        await door.close()


__all__ = ["Change", "Door", "Options", "Pinhole", "PinholeDoor", "open_ipv6", "open_outside"]


async def _shut(
    task: asyncio.Task[None] | None, routers: Sequence[Router | Hole], protocol: str, port: int
) -> None:
    """End a door's renewing ``task``, then remove each of ``routers``' mappings (each
    bounded in time), finished even while the caller is being cancelled."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def remove() -> None:
        for router in routers:
            try:
                await asyncio.wait_for(router.unmap(), CLOSE_TIMEOUT)
            except (OutsideError, TimeoutError, OSError) as failure:
                log.warning("outside_unmap_failed", protocol=router.name, error=str(failure))
        log.info("outside_closed", protocol=protocol, port=port)

    await asyncio.shield(asyncio.ensure_future(remove()))
