"""Following a renumbered IPv6 prefix while the server runs
(`server.adapters.outside.opening`): the decision (`next_ipv6`), the steps
(`Outside.renumber`: the old pinhole, the listener, the new pinhole, the certificate, the
links) with a stand-in server and door and kept certificates (no CA), the watch that
`outside` runs, each failure said in one line naming its step, and
`WarServer.close_outside` leaving the games of open connections alone. The real router,
CA and addresses are the lab's (tests/lab/test_outside.py)."""

from __future__ import annotations

import asyncio
import datetime as dt
import errno
import ipaddress
import ssl
from collections.abc import AsyncIterator, Iterator, MutableMapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv6Address
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from structlog.testing import capture_logs
from websockets.asyncio.client import connect

from bench._server import free_port
from protocol import CreateRoom, JoinRoom, PlayerJoined, Welcome
from server.adapters.outside.acme import Issued
from server.adapters.outside.certificates import CertificateFiles
from server.adapters.outside.opening import (
    Move,
    Outside,
    OutsideHooks,
    OutsidePlan,
    RouterStep,
    Six,
    next_ipv6,
    outside,
)
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from tests.e2e._client import Client

WAN = IPv4Address("203.0.113.2")
OLD = IPv6Address("2001:db8:77::20")
NEW = IPv6Address("2001:db8:78::20")
SIBLING = IPv6Address("2001:db8:77::21")
PORT = 443
OLD_URL, NEW_URL = f"https://[{OLD}]/", f"https://[{NEW}]/"
NO_CA = "https://127.0.0.1:9/dir"


@pytest.mark.parametrize(
    ("taken", "found", "move"),
    [
        (OLD, [OLD], None),  # nothing changed
        (OLD, [SIBLING, OLD], None),  # still held, though no longer the first: stay
        (None, [], None),  # no global address then, none now
        (OLD, [NEW], Move(NEW)),  # renumbered: the old one gone, a new one there
        (OLD, [NEW, SIBLING], Move(NEW)),  # the first of the new ones
        (OLD, [], Move(None)),  # gone, and none new yet: the IPv6 side comes down
        (None, [NEW], Move(NEW)),  # one appeared where there was none
    ],
)
def test_next_ipv6_moves_only_when_the_taken_address_is_gone(
    taken: IPv6Address | None, found: list[IPv6Address], move: Move | None
) -> None:
    assert next_ipv6(taken, found) == move


# --- stand-ins ------------------------------------------------------------------------


@dataclass(frozen=True)
class Hole:
    address: IPv6Address
    port: int


@dataclass
class Change:
    external_address: IPv4Address | IPv6Address | None
    lost: Exception | None = None


@dataclass
class FakeServer:
    """`WarServer`'s outside side: records each call in ``calls`` (shared with the door,
    so that the order of the steps shows)."""

    calls: list[tuple[str, str]]
    outside_url: str | None = None
    refuse: set[str] = field(default_factory=set)
    """hosts whose port cannot be bound"""

    async def listen_outside(
        self, port: int, context: ssl.SSLContext, host: str | None = None
    ) -> int:
        self.calls.append(("listen", host or "*"))
        if host in self.refuse:
            raise OSError(errno.EACCES, "Permission denied")
        return port

    def close_outside(self, host: str) -> int:
        self.calls.append(("close", host))
        return 1


@dataclass
class FakeDoor:
    """The router's door, its pinhole moved by `remove_pinhole` and `add_pinhole`."""

    calls: list[tuple[str, str]]
    server: FakeServer
    external_address: IPv4Address | IPv6Address = WAN
    public_port: int = PORT
    ipv6: Hole | None = None
    refuse_pinhole: bool = False
    removal_fails: bool = False
    told_while_opening: list[str | None] = field(default_factory=list)
    queue: asyncio.Queue[Change] = field(default_factory=asyncio.Queue)

    async def changes(self) -> AsyncIterator[Change]:
        while True:
            yield await self.queue.get()

    async def remove_pinhole(self) -> None:
        self.calls.append(("remove", str(self.ipv6.address) if self.ipv6 else ""))
        self.ipv6 = None
        if self.removal_fails:
            raise OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address")

    async def add_pinhole(self, address: IPv6Address, port: int) -> Hole | None:
        self.calls.append(("add", str(address)))
        self.told_while_opening.append(self.server.outside_url)
        if self.refuse_pinhole:
            return None
        self.ipv6 = Hole(address, port)
        return self.ipv6


def _keep_certificate(folder: Path, family: str, *addresses: str) -> None:
    """Keep a certificate naming ``addresses`` as the CA's would be kept (its files, 0600):
    `Outside.certify` then serves it without asking any CA."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "renumbering test")])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=6))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    issued = Issued(
        chain_pem=certificate.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
        not_before=certificate.not_valid_before_utc.timestamp(),
        not_after=certificate.not_valid_after_utc.timestamp(),
    )
    CertificateFiles(folder, family).save(issued)


def _plan(folder: Path, check_every: float = 300.0) -> OutsidePlan:
    return OutsidePlan(
        lan_port=8443,
        public_port=PORT,
        directory=NO_CA,
        ca_file=None,
        folder=folder,
        check_every=check_every,
    )


async def _no_wait(_: float) -> None:
    """No pause between the CA's retries (no CA answers here)."""


@dataclass
class Running:
    state: Outside
    server: FakeServer
    door: FakeDoor
    calls: list[tuple[str, str]]


async def _running(folder: Path, *, ipv4: bool = True) -> Running:
    """An outside that listens on [OLD]:443 with its pinhole and certificate and said
    its links (with ``ipv4``: the IPv4 link too; without: behind carrier-grade NAT, the
    IPv6 link is the invitation's)."""
    calls: list[tuple[str, str]] = []
    server = FakeServer(calls)
    door = FakeDoor(calls, server, external_address=WAN if ipv4 else OLD, ipv6=Hole(OLD, PORT))
    state = Outside(_plan(folder), server, sleep=_no_wait)
    if ipv4:
        _keep_certificate(folder, "", str(WAN))
        state.four.address = str(WAN)
    state.six.address = str(OLD)
    state.taken6 = state.held6 = OLD
    assert await state.certify() is ipv4
    calls.clear()
    return Running(state, server, door, calls)


def _said(logs: Sequence[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [line for line in logs if line["event"] == "outside"]


# --- the steps ------------------------------------------------------------------------


async def test_a_new_address_gets_its_pinhole_listener_certificate_and_link(
    tmp_path: Path,
) -> None:
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    run = await _running(tmp_path)
    ipv4_issued, ipv4_chain = run.state.four.issued, run.state.four.tls.context
    with capture_logs() as logs:
        await run.state.renumber(run.door, NEW)
    assert run.calls == [
        ("remove", str(OLD)),  # the old way in first: it leads nowhere now
        ("listen", str(NEW)),
        ("close", str(OLD)),  # the old listener stops accepting (its games go on)
        ("add", str(NEW)),
    ]
    assert run.door.ipv6 == Hole(NEW, PORT)
    assert run.state.held6 == run.state.taken6 == NEW
    assert _said(logs) == [
        {
            "event": "outside",
            "log_level": "info",
            "gone": OLD_URL,
            "over": "ipv6",
            "reason": f"this machine's IPv6 address changed to {NEW} (the provider "
            "renumbered the home's prefix): its own link follows",
        },
        {
            "event": "outside",
            "log_level": "info",
            "url": NEW_URL,
            "over": "ipv6",
            "advice": "the same table over IPv6, for relatives whose network has it "
            "(most mobile networks do)",
        },
    ], "the new IPv6 line and the old one's end, and no IPv4 line again"
    assert run.state.urls == (f"https://{WAN}/", NEW_URL)
    assert run.server.outside_url == f"https://{WAN}/", "the invitation's link is IPv4's"
    assert run.state.four.issued is ipv4_issued, "the IPv4 certificate is untouched"
    assert run.state.four.tls.context is ipv4_chain
    assert [x["address"] for x in logs if x["event"] == "outside_certificate"] == [str(NEW)]
    assert run.state.six.issued is not None and run.state.six.tls.installed


async def test_behind_a_shared_address_the_invitation_follows_the_new_link(
    tmp_path: Path,
) -> None:
    """No IPv4 link (carrier-grade NAT): the house's pages are told no link while the
    pinhole moves (the old one leads nowhere), then the new one."""
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    run = await _running(tmp_path, ipv4=False)
    assert run.server.outside_url == OLD_URL
    await run.state.renumber(run.door, NEW)
    assert run.door.told_while_opening == [None], "never the old, dead link"
    assert run.server.outside_url == NEW_URL
    assert run.state.urls == (NEW_URL,)


async def test_a_port_that_cannot_be_bound_on_the_new_address_is_said(tmp_path: Path) -> None:
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    run = await _running(tmp_path)
    run.server.refuse.add(str(NEW))
    with capture_logs() as logs:
        await run.state.renumber(run.door, NEW)
    assert run.calls == [("remove", str(OLD)), ("listen", str(NEW)), ("close", str(OLD))]
    (gone, failed) = _said(logs)
    assert gone["gone"] == OLD_URL
    assert failed["failed"] == "ipv6"
    assert failed["reason"].startswith(f"listening on [{NEW}]:{PORT} for relatives on IPv6 failed")
    assert failed["reason"].endswith("the outside link works over IPv4 meanwhile")
    assert run.state.held6 is None and run.state.taken6 == NEW
    assert run.state.urls == (f"https://{WAN}/",)
    assert next_ipv6(run.state.taken6, [NEW]) is None, "not tried again for the same address"


async def test_a_router_that_opens_no_pinhole_to_the_new_address_is_said(
    tmp_path: Path,
) -> None:
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    run = await _running(tmp_path, ipv4=False)
    run.door.refuse_pinhole = True
    with capture_logs() as logs:
        await run.state.renumber(run.door, NEW)
    failed = _said(logs)[-1]
    assert failed["failed"] == "ipv6"
    assert f"opened no way in to [{NEW}]:{PORT}" in failed["reason"]
    assert failed["reason"].endswith("there is no outside link meanwhile")
    assert run.server.outside_url is None
    assert not [x for x in logs if x["event"] == "outside_certificate"], "no certificate asked"


async def test_a_pinhole_the_router_would_not_open_is_asked_again_at_each_look(
    tmp_path: Path,
) -> None:
    """The router refuses the new address's pinhole (busy, restarting with the line):
    said once, asked again quietly at each look until it opens, then the certificate and
    the link follow."""
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    run = await _running(tmp_path)
    run.state.ipv6_addresses = lambda: [NEW]
    run.door.refuse_pinhole = True
    with capture_logs() as logs:
        assert await run.state.look(run.door)  # the move; the pinhole refused
        assert await run.state.look(run.door)  # asked again, refused again
        run.door.refuse_pinhole = False
        assert await run.state.look(run.door)  # asked again: opened
        assert not await run.state.look(run.door)  # nothing left to do
    assert run.calls == [
        ("remove", str(OLD)),
        ("listen", str(NEW)),
        ("close", str(OLD)),
        ("add", str(NEW)),
        ("add", str(NEW)),
        ("add", str(NEW)),
    ]
    said = _said(logs)
    assert [x.get("failed") for x in said] == [None, "ipv6", None], "the refusal said once"
    assert said[-1]["url"] == NEW_URL
    assert run.state.hole_wanted is None and run.state.urls == (f"https://{WAN}/", NEW_URL)


async def test_an_old_pinhole_the_router_keeps_is_said_and_the_new_one_follows(
    tmp_path: Path,
) -> None:
    """The old address is already gone (the router will not hear from it): its pinhole
    ends with its lease, and the new address is taken up all the same."""
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    run = await _running(tmp_path)
    run.door.removal_fails = True
    with capture_logs() as logs:
        await run.state.renumber(run.door, NEW)
    said = _said(logs)
    assert said[0]["failed"] == "ipv6"
    assert said[0]["reason"].startswith(
        f"removing the router's way in to the old address [{OLD}]:{PORT} failed"
    )
    assert "when its lease ends" in said[0]["reason"]
    assert said[-1]["url"] == NEW_URL
    assert run.door.ipv6 == Hole(NEW, PORT)


async def test_a_certificate_the_ca_will_not_give_is_said(tmp_path: Path) -> None:
    _keep_certificate(tmp_path, "6", str(OLD))  # nothing kept for the new address
    run = await _running(tmp_path)
    with capture_logs() as logs:
        await run.state.renumber(run.door, NEW)
    failed = _said(logs)[-1]
    assert failed["failed"] == "ipv6"
    assert "could not be reached" in failed["reason"]
    assert failed["reason"].endswith("the outside link works over IPv4 meanwhile")
    assert run.state.six.failing, "retried with the renewals' backoff"
    assert run.state.urls == (f"https://{WAN}/",)


async def test_an_address_gone_with_none_new_takes_the_ipv6_side_down(tmp_path: Path) -> None:
    _keep_certificate(tmp_path, "6", str(OLD))
    run = await _running(tmp_path)
    with capture_logs() as logs:
        await run.state.renumber(run.door, None)
    assert run.calls == [("remove", str(OLD)), ("close", str(OLD))]
    (gone,) = _said(logs)
    assert gone["gone"] == OLD_URL and "no global IPv6 address any more" in gone["reason"]
    assert run.state.held6 is None and run.state.lines() == (run.state.four,)


# --- the watch ------------------------------------------------------------------------


@dataclass
class FakeRouter:
    calls: list[tuple[str, str]]
    server: FakeServer
    shared: bool = False
    doors: list[FakeDoor] = field(default_factory=list)

    def step(self) -> RouterStep:
        @asynccontextmanager
        async def open_door(
            lan_port: int, public_port: int, ipv6: Six | None
        ) -> AsyncIterator[FakeDoor]:
            if self.shared:
                raise SharedError("The router's own address is shared.")
            door = FakeDoor(self.calls, self.server, ipv6=Hole(*ipv6) if ipv6 else None)
            self.doors.append(door)
            yield door

        @asynccontextmanager
        async def open_ipv6(ipv6: Six) -> AsyncIterator[FakeDoor]:
            door = FakeDoor(self.calls, self.server, external_address=ipv6[0], ipv6=Hole(*ipv6))
            self.doors.append(door)
            yield door

        return RouterStep(open=open_door, errors=(SharedError,), open_ipv6=open_ipv6)


class SharedError(Exception):
    step = "address"


@pytest.mark.parametrize("shared", [False, True], ids=["public", "carrier-grade-nat"])
async def test_the_outside_watches_the_addresses_and_follows_them(
    tmp_path: Path, shared: bool
) -> None:
    """`outside` looks at the addresses every ``check_every`` seconds: a renumbered
    prefix is followed, an address gone with none new takes the IPv6 side down, and one
    that appears again is taken up."""
    _keep_certificate(tmp_path, "", str(WAN))
    _keep_certificate(tmp_path, "6", str(OLD), str(NEW))
    calls: list[tuple[str, str]] = []
    server = FakeServer(calls)
    router = FakeRouter(calls, server, shared=shared)
    found = [OLD]
    looks = asyncio.Queue[None]()

    def addresses() -> list[IPv6Address]:
        looks.put_nowait(None)
        return list(found)

    hooks = OutsideHooks(router.step(), sleep=_no_wait, ipv6_addresses=addresses)
    async with outside(_plan(tmp_path, check_every=0.01), server, router.step(), hooks) as state:
        door = router.doors[0]
        assert door.ipv6 == Hole(OLD, PORT)
        ipv4: tuple[str, ...] = () if shared else (f"https://{WAN}/",)
        assert server.outside_url == (OLD_URL if shared else ipv4[0])
        for now, link in (([NEW], NEW_URL), ([], None), ([OLD], OLD_URL)):
            state.renumbered.clear()
            found[:] = now
            await asyncio.wait_for(state.renumbered.wait(), 10)
            assert door.ipv6 == (Hole(now[0], PORT) if now else None)
            assert state.urls == ipv4 + ((link,) if link else ())
            assert server.outside_url == (link if shared else ipv4[0])
        calls.clear()
        for _ in range(3):  # three more looks at the same addresses: nothing moves
            while not looks.empty():
                looks.get_nowait()
            await asyncio.wait_for(looks.get(), 10)
        assert calls == []


# --- the real server's listener --------------------------------------------------------


@pytest.fixture
def loopback_tls(tmp_path: Path) -> Iterator[tuple[ssl.SSLContext, ssl.SSLContext]]:
    """A server context with a certificate for 127.0.0.1, and a client context trusting it."""
    _keep_certificate(tmp_path, "lo", "127.0.0.1")
    files = CertificateFiles(tmp_path, "lo")
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(files.cert_file, files.key_file)
    client = ssl.create_default_context(cafile=str(files.cert_file))
    yield server, client


async def test_closing_an_outside_listener_keeps_the_games_of_its_connections(
    tmp_path: Path, loopback_tls: tuple[ssl.SSLContext, ssl.SSLContext]
) -> None:
    """`WarServer.close_outside`: the listener on the given address accepts no one new;
    a game over a connection it accepted goes on, and so does the house's port."""
    server_tls, client_tls = loopback_tls
    settings = Settings(port=0, db=tmp_path / "war.sqlite3")
    async with serving(settings) as server:
        port = free_port()
        await server.listen_outside(port, server_tls, "127.0.0.1")
        url = f"wss://127.0.0.1:{port}/"
        ws = await connect(url, ssl=client_tls, open_timeout=10, compression=None)
        grandma = Client(ws)
        await grandma.send(CreateRoom(name="Grandma"))
        welcome = await grandma.expect(Welcome)
        assert welcome.player_code is not None
        assert server.close_outside("::1") == 0, "another address's listener is not touched"
        assert server.close_outside("127.0.0.1") == 1
        with pytest.raises(OSError):
            await connect(url, ssl=client_tls, open_timeout=5)
        ben = Client(await connect(f"ws://127.0.0.1:{server.port}/", compression=None))
        await ben.send(JoinRoom(name="Ben", code=welcome.player_code))
        await ben.expect(Welcome)
        await grandma.expect(PlayerJoined, where=lambda joined: joined.name == "Ben")
        await ben.close()
        await grandma.close()
