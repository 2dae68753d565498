"""``--outside`` in the real app on loopback: the outside listener serves the table over
TLS with a certificate pebble issued for 127.0.0.1 (validated by tls-alpn-01 on that very
listener), a renewal swaps it under a running game, the house alone creates rooms, and
each failure is one line that names its step while the house goes on playing.

The router is a stand-in door (`FakeDoor`): it says the public address is 127.0.0.1 and
the public port is the listener's own, so pebble's validation reaches the listener
directly. The real router step is tested in the lab (tests/lab/).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from structlog.testing import capture_logs
from websockets.asyncio.client import connect

from bench._server import free_port
from protocol import CreateRoom, ErrorCode, JoinRoom, PlayerJoined, Welcome
from server.adapters.outside.opening import Outside, OutsideHooks, RouterStep, Six
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from tests._kit.pebble import Pebble, needs_pebble, start_pebble
from tests.e2e._client import Client

HOUSE = (ipaddress.IPv4Network("127.0.0.1/32"),)
NO_IPV6 = dict[str, Any](ipv6_addresses=list)
"""The machine's global IPv6 addresses in these tests: none, unless a test gives them."""
"""The house in these tests: 127.0.0.1 alone; 127.0.0.2 is a stranger's address."""


class RouterSaidNoError(Exception):
    """A stand-in router failure, as `server.adapters.outside.OutsideError` is."""

    step = "router"


class SharedSaidError(RouterSaidNoError):
    """A stand-in shared address (carrier-grade NAT)."""

    step = "address"


@dataclass
class Change:
    external_address: ipaddress.IPv4Address | None
    lost: Exception | None = None


@dataclass(frozen=True)
class Hole:
    address: ipaddress.IPv6Address
    port: int


@dataclass
class FakeDoor:
    external_address: ipaddress.IPv4Address | ipaddress.IPv6Address
    public_port: int
    ipv6: Hole | None = None
    queue: asyncio.Queue[Change] = field(default_factory=asyncio.Queue)
    closed: bool = False

    async def changes(self) -> AsyncIterator[Change]:
        while True:
            yield await self.queue.get()

    async def remove_pinhole(self) -> None:
        self.ipv6 = None

    async def add_pinhole(self, address: ipaddress.IPv6Address, port: int) -> Hole | None:
        self.ipv6 = Hole(address, port)
        return self.ipv6


@dataclass
class FakeRouter:
    """Opens a `FakeDoor` (the public port: the listener's own), or fails with ``fail``."""

    fail: Exception | None = None
    pinhole: bool = True
    doors: list[FakeDoor] = field(default_factory=list)

    def step(self) -> RouterStep:
        @asynccontextmanager
        async def open_door(
            lan_port: int, public_port: int, ipv6: Six | None
        ) -> AsyncIterator[FakeDoor]:
            if self.fail is not None:
                raise self.fail
            hole = Hole(*ipv6) if ipv6 is not None and self.pinhole else None
            door = FakeDoor(ipaddress.IPv4Address("127.0.0.1"), lan_port, hole)
            self.doors.append(door)
            try:
                yield door
            finally:
                door.closed = True

        @asynccontextmanager
        async def open_ipv6(ipv6: Six) -> AsyncIterator[FakeDoor]:
            door = FakeDoor(ipv6[0], ipv6[1], Hole(*ipv6))
            self.doors.append(door)
            try:
                yield door
            finally:
                door.closed = True

        return RouterStep(open=open_door, errors=(RouterSaidNoError,), open_ipv6=open_ipv6)


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
def pebble(tmp_path: Path, port: int) -> Iterator[Pebble]:
    folder = tmp_path / "pebble"
    folder.mkdir()
    running = start_pebble(folder, tls_port=port, validity=12)
    try:
        yield running
    finally:
        running.stop()


def _settings(tmp_path: Path, port: int, pebble: Pebble | None, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "port": 0,
        "db": tmp_path / "war.sqlite3",
        "outside": True,
        "outside_lan_port": port,
        "house_networks": HOUSE,
        "machine_addresses": ("192.168.77.20",),
        "acme_directory": pebble.directory if pebble else "https://127.0.0.1:9/dir",
        "acme_ca_file": pebble.ca_file if pebble else None,
    }
    values.update(changes)
    return Settings(**values)


def _trusting(root: bytes) -> ssl.SSLContext:
    context = ssl.create_default_context(cadata=root.decode())
    return context


async def _client(url: str, *, ssl_context: ssl.SSLContext | None = None, **extra: Any) -> Client:
    ws = await connect(url, ssl=ssl_context, compression=None, open_timeout=10, **extra)
    return Client(ws)


def _serial(client: Client) -> int:
    der = client.ws.transport.get_extra_info("ssl_object").getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).serial_number


@needs_pebble
@pytest.mark.slow
async def test_the_outside_listener_serves_the_game_and_a_renewal_keeps_it(
    tmp_path: Path, port: int, pebble: Pebble
) -> None:
    router, states = FakeRouter(), list[Outside]()
    settings = _settings(tmp_path, port, pebble)
    async with serving(
        settings, hooks=OutsideHooks(router.step(), on_state=states.append, **NO_IPV6)
    ) as server:
        url = f"https://127.0.0.1:{port}/"
        assert server.outside_url == url
        trust = _trusting(pebble.root())
        grandma = await _client(f"wss://127.0.0.1:{port}/", ssl_context=trust)
        await grandma.send(CreateRoom(name="Grandma"))
        welcome = await grandma.expect(Welcome)
        assert welcome.outside == url, "the house is told the outside link"
        first = _serial(grandma)
        # the renewal: a third of a 12 s life left; wait for the certificate itself
        states[0].certified.clear()
        await asyncio.wait_for(states[0].certified.wait(), 60)
        ben = await _client(f"wss://127.0.0.1:{port}/", ssl_context=trust)
        assert _serial(ben) != first, "a new connection sees the new certificate"
        assert welcome.player_code is not None
        await ben.send(JoinRoom(name="Ben", code=welcome.player_code))
        await ben.expect(Welcome)
        # Grandma's connection, opened under the old certificate, hears Ben sit down
        await grandma.expect(PlayerJoined, where=lambda joined: joined.name == "Ben")
        assert _serial(grandma) == first
        await grandma.close()
        await ben.close()
    assert router.doors[0].closed, "the mapping is removed on exit"
    for name in ("outside-account.pem", "outside-cert.pem", "outside-key.pem"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o600


@needs_pebble
async def test_a_lost_door_takes_the_link_away_until_it_is_back(
    tmp_path: Path, port: int, pebble: Pebble
) -> None:
    router, states = FakeRouter(), list[Outside]()
    settings = _settings(tmp_path, port, pebble)
    async with serving(
        settings, hooks=OutsideHooks(router.step(), on_state=states.append, **NO_IPV6)
    ) as server:
        url = server.outside_url
        assert url is not None
        door, state = router.doors[0], states[0]
        with capture_logs() as logs:
            await door.queue.put(
                Change(None, lost=RouterSaidNoError("The router stopped answering."))
            )
            await asyncio.wait_for(state.followed.wait(), 30)
        assert server.outside_url is None
        assert [line["failed"] for line in logs if line["event"] == "outside"] == ["router"]
        state.followed.clear()
        await door.queue.put(Change(ipaddress.IPv4Address("127.0.0.1")))
        await asyncio.wait_for(state.followed.wait(), 30)
        assert server.outside_url == url, "the link is said again"


@needs_pebble
async def test_a_restart_reuses_the_kept_certificate(
    tmp_path: Path, port: int, pebble: Pebble
) -> None:
    settings = _settings(tmp_path, port, pebble)
    async with serving(settings, hooks=OutsideHooks(FakeRouter().step(), **NO_IPV6)) as server:
        assert server.outside_url is not None
    kept = (tmp_path / "outside-cert.pem").read_bytes()
    with capture_logs() as logs:
        async with serving(settings, hooks=OutsideHooks(FakeRouter().step(), **NO_IPV6)) as server:
            assert server.outside_url == f"https://127.0.0.1:{port}/"
    assert (tmp_path / "outside-cert.pem").read_bytes() == kept
    assert not [line for line in logs if line["event"] == "acme_retry"]


async def test_a_stranger_cannot_create_a_room_but_joins_by_invitation(
    tmp_path: Path, port: int
) -> None:
    """No password, --outside: from 127.0.0.2 (not the house here) a create_room, even
    with X-Forwarded-For naming the house, gets ask_for_invitation and makes no room;
    the house creates, and the stranger joins with the code."""
    router = FakeRouter(fail=RouterSaidNoError("no router answered"))
    async with serving(
        _settings(tmp_path, port, None), hooks=OutsideHooks(router.step(), **NO_IPV6)
    ) as server:
        lan = f"ws://127.0.0.1:{server.port}/"
        for headers in ({}, {"X-Forwarded-For": "127.0.0.1"}, {"X-Real-IP": "127.0.0.1"}):
            stranger = await _client(lan, local_addr=("127.0.0.2", 0), additional_headers=headers)
            await stranger.send(CreateRoom(name="Mallory", computers=1))
            await stranger.expect_error(ErrorCode.ASK_FOR_INVITATION.value)
            code, _ = await stranger.expect_close()
            assert code == 4004
            assert server.hub.rooms == 0
        grandma = await _client(lan)
        await grandma.send(CreateRoom(name="Grandma"))
        welcome = await grandma.expect(Welcome)
        assert welcome.player_code is not None and server.hub.rooms == 1
        relative = await _client(lan, local_addr=("127.0.0.2", 0))
        await relative.send(JoinRoom(name="Ben", code=welcome.player_code))
        joined = await relative.expect(Welcome)
        assert joined.outside is None, "the outside link is the house's to tell"
        await grandma.close()
        await relative.close()


async def test_with_a_password_a_stranger_creates_with_it(tmp_path: Path, port: int) -> None:
    router = FakeRouter(fail=RouterSaidNoError("no router answered"))
    settings = _settings(tmp_path, port, None, password="long family secret")
    async with serving(settings, hooks=OutsideHooks(router.step(), **NO_IPV6)) as server:
        lan = f"ws://127.0.0.1:{server.port}/"
        stranger = await _client(lan, local_addr=("127.0.0.2", 0))
        await stranger.send(CreateRoom(name="Ben"))
        await stranger.expect_error(ErrorCode.PASSWORD_REQUIRED.value)
        cousin = await _client(lan, local_addr=("127.0.0.2", 0))
        await cousin.send(CreateRoom(name="Ben", password="long family secret"))
        await cousin.expect(Welcome)
        await cousin.close()


async def test_failures_name_their_step_and_the_house_goes_on(tmp_path: Path, port: int) -> None:
    # the router says no
    with capture_logs() as logs:
        router = FakeRouter(fail=RouterSaidNoError("No router answered on this network."))
        async with serving(
            _settings(tmp_path, port, None), hooks=OutsideHooks(router.step(), **NO_IPV6)
        ) as server:
            assert server.outside_url is None
            house = await _client(f"ws://127.0.0.1:{server.port}/")
            await house.send(CreateRoom(name="Grandma", computers=1))
            await house.expect(Welcome)
            await house.close()
    said = [line for line in logs if line["event"] == "outside"]
    assert said == [
        {
            "event": "outside",
            "log_level": "warning",
            "failed": "router",
            "reason": "No router answered on this network.",
        }
    ]
    # the outside port is taken
    blocker = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", port)
    try:
        with capture_logs() as logs:
            async with serving(
                _settings(tmp_path, port, None), hooks=OutsideHooks(FakeRouter().step(), **NO_IPV6)
            ):
                pass
    finally:
        blocker.close()
    (line,) = [line for line in logs if line["event"] == "outside"]
    assert line["failed"] == "listener"
    assert line["reason"].startswith(f"listening on port {port} for the outside failed")


async def test_a_ca_out_of_reach_is_said_and_retried(tmp_path: Path, port: int) -> None:
    """The CA cannot be reached: the step is named, no link is printed (the pauses
    between retries are skipped here)."""

    async def no_wait(_: float) -> None:
        return None

    with capture_logs() as logs:
        settings = _settings(tmp_path, port, None)
        hooks = OutsideHooks(FakeRouter().step(), sleep=no_wait, **NO_IPV6)
        async with serving(settings, hooks=hooks) as server:
            assert server.outside_url is None
    (line,) = [line for line in logs if line["event"] == "outside"]
    assert line["failed"] == "certificate"
    assert "could not be reached" in line["reason"]


async def _no_wait(_: float) -> None:
    """No pause between the CA's retries (these tests have no CA)."""


def _loopback6(port: int) -> bool:
    """Whether [::1]:``port`` can be bound here (a machine without IPv6 skips)."""
    try:
        with socket.create_server(("::1", port), family=socket.AF_INET6):
            return True
    except OSError:
        return False


@needs_pebble
async def test_the_ipv6_listener_gets_its_own_certificate_and_line(
    tmp_path: Path, port: int, pebble: Pebble
) -> None:
    """A global IPv6 address (here ::1 stands in for it): the server listens on
    [it]:--outside-port, pebble validates it there (tls-alpn-01) and issues its own
    certificate, and a second line says the IPv6 link; the house is told the IPv4 one."""
    if not _loopback6(port):
        pytest.skip("no IPv6 loopback here")
    six = ipaddress.IPv6Address("::1")
    settings = _settings(tmp_path, port, pebble, outside_port=port)
    with capture_logs() as logs:
        async with serving(
            settings, hooks=OutsideHooks(FakeRouter().step(), ipv6_addresses=lambda: [six])
        ) as server:
            assert server.outside_url == f"https://127.0.0.1:{port}/"
            trust = _trusting(pebble.root())
            relative = await _client(f"wss://[::1]:{port}/", ssl_context=trust)
            der = relative.ws.transport.get_extra_info("ssl_object").getpeercert(True)
            names = x509.load_der_x509_certificate(der).extensions.get_extension_for_class(
                x509.SubjectAlternativeName
            )
            assert names.value.get_values_for_type(x509.IPAddress) == [six]
            await relative.close()
    said = [(line["url"], line.get("over")) for line in logs if line["event"] == "outside"]
    assert said == [(f"https://127.0.0.1:{port}/", None), (f"https://[::1]:{port}/", "ipv6")]
    assert (tmp_path / "outside6-cert.pem").stat().st_mode & 0o777 == 0o600


async def test_an_ipv6_port_that_cannot_be_bound_is_said_and_ipv4_goes_on(
    tmp_path: Path, port: int
) -> None:
    if not _loopback6(port):
        pytest.skip("no IPv6 loopback here")
    blocker = socket.create_server(("::1", port), family=socket.AF_INET6)
    router = FakeRouter()
    settings = _settings(tmp_path, port, None, outside_port=port)
    hooks = OutsideHooks(
        router.step(), sleep=_no_wait, ipv6_addresses=lambda: [ipaddress.IPv6Address("::1")]
    )
    try:
        with capture_logs() as logs:
            async with serving(settings, hooks=hooks):
                pass
    finally:
        blocker.close()
    six = [line for line in logs if line["event"] == "outside" and line.get("failed") == "ipv6"]
    assert len(six) == 1
    assert f"listening on [::1]:{port} for relatives on IPv6 failed" in six[0]["reason"]
    assert "CAP_NET_BIND_SERVICE" in six[0]["reason"]
    assert "works over IPv4 meanwhile" in six[0]["reason"]
    assert router.doors[0].ipv6 is None, "no pinhole asked for a port not served"


async def test_a_router_that_opens_no_pinhole_is_said(tmp_path: Path, port: int) -> None:
    if not _loopback6(port):
        pytest.skip("no IPv6 loopback here")
    router = FakeRouter(pinhole=False)
    settings = _settings(tmp_path, port, None, outside_port=port)
    hooks = OutsideHooks(
        router.step(), sleep=_no_wait, ipv6_addresses=lambda: [ipaddress.IPv6Address("::1")]
    )
    with capture_logs() as logs:
        async with serving(settings, hooks=hooks):
            pass
    (six,) = [line for line in logs if line["event"] == "outside" and line.get("failed") == "ipv6"]
    assert "opened no way in to [::1]" in six["reason"] and "UPnP or PCP" in six["reason"]


@needs_pebble
async def test_behind_a_shared_address_the_ipv6_link_is_the_way_in(
    tmp_path: Path, port: int, pebble: Pebble
) -> None:
    """The IPv4 door fails at the ``address`` step: the pinhole alone is opened, the IPv6
    address gets its certificate, its line is said, and the house is told it."""
    if not _loopback6(port):
        pytest.skip("no IPv6 loopback here")
    six = ipaddress.IPv6Address("::1")
    router = FakeRouter(fail=SharedSaidError("The router's own address is shared."))
    settings = _settings(tmp_path, port, pebble, outside_port=port)
    with capture_logs() as logs:
        async with serving(
            settings, hooks=OutsideHooks(router.step(), ipv6_addresses=lambda: [six])
        ) as server:
            url = f"https://[::1]:{port}/"
            assert server.outside_url == url
            grandma = await _client(f"ws://127.0.0.1:{server.port}/")
            await grandma.send(CreateRoom(name="Grandma"))
            welcome = await grandma.expect(Welcome)
            assert welcome.outside == url, "the invitation gives the IPv6 link"
            relative = await _client(f"wss://[::1]:{port}/", ssl_context=_trusting(pebble.root()))
            await relative.close()
            await grandma.close()
    said = [line for line in logs if line["event"] == "outside"]
    assert [line.get("failed") for line in said] == ["address", None]
    assert said[1]["url"] == url and said[1]["over"] == "ipv6"
    assert router.doors[0].closed and router.doors[0].ipv6 == Hole(six, port)
