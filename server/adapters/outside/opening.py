"""``war-server --outside``: the router, the public address, the certificate and the
listener, in that order, and kept up while the server runs.

`outside` (an async context manager around a started `server.adapters.ws.app.WarServer`):

1. **listener**: the server listens on ``--outside-lan-port`` with the outside TLS
   context (`server.adapters.outside.tls.OutsideTls`: no certificate yet, but it answers
   tls-alpn-01 validations);
2. **router**: the home router forwards public ``--outside-port`` (443) to it
   (`server.adapters.outside.open_outside`: UPnP-IGD, PCP, NAT-PMP) and says the public
   address; a shared address (carrier-grade NAT) fails here;
3. **certificate**: the kept one when it still serves that address
   (`server.adapters.outside.certificates.CertificateFiles`), else a new one from the
   ACME CA (`server.adapters.outside.acme.AcmeClient`, ``--acme-directory``), installed
   into the live context;
4. the link: one line, ``outside url=https://203.0.113.2/``, and the invitation's
   outside link (`WarServer.outside_url`).

Then, until the server stops: the certificate is renewed when a third of its life is left
(a failed renewal is retried with backoff while the old one still serves), and a change
the router reports is followed: a new public address gets a new certificate and the link
is said again; a lost mapping takes the link away until the router gives one back. On
exit (SIGTERM, SIGINT) the mapping is removed by leaving ``open_outside``.

Every failure is one log line, ``outside failed=STEP reason=SENTENCE`` (the sentence
says what to do), no outside link is printed, and the server goes on serving the house.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from server.adapters.logs import get_logger
from server.adapters.outside.acme import AcmeClient, AcmeError, Issued, UrllibTransport
from server.adapters.outside.certificates import CertificateFiles, renew_at
from server.adapters.outside.tls import OutsideTls

__all__ = [
    "RETRY_MAX_SECONDS",
    "RETRY_SECONDS",
    "Change",
    "Door",
    "OpenDoor",
    "Outside",
    "OutsideHooks",
    "OutsidePlan",
    "RouterStep",
    "outside",
    "outside_url",
]

RETRY_SECONDS = 60.0
"""First pause before a failed certificate (or renewal) is tried again; doubling."""
RETRY_MAX_SECONDS = 3600.0

log = get_logger()


class Change(Protocol):
    """Something new the router said (`server.adapters.outside`'s)."""

    @property
    def external_address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None: ...
    @property
    def lost(self) -> Exception | None: ...


class Door(Protocol):
    """An open mapping on the router (`server.adapters.outside.open_outside`'s)."""

    @property
    def external_address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address: ...
    @property
    def public_port(self) -> int: ...
    def changes(self) -> AsyncIterator[Change]: ...


OpenDoor = Callable[[int, int], AbstractAsyncContextManager[Door]]
"""Open the router's door: ``(lan_port, public_port)``."""


@dataclass(frozen=True, slots=True)
class OutsideHooks:
    """What tests change of `outside` through `server.adapters.serving.serving`: the
    router (None: the home router), a call with the state once it runs (tests wait on its
    certificates), and the pause between retries."""

    router: RouterStep | None = None
    on_state: Callable[[Outside], object] | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep


@dataclass(frozen=True, slots=True)
class RouterStep:
    """How to open the router's door, and the failures it raises (each with ``step``
    and a one-sentence ``str``): `server.adapters.outside.open_outside` and
    `server.adapters.outside.OutsideError` in production."""

    open: OpenDoor
    errors: tuple[type[Exception], ...]


class _Server(Protocol):
    outside_url: str | None

    async def listen_outside(self, port: int, context: ssl.SSLContext) -> int: ...


@dataclass(frozen=True, slots=True)
class OutsidePlan:
    """What `outside` needs: the ports, the CA, where the files are kept."""

    lan_port: int
    public_port: int
    directory: str
    ca_file: Path | None
    folder: Path


def outside_url(address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> str:
    """The outside link: ``https://203.0.113.2/`` (``:port`` unless 443)."""
    host = f"[{address}]" if address.version == 6 else str(address)
    return f"https://{host}/" if port == 443 else f"https://{host}:{port}/"


def _said(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class Outside:
    """The outside's running state: the TLS, the certificate, the link."""

    def __init__(
        self,
        plan: OutsidePlan,
        server: _Server,
        *,
        tls: OutsideTls | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.plan = plan
        self.server = server
        self.tls = tls or OutsideTls()
        self.files = CertificateFiles(plan.folder)
        self.clock = clock
        self.sleep = sleep
        self.address: str | None = None
        self.public_port = plan.public_port
        """the public port the router opened (the link's)"""
        self.issued: Issued | None = None
        self.certified = asyncio.Event()
        """set each time a certificate is installed (tests wait on it; clear it first)"""
        self.followed = asyncio.Event()
        """set each time a change the router reported was followed (tests wait on it)"""

    def failed(self, step: str, reason: str) -> None:
        """Say a failure: the step and the one sentence."""
        log.warning("outside", failed=step, reason=reason)

    async def certify(self, address: str) -> bool:
        """Get a certificate for ``address`` (the kept one if it serves), install it,
        and say the link; False (said) if the CA failed."""
        issued = self.files.usable(address, self.clock())
        if issued is None:
            try:
                key = self.files.account_key()
                client = AcmeClient(
                    self.plan.directory,
                    key,
                    UrllibTransport(self.plan.ca_file),
                    self.tls,
                    sleep=self.sleep,
                )
                issued = await client.issue(address)
                self.files.save(issued)
            except AcmeError as error:
                self.failed("certificate", str(error))
                return False
            except OSError as error:
                self.failed(
                    "certificate",
                    f"keeping the certificate beside the store failed ({_said(error)}); "
                    "check the store's folder is writable by the server",
                )
                return False
        self.tls.install(issued.chain_pem, issued.key_pem)
        self.issued, self.address = issued, address
        url = outside_url(ipaddress.ip_address(address), self.public_port)
        if self.server.outside_url != url:
            self.server.outside_url = url
            log.info(
                "outside",
                url=url,
                advice="send this link to relatives elsewhere; phones in the house use the "
                "home network's link",
            )
        log.info(
            "outside_certificate",
            address=address,
            expires=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(issued.not_after)),
        )
        self.certified.set()
        return True

    async def keep(self, door: Door) -> None:
        """Renew the certificate and follow the router's changes, until cancelled."""
        changes: asyncio.Queue[Change] = asyncio.Queue()

        async def listen() -> None:
            async for change in door.changes():
                await changes.put(change)

        listening = asyncio.create_task(listen(), name="war-outside-changes")
        retry = RETRY_SECONDS
        try:
            while True:
                wait: float | None
                if self.issued is not None and self.address is not None:
                    due = renew_at(self.issued.not_before, self.issued.not_after)
                    wait = max(0.0, due - self.clock())
                else:
                    wait = retry if self.address is not None else None
                change = await self._next(changes, wait)
                if change is None:  # renewal due, or a failed certificate's retry
                    if self.address is None:
                        continue
                    if await self.certify(self.address):
                        retry = RETRY_SECONDS
                    else:
                        self.issued = None  # retried after `retry`
                        retry = min(retry * 2, RETRY_MAX_SECONDS)
                    continue
                await self._follow(change)
                self.followed.set()
        finally:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listening

    async def _follow(self, change: Change) -> None:
        """A change the router reported: a lost door takes the link away; an address
        (a new one, or the old one back) gets its certificate and the link said again."""
        if change.lost is not None:
            self.failed("router", _said(change.lost))
            self.server.outside_url = None
            self.address = self.issued = None
            return
        if change.external_address is not None:
            address = str(change.external_address)
            if address != self.address:
                self.issued = None
                self.address = address
                await self.certify(address)

    async def _next(self, changes: asyncio.Queue[Change], wait: float | None) -> Change | None:
        if wait is None:
            return await changes.get()
        get = asyncio.ensure_future(changes.get())
        sleeping = asyncio.ensure_future(self.sleep(wait))
        done, _ = await asyncio.wait({get, sleeping}, return_when=asyncio.FIRST_COMPLETED)
        if get in done:
            sleeping.cancel()
            return get.result()
        get.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await get
        return None


@asynccontextmanager
async def outside(
    plan: OutsidePlan,
    server: _Server,
    router: RouterStep,
    *,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> AsyncIterator[Outside]:
    """Open the way in for ``server`` (see the module docstring) through ``router``, for
    the block; failures are said, never raised: the house goes on playing."""
    state = Outside(plan, server, clock=clock, sleep=sleep)
    try:
        lan_port = await server.listen_outside(plan.lan_port, state.tls.context)
    except OSError as error:
        state.failed(
            "listener",
            f"listening on port {plan.lan_port} for the outside failed ({_said(error)}): "
            "stop what uses that port or choose another with --outside-lan-port",
        )
        yield state
        return
    async with contextlib.AsyncExitStack() as stack:
        try:
            door = await stack.enter_async_context(router.open(lan_port, plan.public_port))
        except router.errors as error:
            state.failed(str(getattr(error, "step", "router")), _said(error))
            yield state
            return
        state.address, state.public_port = str(door.external_address), door.public_port
        await state.certify(state.address)
        keeping = asyncio.create_task(state.keep(door), name="war-outside")
        try:
            yield state
        finally:
            keeping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeping
            server.outside_url = None
