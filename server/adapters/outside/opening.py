"""``war-server --outside``: the router, the public address, the certificate and the
listener, in that order, and kept up while the server runs.

`outside` (an async context manager around a started `server.adapters.ws.app.WarServer`):

1. **listener**: the server listens on ``--outside-lan-port`` with the outside TLS
   context (`server.adapters.outside.tls.OutsideTls`: no certificate yet, but it answers
   tls-alpn-01 validations); where this machine has a global IPv6 address, also on
   that address's ``--outside-port`` (443) itself (`_listen_ipv6`: IPv6 has no
   translation, and the certificate's check connects to port 443 of the address), which
   needs root, CAP_NET_BIND_SERVICE or ``net.ipv4.ip_unprivileged_port_start`` (it
   covers IPv6 too) at 443 or below: else ``outside failed=ipv6`` says so and IPv4 goes on;
2. **router**: the home router forwards public ``--outside-port`` (443) to it
   (`server.adapters.outside.open_outside`: UPnP-IGD, PCP, NAT-PMP) and says the public
   address; a shared address (carrier-grade NAT) fails here (and, with an IPv6
   listener, the pinhole alone is asked for: `_ipv6_alone`, the IPv6 link then being the
   only one and the invitation's); the IPv6 listener's
   address and port get a pinhole through the router's firewall (PCP or
   WANIPv6FirewallControl), or ``outside failed=ipv6`` says the router would not;
3. **certificate**: the kept one when it still serves those addresses
   (`server.adapters.outside.certificates.CertificateFiles`), else a new one from the
   ACME CA (`server.adapters.outside.acme.AcmeClient`, ``--acme-directory``): one order
   with the IPv4 address and the IPv6 address as its two identifiers, each validated by
   tls-alpn-01 (where the IPv6 one fails, ``outside failed=ipv6`` and a certificate for
   the IPv4 address alone), installed into the live context;
4. the links: one line, ``outside url=https://203.0.113.2/``, and with IPv6 a second,
   ``outside url=https://[2001:db8:77::20]/ over=ipv6``; the invitation's outside link
   (`WarServer.outside_url`) is the IPv4 one.

Then, until the server stops: the certificate is renewed when a third of its life is left
(a failed renewal is retried with backoff while the old one still serves), and a change
the router reports is followed: a new public address gets a new certificate and its link
is said (``outside gone=OLD_LINK reason=...`` for the old one); a lost mapping takes the
links away until the router gives one back. This machine's global IPv6 addresses are
looked at every ``--outside-check`` seconds (`Outside.renumber`, `next_ipv6`): when the
one the IPv6 listener holds is gone (the provider renumbered the home's prefix: a
deprecated address counts as gone) and another is there, the old pinhole is removed and
``outside gone=https://[OLD]/ over=ipv6`` said, the listener moves to port 443 of the new
address (the old one stops accepting; connections already open, and every game, go on),
a pinhole is opened to it, its own certificate got (the IPv4 one untouched) and its link
said, ``outside url=https://[NEW]/ over=ipv6``: the house's pages are told it where the
IPv6 link is the invitation's (`_ipv6_alone`). On exit (SIGTERM, SIGINT) the mapping and
the pinhole are removed by leaving ``open_outside``.

Every failure is one log line, ``outside failed=STEP reason=SENTENCE`` (the sentence
says what to do), no outside link is printed (``failed=ipv6``: no IPv6 link), and the
server goes on serving the house.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from server.adapters.logs import get_logger
from server.adapters.outside.acme import AcmeClient, AcmeError, Issued, UrllibTransport
from server.adapters.outside.addresses import global_ipv6_addresses
from server.adapters.outside.certificates import CertificateFiles, renew_at
from server.adapters.outside.tls import OutsideTls

__all__ = [
    "RETRY_MAX_SECONDS",
    "RETRY_SECONDS",
    "Change",
    "Door",
    "Hole",
    "Line",
    "Move",
    "OpenDoor",
    "Outside",
    "OutsideHooks",
    "OutsidePlan",
    "RouterStep",
    "Six",
    "next_ipv6",
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


class Hole(Protocol):
    """An IPv6 pinhole the router opened (`server.adapters.outside.Pinhole`)."""

    @property
    def address(self) -> ipaddress.IPv6Address: ...
    @property
    def port(self) -> int: ...


class Door(Protocol):
    """An open mapping on the router (`server.adapters.outside.open_outside`'s)."""

    @property
    def external_address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address: ...
    @property
    def public_port(self) -> int: ...
    @property
    def ipv6(self) -> Hole | None: ...
    def changes(self) -> AsyncIterator[Change]: ...
    async def remove_pinhole(self) -> None: ...
    async def add_pinhole(self, address: ipaddress.IPv6Address, port: int) -> Hole | None: ...


Six = tuple[ipaddress.IPv6Address, int]
"""The IPv6 address and port the server listens on for the outside (the pinhole's)."""

OpenDoor = Callable[[int, int, Six | None], AbstractAsyncContextManager[Door]]
"""Open the router's door: ``(lan_port, public_port, ipv6)``; ``ipv6``: the pinhole to
open too (None: none)."""


@dataclass(frozen=True, slots=True)
class OutsideHooks:
    """What tests change of `outside` through `server.adapters.serving.serving`: the
    router (None: the home router), a call with the state once it runs (tests wait on its
    certificates), the pause between retries, and this machine's global IPv6 addresses
    (None: the system's, `server.adapters.outside.addresses.global_ipv6_addresses`)."""

    router: RouterStep | None = None
    on_state: Callable[[Outside], object] | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    ipv6_addresses: Callable[[], Sequence[ipaddress.IPv6Address]] | None = None


@dataclass(frozen=True, slots=True)
class RouterStep:
    """How to open the router's door, and the failures it raises (each with ``step``
    and a one-sentence ``str``): `server.adapters.outside.open_outside` and
    `server.adapters.outside.OutsideError` in production, and
    `server.adapters.outside.open_ipv6` for IPv6 alone."""

    open: OpenDoor
    errors: tuple[type[Exception], ...]
    open_ipv6: Callable[[Six], AbstractAsyncContextManager[Door]] | None = None
    """the IPv6 pinhole alone, where the IPv4 address is shared (None: never)"""


class _Server(Protocol):
    outside_url: str | None

    async def listen_outside(
        self, port: int, context: ssl.SSLContext, host: str | None = None
    ) -> int: ...

    def close_outside(self, host: str) -> int: ...


@dataclass(frozen=True, slots=True)
class OutsidePlan:
    """What `outside` needs: the ports, the CA, where the files are kept."""

    lan_port: int
    public_port: int
    directory: str
    ca_file: Path | None
    folder: Path
    check_every: float = 300.0
    """seconds between looks at this machine's global IPv6 addresses (``--outside-check``,
    as the router is asked for the IPv4 one)"""


def outside_url(address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> str:
    """The outside link: ``https://203.0.113.2/``, ``https://[2001:db8::20]/``
    (``:port`` unless 443)."""
    host = f"[{address}]" if address.version == 6 else str(address)
    return f"https://{host}/" if port == 443 else f"https://{host}:{port}/"


def _said(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


@dataclass(frozen=True, slots=True)
class Move:
    """The IPv6 listener moves to ``to`` (None: there is no global address to move to)."""

    to: ipaddress.IPv6Address | None


def next_ipv6(
    taken: ipaddress.IPv6Address | None, found: Sequence[ipaddress.IPv6Address]
) -> Move | None:
    """Whether the outside's IPv6 side moves, given the address it last took up
    (``taken``: listened on, or tried and failed; None: none was there) and the machine's
    global IPv6 addresses now (``found``, `global_ipv6_addresses`: no temporary,
    deprecated or tentative one). None: stay (the address is still there, even if no
    longer the first; or there was none and there is none). Else a `Move` to the first
    address found, or to none when the taken one is gone and no other appeared."""
    if taken in found or (taken is None and not found):
        return None
    return Move(found[0] if found else None)


@dataclass(slots=True)
class Line:
    """One listener's certificate: the IPv4 listener's (the router's public address)
    or the IPv6 listener's (this machine's global address), each from its own order, in
    its own TLS context: a browser sends no name for an IP address (RFC 6066), so the
    listener an address reaches is what picks its certificate."""

    tls: OutsideTls
    files: CertificateFiles
    address: str | None = None
    issued: Issued | None = None
    failing: bool = False
    """the last try for a certificate failed (retried with backoff; an older
    certificate, if any, still serves)"""


class Outside:
    """The outside's running state: the TLS, the certificates, the links."""

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
        self.ipv6_addresses: Callable[[], Sequence[ipaddress.IPv6Address]] = global_ipv6_addresses
        """this machine's global IPv6 addresses, looked at every ``plan.check_every``"""
        self.taken6: ipaddress.IPv6Address | None = None
        """the global IPv6 address last taken up (listened on, or tried): `next_ipv6`'s"""
        self.held6: ipaddress.IPv6Address | None = None
        """the address the IPv6 listener holds now (None: no IPv6 listener)"""
        self.hole_wanted: Six | None = None
        """the IPv6 listener's address and port, while the router opened no pinhole to it
        (asked again, quietly, at each look)"""
        self.four = Line(tls or OutsideTls(), CertificateFiles(plan.folder))
        """the public IPv4 address's listener (``--outside-lan-port``)"""
        self.six = Line(OutsideTls(), CertificateFiles(plan.folder, "6"))
        """the global IPv6 address's listener (``[address]:--outside-port``)"""
        self.clock = clock
        self.sleep = sleep
        self.public_port = plan.public_port
        """the public port the router opened (the link's)"""
        self.urls: tuple[str, ...] = ()
        """the outside links said last, IPv4's first"""
        self.certified = asyncio.Event()
        """set each time a certificate is installed (tests wait on it; clear it first)"""
        self.followed = asyncio.Event()
        """set each time a change the router reported was followed (tests wait on it)"""
        self.renumbered = asyncio.Event()
        """set each time a look did something: a new IPv6 address followed, or a pinhole
        asked for again (tests wait on it)"""
        self._busy = asyncio.Lock()
        """held while the certificates or the IPv6 side change (renewal, router, renumbering)"""

    # the IPv4 line's, as before IPv6 (tests and the listener use them)
    @property
    def tls(self) -> OutsideTls:
        return self.four.tls

    @property
    def address(self) -> str | None:
        return self.four.address

    @address.setter
    def address(self, address: str | None) -> None:
        self.four.address = address

    @property
    def issued(self) -> Issued | None:
        return self.four.issued

    @issued.setter
    def issued(self, issued: Issued | None) -> None:
        self.four.issued = issued

    def lines(self) -> tuple[Line, ...]:
        """The lines with an address to certify: IPv4's, then IPv6's."""
        return tuple(line for line in (self.four, self.six) if line.address is not None)

    def failed(self, step: str, reason: str) -> None:
        """Say a failure: the step and the one sentence."""
        log.warning("outside", failed=step, reason=reason)

    def meanwhile(self) -> str:
        """What still works while the IPv6 side does not (the end of ``failed=ipv6``)."""
        if self.four.issued is None:
            return "there is no outside link meanwhile"
        return "the outside link works over IPv4 meanwhile"

    async def certify(self, lines: Sequence[Line] | None = None) -> bool:
        """Give each line (``lines``, else every one with an address) a certificate (the
        kept one while it serves, else a new one from the CA), install it, and say the
        links; False (said) if the CA failed for the IPv4 line (the IPv6 line's failure
        is said as ``failed=ipv6``)."""
        done = True
        for line in self.lines() if lines is None else [x for x in lines if x.address]:
            assert line.address is not None
            issued = line.files.usable([line.address], self.clock())
            if issued is None:
                issued = await self._issue(line)
            line.failing = issued is None
            if issued is None:
                done = done and line is not self.four
                continue
            if issued is not line.issued:
                line.tls.install(issued.chain_pem, issued.key_pem)
                if line.issued is None or issued.chain_pem != line.issued.chain_pem:
                    log.info(
                        "outside_certificate",
                        address=line.address,
                        expires=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(issued.not_after)),
                    )
                line.issued = issued
        self._say_links()
        if done and self.four.issued is not None:
            self.certified.set()
        return done and self.four.issued is not None

    async def _issue(self, line: Line) -> Issued | None:
        """A new certificate for ``line`` from the CA, kept beside the store; None
        (said) if it failed."""
        assert line.address is not None
        try:
            key = line.files.account_key()
            client = AcmeClient(
                self.plan.directory,
                key,
                UrllibTransport(self.plan.ca_file),
                line.tls,
                sleep=self.sleep,
            )
            issued = await client.issue(line.address)
            line.files.save(issued)
        except AcmeError as error:
            if line is self.six:
                self.failed("ipv6", f"{_said(error).rstrip('.')}; {self.meanwhile()}")
            else:
                self.failed("certificate", str(error))
            return None
        except OSError as error:
            self.failed(
                "certificate",
                f"keeping the certificate beside the store failed ({_said(error)}); "
                "check the store's folder is writable by the server",
            )
            return None
        return issued

    def _say_links(self, why: str | None = None) -> None:
        """Say each new outside link a certificate serves: ``outside
        url=https://203.0.113.2/`` and, for IPv6, ``outside url=https://[2001:db8::20]/
        over=ipv6``; and each link said before that leads nowhere now, with ``why``:
        ``outside gone=https://[2001:db8::20]/ over=ipv6 reason=...``. The house's pages
        are told the first: the IPv4 link, or the IPv6 one where there is no IPv4 link (a
        shared IPv4 address, or the IPv4 door lost)."""
        lines = [line for line in self.lines() if line.issued is not None and line.address]
        urls = tuple(
            outside_url(ipaddress.ip_address(line.address or ""), self.public_port)
            for line in lines
        )
        self.server.outside_url = urls[0] if urls else None
        if urls == self.urls:
            return
        said, self.urls = self.urls, urls
        for url in said:
            if url not in urls:
                six = {"over": "ipv6"} if url.startswith("https://[") else {}
                log.info("outside", gone=url, **six, reason=why or "its certificate lapsed")
        for line, url in zip(lines, urls, strict=True):
            if url in said:
                continue
            if line is self.six:
                log.info(
                    "outside",
                    url=url,
                    over="ipv6",
                    advice="the same table over IPv6, for relatives whose network has it "
                    "(most mobile networks do)",
                )
            else:
                log.info(
                    "outside",
                    url=url,
                    advice="send this link to relatives elsewhere; phones in the house use "
                    "the home network's link",
                )

    def _wait(self, retry: float) -> float | None:
        """Seconds until a line's certificate is due for renewal, or ``retry`` for a line
        whose last try failed; None: no line to certify (wait for the router)."""
        waits = [
            retry
            if line.issued is None or line.failing
            else max(0.0, renew_at(line.issued.not_before, line.issued.not_after) - self.clock())
            for line in self.lines()
        ]
        return min(waits) if waits else None

    async def keep(self, door: Door) -> None:
        """Renew the certificate and follow the router's changes, until cancelled."""
        changes: asyncio.Queue[Change] = asyncio.Queue()

        async def listen() -> None:
            async for change in door.changes():
                await changes.put(change)

        listening = asyncio.create_task(listen(), name="war-outside-changes")
        watching = asyncio.create_task(self._watch_ipv6(door), name="war-outside-ipv6")
        retry = RETRY_SECONDS
        try:
            while True:
                change = await self._next(changes, self._wait(retry))
                if change is None:  # renewal due, or a failed certificate's retry
                    if not self.lines():
                        continue
                    async with self._busy:
                        await self.certify()
                    if not any(line.failing for line in self.lines()):
                        retry = RETRY_SECONDS
                    else:
                        retry = min(retry * 2, RETRY_MAX_SECONDS)
                    continue
                async with self._busy:
                    await self._follow(change)
                self.followed.set()
        finally:
            for task in (listening, watching):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _watch_ipv6(self, door: Door) -> None:
        """`look` every ``plan.check_every`` seconds."""
        while True:
            await asyncio.sleep(self.plan.check_every)
            try:
                if await self.look(door):
                    self.renumbered.set()
            except Exception:  # one bad look never ends the watch: said, looked at again
                log.exception("outside_ipv6_follow_failed")

    async def look(self, door: Door) -> bool:
        """One look at this machine's global IPv6 addresses: follow a new one
        (`next_ipv6`, `renumber`), else ask the router again for a pinhole it would not
        open (`hole_wanted`; quietly: its failure was said once). Whether it did either."""
        move = next_ipv6(self.taken6, self.ipv6_addresses())
        if move is not None:
            async with self._busy:
                await self.renumber(door, move.to)
            return True
        if self.hole_wanted is None:
            return False
        async with self._busy:
            await self._open_hole(door, self.hole_wanted, say=False)
        return True

    async def renumber(self, door: Door, to: ipaddress.IPv6Address | None) -> None:
        """This machine's IPv6 address changed (the provider renumbered the home's
        prefix): remove the pinhole to the old address and say its link is gone, listen
        on port ``plan.public_port`` of ``to`` and stop accepting on the old address
        (connections already open there, and every other, go on), open a pinhole to
        ``to``, get its certificate (the IPv4 one untouched) and say its link; the house's
        pages are told it where the IPv6 link is the invitation's. ``to`` None: the
        old side is taken down and nothing new is opened. Each failure is one line,
        ``outside failed=ipv6``, naming the step; `next_ipv6` tries again only for
        another address."""
        old, port = self.held6, self.plan.public_port
        self.taken6, self.hole_wanted = to, None
        if old is not None:
            try:
                await door.remove_pinhole()
            except Exception as error:  # the router's, a socket's, a timeout: said
                why = getattr(error, "why", None) or _said(error)
                self.failed(
                    "ipv6",
                    f"removing the router's way in to the old address [{old}]:{port} failed "
                    f"({why}): the router drops it when its lease ends (an hour at most)",
                )
        self.six.address, self.six.issued, self.six.failing = None, None, False
        self._say_links(
            f"this machine's IPv6 address changed to {to} (the provider renumbered the "
            "home's prefix): its own link follows"
            if to is not None
            else "this machine has no global IPv6 address any more: a new one is taken "
            "up when it appears"
        )
        six = None
        if to is not None:
            six = await _listen_ipv6(self, self.server, to, self.meanwhile())
        if old is not None:
            self.server.close_outside(str(old))
        self.held6 = six[0] if six is not None else None
        if six is None:
            return
        log.info("outside_ipv6_moved", address=str(to), was=str(old) if old else None)
        await self._open_hole(door, six, say=True)

    async def _open_hole(self, door: Door, six: Six, *, say: bool) -> None:
        """Ask the router for a pinhole to ``six`` (the IPv6 listener's), then its
        certificate and link; where the router opens none, `hole_wanted` asks again at the
        next look (``say``: the failure is said, the first time)."""
        hole = await door.add_pinhole(*six)
        if hole is None or (hole.address, hole.port) != six:
            self.hole_wanted = six
            if say:
                self.failed("ipv6", _no_pinhole(six, self.meanwhile()))
            return
        self.hole_wanted = None
        self.six.address = str(six[0])
        await self.certify([self.six])

    async def _follow(self, change: Change) -> None:
        """A change the router reported: a lost door takes the links away; an address
        (a new one, or the old one back) gets its certificate and the links said again."""
        if change.lost is not None:
            self.failed("router", _said(change.lost))
            self.server.outside_url = None
            self.four.address = self.four.issued = None
            self.urls = ()
            return
        if change.external_address is None:  # the IPv6 pinhole alone, back
            await self.certify()
            return
        address = str(change.external_address)
        if address != self.four.address:
            self.four.issued = None
            self.four.address = address
            self._say_links("the home's public address changed (the router said so)")
            await self.certify()

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


async def _listen_ipv6(
    state: Outside,
    server: _Server,
    address: ipaddress.IPv6Address,
    meanwhile: str = "the outside link works over IPv4 meanwhile",
) -> Six | None:
    """Listen on this machine's global IPv6 ``address`` at the public port (no router
    translates IPv6: the certificate's check, tls-alpn-01, connects to port 443 of the
    address itself), with the outside TLS; None (said) if the port cannot be bound."""
    port = state.plan.public_port
    try:
        await server.listen_outside(port, state.six.tls.context, str(address))
    except OSError as error:
        state.failed(
            "ipv6",
            f"listening on [{address}]:{port} for relatives on IPv6 failed ({_said(error)}): "
            f"run the server as root, give it CAP_NET_BIND_SERVICE, or allow port {port} "
            f"with sysctl net.ipv4.ip_unprivileged_port_start={port} (docs/hosting.md); "
            f"{meanwhile}",
        )
        return None
    return address, port


def _no_pinhole(six: Six, meanwhile: str) -> str:
    """The sentence for a router that opened no pinhole to ``six``."""
    return (
        f"the router opened no way in to [{six[0]}]:{six[1]} through its IPv6 "
        "firewall (PCP or UPnP-IGDv2): switch on UPnP or PCP for IPv6 in the "
        "router's settings, or open the port there by hand (docs/hosting.md); "
        f"{meanwhile}"
    )


@asynccontextmanager
async def outside(
    plan: OutsidePlan,
    server: _Server,
    router: RouterStep,
    hooks: OutsideHooks | None = None,
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[Outside]:
    """Open the way in for ``server`` (see the module docstring) through ``router``, for
    the block (``hooks``: its pause between retries and the machine's IPv6 addresses);
    failures are said, never raised: the house goes on playing."""
    hooks = hooks or OutsideHooks()
    ipv6_addresses = hooks.ipv6_addresses or global_ipv6_addresses
    state = Outside(plan, server, clock=clock, sleep=hooks.sleep)
    state.ipv6_addresses = ipv6_addresses
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
    found = list(ipv6_addresses())
    state.taken6 = found[0] if found else None
    six = await _listen_ipv6(state, server, found[0]) if found else None
    state.held6 = six[0] if six is not None else None
    async with contextlib.AsyncExitStack() as stack:
        door: Door | None
        try:
            door = await stack.enter_async_context(router.open(lan_port, plan.public_port, six))
        except router.errors as error:
            state.failed(str(getattr(error, "step", "router")), _said(error))
            door = await _ipv6_alone(state, stack, router, six, error)
            if door is None:
                yield state
                return
        else:
            state.address, state.public_port = str(door.external_address), door.public_port
            hole = door.ipv6
            if six is not None and (hole is None or (hole.address, hole.port) != six):
                state.failed("ipv6", _no_pinhole(six, "the outside link works over IPv4 meanwhile"))
                state.hole_wanted = six
            elif six is not None:
                state.six.address = str(six[0])
        await state.certify()
        keeping = asyncio.create_task(state.keep(door), name="war-outside")
        try:
            yield state
        finally:
            keeping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeping
            server.outside_url = None


async def _ipv6_alone(
    state: Outside,
    stack: contextlib.AsyncExitStack,
    router: RouterStep,
    six: Six | None,
    failure: Exception,
) -> Door | None:
    """Where the IPv4 address is shared (the ``address`` step failed) and the server
    listens on its IPv6 address, the pinhole alone: the IPv6 link is then the only one,
    and the invitation's. None (said) when the router opens none."""
    if six is None or router.open_ipv6 is None or getattr(failure, "step", "") != "address":
        return None
    try:
        door = await stack.enter_async_context(router.open_ipv6(six))
    except router.errors as error:
        state.failed("ipv6", _said(error))
        return None
    state.public_port = door.public_port
    state.six.address = str(six[0])
    return door
