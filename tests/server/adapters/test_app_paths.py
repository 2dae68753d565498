"""The second path (server/adapters/ws/paths.py, PROTOCOL.md §11) on a real server.

The real app, Hub and SQLite store run in this process on 127.0.0.1 (``--second-path
always``, so that loopback is offered one); the players are protocol clients over real
WebSockets (`tests.e2e._client.Client`). Ann creates a two-player room and Ben joins;
Ann's welcome carries ``path_key``, and a second connection of Ann's opens with
``second_path``. The tests play the honest client (frames mirrored, a ready on either
path or on both, a message held back on the first) and the attacker (a wrong key, a
second path on an opened connection, a second path that floods ahead, a stranger who
guesses keys): the first connection, the room and the Hub's counts are never harmed.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from ipaddress import ip_network
from pathlib import Path
from typing import Any

import msgpack
import pytest
from structlog.testing import capture_logs
from websockets.asyncio.client import connect

from protocol import (
    CardsTurned,
    CloseCode,
    CreateRoom,
    Error,
    ErrorCode,
    GameStarted,
    JoinRoom,
    Ready,
    Resync,
    RulesSpec,
    Said,
    Say,
    SecondPath,
    SecondPathReady,
    Snapshot,
    WaitingFor,
    Welcome,
    decode_server_message,
)
from protocol.paths import MOST_HELD
from server.adapters.serving import serving
from server.adapters.settings.config import SecondPathOffer, Settings
from server.adapters.ws import paths
from server.adapters.ws.app import WarServer
from tests.e2e._client import Client

HOST = "127.0.0.1"
STRANGER = "127.0.0.2"  # another household on loopback
WITHIN = 10.0


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    fields: dict[str, Any] = {
        "host": HOST,
        "port": 0,
        "db": tmp_path / "war.sqlite3",
        "second_path": SecondPathOffer.ALWAYS,
        "close_timeout": 2.0,
    }
    return Settings(**(fields | changes))


@asynccontextmanager
async def running(tmp_path: Path, **changes: Any) -> AsyncIterator[WarServer]:
    async with serving(_settings(tmp_path, **changes)) as server:
        yield server


def _url(server: WarServer) -> str:
    return f"ws://{HOST}:{server.port}/"


@dataclass
class Table:
    """Ann (seat 0) and Ben (seat 1), their game dealt and waiting for both."""

    server: WarServer
    ann: Client
    ben: Client
    key: str

    @property
    def url(self) -> str:
        return _url(self.server)

    async def second(self, after: int = 1, *, key: str | None = None) -> Client:
        """A second path of Ann's (``after``: what Ann sent on the first: create_room)."""
        second = await Client.connect(self.url)
        await second.send(SecondPath(key=key or self.key, after=after))
        return second


async def _table(server: WarServer) -> Table:
    url = _url(server)
    ann = await Client.connect(url)
    await ann.send(CreateRoom(name="Ann", rules=RulesSpec(players=2)))
    welcome = await ann.expect(Welcome)
    assert welcome.path_key is not None
    assert ann.player_code is not None
    ben = await Client.connect(url)
    await ben.send(JoinRoom(code=ann.player_code, name="Ben"))
    await ben.expect(Welcome)
    for client in (ann, ben):
        await client.expect(GameStarted)
        await client.expect(WaitingFor)
    return Table(server, ann, ben, welcome.path_key)


@asynccontextmanager
async def table(tmp_path: Path, **changes: Any) -> AsyncIterator[Table]:
    async with running(tmp_path, **changes) as server:
        yield await _table(server)


async def _flip(player: Client, *others: Client) -> None:
    """Wait until ``player`` and ``others`` saw the flip's cards and the next wait."""
    for client in (player, *others):
        await client.expect(CardsTurned, within=WITHIN)
        await client.expect(WaitingFor, within=WITHIN, where=lambda m: bool(m.seats))


async def _read(client: Client, count: int) -> None:
    """Read until ``client`` holds ``count`` messages."""
    while len(client.log) < count:
        await client.recv(WITHIN)


def _errors(client: Client) -> list[Error]:
    return client.of(Error)


# --- the honest client ---------------------------------------------------------------
async def test_the_first_connections_frames_are_mirrored_from_after_on(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        second = await t.second()
        ready = await second.expect(SecondPathReady)
        assert ready.after <= len(t.ann.log)  # what the first had been sent, read or not
        read_before = len(t.ann.log)
        await t.ann.send(Ready(step=t.ann.step))
        await t.ben.send(Ready(step=t.ben.step))
        first = await _raw_until_the_flip(t.ann)  # the first's frames read_before, ...
        lead = read_before - ready.after
        second_frames = [await _raw(second) for _ in range(lead + len(first))]
        # the frames the first got before it read the flip's, then the flip's own
        assert [decode_server_message(f) for f in second_frames[:lead]] == t.ann.log[ready.after :]
        assert second_frames[lead:] == first  # the same bytes, in the same order
        assert not any(isinstance(decode_server_message(f), SecondPathReady) for f in first)
        assert not _errors(t.ann)


async def _raw(client: Client) -> bytes:
    data = await asyncio.wait_for(client.ws.recv(), WITHIN)
    assert isinstance(data, bytes)
    return data


async def _raw_until_the_flip(client: Client) -> list[bytes]:
    """The frames ``client`` reads, as they came, up to the flip's next ``waiting_for``."""
    frames: list[bytes] = []
    turned = False
    while True:
        frames.append(await _raw(client))
        message = decode_server_message(frames[-1])
        turned = turned or isinstance(message, CardsTurned)
        if turned and isinstance(message, WaitingFor) and message.seats:
            return frames


async def test_a_ready_sent_on_the_second_path_alone_flips(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        second = await t.second()
        await second.expect(SecondPathReady)
        await second.send(Ready(step=t.ann.step))  # message 1, on the second only
        await t.ben.send(Ready(step=t.ben.step))
        await _flip(t.ann, t.ben)
        assert not _errors(t.ann)


async def test_a_ready_sent_on_both_flips_once(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        second = await t.second()
        await second.expect(SecondPathReady)
        step = t.ann.step
        for path in (t.ann, second):
            await path.send(Ready(step=step))  # message 1, on both
        await t.ben.send(Ready(step=step))
        await _flip(t.ann, t.ben)
        for path in (t.ann, second):
            await path.send(Resync())  # message 2, on both: one snapshot
        await t.ann.expect(Snapshot)
        assert not _errors(t.ann), "the copy was read: an already_ready or stale came"
        await t.ann.send(Resync())  # the first alone now: message 3
        await t.ann.expect(Snapshot)
        assert len(t.ann.of(Snapshot)) == 2
        assert not _errors(t.ann)


async def test_a_message_held_back_on_the_first_is_handled_in_order(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        # The client sent one message on the first (create_room) and then "one" (message
        # 1), which is still on its way: the second path brings "two" (message 2) first.
        second = await t.second(after=2)
        await second.expect(SecondPathReady)
        await second.send(Say(text="two"))
        await (await second.ws.ping())  # the server has read "two" (TCP keeps the order)
        await t.ann.send(Resync())  # message 1 arrives at last
        await t.ann.expect(Snapshot)
        assert not t.ann.of(Said), "message 2 was handled before message 1"
        said = await t.ann.expect(Said)  # then the held one, at once
        assert said.text == "two"
        await t.ann.send(Say(text="two"))  # the first's own copy of message 2: dropped
        await t.ann.send(Say(text="three"))
        said = await t.ann.expect(Said)
        assert said.text == "three"
        assert [m.text for m in t.ann.of(Said)] == ["two", "three"]
        assert not _errors(t.ann)


async def test_the_hub_never_counts_a_second_path(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        hub = t.server.hub
        before = hub.connections
        second = await t.second()
        await second.expect(SecondPathReady)
        assert hub.connections == before
        assert t.server.connection_count == before + 1  # it is a connection, of its address
        await t.ann.send(Resync())
        snapshot = await t.ann.expect(Snapshot)
        assert snapshot.state.spectators == 0
        assert not t.ann.of(Error) and not t.ben.of(Error)
        await second.close()
        await t.ann.send(Resync())  # the first carries on alone
        await t.ann.expect(Snapshot)
        assert hub.connections == before


async def test_what_the_second_path_brings_is_held_to_the_first_connections_limits(
    tmp_path: Path,
) -> None:
    """The merged messages are the first connection's: a bad frame on the second path is
    answered on the first, and a flood through the second meets the first's rate limit."""
    async with table(tmp_path, rate_limit=5.0) as t:
        second = await t.second()
        await second.expect(SecondPathReady)
        await second.send_raw(b"\xc1")  # message 1: no msgpack value
        error = await t.ann.expect_error(ErrorCode.MALFORMED)
        await _read(second, 2)
        assert second.log[1] == error  # the first's answer, mirrored
        for _ in range(12):  # messages 2..13, past a burst of 10
            await second.send(Resync())
        await t.ann.expect_error(ErrorCode.RATE_LIMITED)


async def test_a_second_path_holds_a_connection_slot_of_its_address(tmp_path: Path) -> None:
    async with table(tmp_path, max_connections_per_ip=3) as t:
        second = await t.second()
        await second.expect(SecondPathReady)
        fourth = await Client.connect(t.url)
        await fourth.expect_error(ErrorCode.TOO_MANY_CONNECTIONS)
        assert (await fourth.expect_close())[0] == CloseCode.TRY_AGAIN_LATER


# --- refusals and closes ----------------------------------------------------------------
async def test_a_wrong_key_is_refused_and_closed(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        with capture_logs() as logs:
            second = await t.second(key=secrets.token_urlsafe(16))
            await second.expect_error(ErrorCode.BAD_PATH_KEY)
            code, _ = await second.expect_close()
        assert code == CloseCode.REFUSED
        assert any(e["event"] == "second_path_refused" and "key" in str(e["reason"]) for e in logs)
        for fields in ({"key": t.key[:-1]}, {"key": t.key + "A"}, {"after": -1}):
            malformed = await Client.connect(t.url)
            wire = {"type": "second_path", "v": 1, "key": t.key, "after": 1} | fields
            await malformed.send_raw(msgpack.packb(wire))
            await malformed.expect_error(ErrorCode.BAD_VALUE)
            assert (await malformed.expect_close())[0] == CloseCode.REFUSED
        await t.ann.send(Resync())  # the key still works for Ann, who is unharmed
        await t.ann.expect(Snapshot)
        assert not _errors(t.ann)


async def test_a_second_path_on_an_opened_connection_is_refused(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        await t.ben.send(SecondPath(key=t.key, after=1))
        await t.ben.expect_error(ErrorCode.ALREADY_IN_ROOM)
        # nothing else happened: Ben is still seated, and no second path of Ann's exists
        await t.ann.send(Ready(step=t.ann.step))
        await t.ben.send(Ready(step=t.ben.step))
        await _flip(t.ann, t.ben)
        second = await t.second()
        assert (await second.expect(SecondPathReady)).after > 0


async def test_a_second_path_that_floods_ahead_is_closed_and_the_first_carries_on(
    tmp_path: Path,
) -> None:
    async with table(tmp_path, rate_limit=1000.0) as t:
        second = await t.second(after=1000)  # far ahead of what the first brought
        await second.expect(SecondPathReady)
        with capture_logs() as logs:
            for _ in range(MOST_HELD + 1):
                await second.send(Resync())
            code, reason = await second.expect_close()
        assert code == CloseCode.SECOND_PATH_CLOSED
        assert "out of step" in reason
        assert any(e["event"] == "second_path_closed" for e in logs)
        await t.ann.send(Ready(step=t.ann.step))
        await t.ben.send(Ready(step=t.ben.step))
        await _flip(t.ann, t.ben)
        assert not t.ann.of(Snapshot), "a held frame of the closed second path was read"
        assert not _errors(t.ann)
        again = await t.second(after=2)  # it may attach again
        await again.expect(SecondPathReady)


async def test_when_the_first_closes_the_second_is_closed(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        second = await t.second()
        await second.expect(SecondPathReady)
        with capture_logs() as logs:
            await t.ann.close()
            code, reason = await second.expect_close()
        assert code == CloseCode.SECOND_PATH_CLOSED
        assert reason == "first connection closed"
        assert any(e.get("reason") == "first connection closed" for e in logs)
        late = await t.second()  # the key died with its connection
        await late.expect_error(ErrorCode.BAD_PATH_KEY)


async def test_a_newer_second_path_replaces_the_older(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        older = await t.second()
        await older.expect(SecondPathReady)
        newer = await t.second()
        await newer.expect(SecondPathReady)
        code, reason = await older.expect_close()
        assert code == CloseCode.SECOND_PATH_CLOSED
        assert "replaced" in reason
        await newer.send(Ready(step=t.ann.step))  # message 1 through the newer one
        await t.ben.send(Ready(step=t.ben.step))
        await _flip(t.ann, t.ben)


async def test_a_second_path_dropped_never_touches_the_first(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        second = await t.second()
        await second.expect(SecondPathReady)
        second.ws.transport.abort()  # gone without a close frame (a lost line)
        await t.ann.send(Ready(step=t.ann.step))
        await t.ben.send(Ready(step=t.ben.step))
        await _flip(t.ann, t.ben)
        assert not _errors(t.ann)
        assert t.ann.ws.close_code is None
        again = await t.second(after=2)  # the client may attach a new one: the key lives
        await again.expect(SecondPathReady)


async def test_a_stranger_guessing_keys_gets_nothing(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        before = [len(t.ann.log), len(t.ben.log)]
        for _ in range(5):
            guess = await Client.connect(t.url, source=STRANGER)
            await guess.send(SecondPath(key=secrets.token_urlsafe(16), after=0))
            await guess.expect_error(ErrorCode.BAD_PATH_KEY)
            assert (await guess.expect_close())[0] == CloseCode.REFUSED
            assert not guess.of(SecondPathReady)
        assert [len(t.ann.log), len(t.ben.log)] == before
        await t.ann.send(Ready(step=t.ann.step))
        await t.ben.send(Ready(step=t.ben.step))
        await _flip(t.ann, t.ben)
        assert not _errors(t.ann) and not _errors(t.ben)


# --- the offer -----------------------------------------------------------------------------
async def _welcome(server: WarServer) -> Welcome:
    client = await Client.connect(_url(server))
    await client.send(CreateRoom(name="Ann"))
    welcome = await client.expect(Welcome)
    await client.close()
    return welcome


@pytest.mark.parametrize(
    ("offer", "networks", "offered"),
    [
        (SecondPathOffer.OUTSIDE, None, False),  # loopback is the house
        (SecondPathOffer.OUTSIDE, (ip_network("10.9.0.0/16"),), True),  # not this house
        (SecondPathOffer.ALWAYS, None, True),
        (SecondPathOffer.NEVER, (ip_network("10.9.0.0/16"),), False),
    ],
)
async def test_who_is_offered_a_second_path(
    tmp_path: Path, offer: SecondPathOffer, networks: Any, offered: bool
) -> None:
    async with running(tmp_path, second_path=offer, house_networks=networks) as server:
        welcome = await _welcome(server)
    assert (welcome.path_key is not None) is offered
    if offered:
        assert welcome.path_key is not None
        assert len(welcome.path_key) == 22


async def _welcome_through(server: WarServer, forwarded_for: str) -> Welcome:
    """The welcome of a connection whose handshake names ``forwarded_for`` as the client."""
    headers = [("X-Forwarded-For", forwarded_for)]
    ws = await asyncio.wait_for(
        connect(_url(server), additional_headers=headers, compression=None), WITHIN
    )
    client = Client(ws)
    await client.send(CreateRoom(name="Ann"))
    welcome = await client.expect(Welcome)
    await client.close()
    return welcome


@pytest.mark.parametrize(
    ("trusted", "forwarded_for", "offered"),
    [
        ((ip_network("127.0.0.1/32"),), "203.0.113.9", True),  # a relative elsewhere
        ((ip_network("127.0.0.1/32"),), "127.0.0.1", False),  # the house, through the proxy
        ((), "127.0.0.1", True),  # a proxy's header from an untrusted peer: never the house
    ],
)
async def test_behind_a_trusted_proxy_the_forwarded_address_decides(
    tmp_path: Path, trusted: Any, forwarded_for: str, offered: bool
) -> None:
    changes = {"second_path": SecondPathOffer.OUTSIDE, "trusted_proxies": trusted}
    async with running(tmp_path, **changes) as server:
        welcome = await _welcome_through(server, forwarded_for)
    assert (welcome.path_key is not None) is offered


async def test_attaching_is_logged(tmp_path: Path) -> None:
    async with table(tmp_path) as t:
        with capture_logs() as logs:
            second = await t.second()
            ready = await second.expect(SecondPathReady)
        attached = [e for e in logs if e["event"] == "second_path_attached"]
        assert len(attached) == 1
        assert attached[0]["after"] == 1
        assert attached[0]["sent"] == ready.after
        assert "key" not in attached[0]  # the key is a secret: never logged
        assert all(t.key not in str(e) for e in logs)


async def test_every_connection_gets_its_own_key(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        keys = {(await _welcome(server)).path_key for _ in range(3)}
    assert len(keys) == 3 and None not in keys


def test_the_house_is_read_again_only_now_and_then(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading the house's networks takes a few hundred microseconds: for the offer alone
    (no --outside) they are read once per `HOUSE_REFRESH_SECONDS`, not per connection."""
    reads: list[int] = []

    def counted() -> tuple[Any, ...]:
        reads.append(1)
        return (ip_network("10.9.0.0/16"),)

    monkeypatch.setattr(paths, "house_networks", counted)
    offer = paths.SecondPaths(SecondPathOffer.OUTSIDE, set(), set())
    assert offer.needs_house
    assert offer.house(100.0) == (ip_network("10.9.0.0/16"),)
    offer.house(100.0 + paths.HOUSE_REFRESH_SECONDS / 2)
    assert len(reads) == 1
    offer.house(100.0 + paths.HOUSE_REFRESH_SECONDS)
    assert len(reads) == 2
    assert not paths.SecondPaths(SecondPathOffer.ALWAYS, set(), set()).needs_house
