"""Trust at the table, round two, on the real server over loopback: the seat's way back
belongs to its owner, nobody approves their own request, names that look alike or are
the clients' words, what one address may take (talk, spectators), and the allowed
asker's welcome.

Each client connects from a loopback address of its own choosing: 127.0.0.1 is the
table's household (Ann), 127.0.0.2 another (the attacker's, or Mallory's), 127.0.0.3
Grandma's. Linux routes all of 127.0.0.0/8 to the loopback interface, so the server
sees each as a different peer address.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from structlog.testing import capture_logs
from websockets.asyncio.client import connect

from protocol import (
    CloseCode,
    ConnectionChanged,
    CreateRoom,
    ErrorCode,
    GameOver,
    GameStarted,
    JoinRoom,
    Leave,
    React,
    Reacted,
    Reaction,
    Rematch,
    RematchDeal,
    ResumeSeat,
    RulesSpec,
    Said,
    Say,
    SpectatorsChanged,
    TalkSetting,
    VoteFinish,
    WaitingFor,
    WatchRoom,
    Welcome,
)
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)
from tests.e2e._client import DEFAULT_TIMEOUT, Client
from tests.e2e._war import War, start_war

HOME, OTHER, GRANDMA = "127.0.0.1", "127.0.0.2", "127.0.0.3"


async def client_from(war: War, source: str) -> Client:
    """A connection to ``war`` whose peer address is ``source`` (a loopback address)."""
    ws = await asyncio.wait_for(
        connect(
            war.url,
            max_queue=None,
            compression=None,
            open_timeout=DEFAULT_TIMEOUT,
            local_addr=(source, 0),
        ),
        DEFAULT_TIMEOUT,
    )
    client = Client(ws)
    war.clients.append(client)
    return client


async def seated_from(war: War, source: str, code: str, name: str) -> Client:
    client = await client_from(war, source)
    await client.send(JoinRoom(code=code, name=name))
    await client.expect(Welcome)
    return client


async def table(war: War, *others: tuple[str, str]) -> tuple[Client, list[Client]]:
    """Ann (127.0.0.1) creates a room for her and ``others`` ((address, name) each),
    who join; the game starts. Returns Ann and the others."""
    ann = await client_from(war, HOME)
    await ann.send(CreateRoom(name="Ann", rules=RulesSpec(players=1 + len(others))))
    await ann.expect(Welcome)
    code = ann.player_code or ""
    joined = [await seated_from(war, source, code, name) for source, name in others]
    for client in (ann, *joined):
        await client.expect(GameStarted)
        await client.expect(WaitingFor)
    return ann, joined


async def ask(war: War, source: str, code: str, name: str) -> Client:
    """A device at ``source`` asks for the away seat ``name``; it waits for the table."""
    asker = await client_from(war, source)
    await asker.send(JoinRoom(code=code, name=name))
    await asker.expect(SeatRequestWaiting)
    return asker


async def taken_over(war: War, ann: Client, source: str, name: str, seat: int) -> Client:
    """A device at ``source`` asks for seat ``seat`` (``name``), Ann allows it."""
    asker = await ask(war, source, ann.player_code or "", name)
    await ann.send(AnswerSeatRequest(seat=seat, allow=True))
    await asker.expect(Welcome)
    await ann.expect(SeatRequestEnded, where=lambda m: m.outcome is RequestOutcome.ALLOWED)
    return asker


async def resume_from(war: War, source: str, room: str, token: str) -> Client:
    client = await client_from(war, source)
    await client.send(ResumeSeat(room=room, token=token))
    return client


# --- the way back belongs to the owner ------------------------------------------------
async def test_a_later_takers_token_never_wins_the_seat_from_its_owner(tmp_path: Path) -> None:
    async with start_war(tmp_path, max_failed_joins=3) as war:
        ann, (grandma,) = await table(war, (GRANDMA, "Grandma"))
        room, her_token = grandma.room or "", grandma.token or ""
        await grandma.close()
        first = await taken_over(war, ann, OTHER, "Grandma", 1)  # from A1
        first_token = first.token or ""
        await first.close()
        second = await taken_over(war, ann, OTHER, "Grandma", 1)  # then from A2
        # Grandma takes it back within her ten minutes
        back = await resume_from(war, GRANDMA, room, her_token)
        welcome = await back.expect(Welcome)
        await second.expect_error(ErrorCode.SEAT_TAKEN_BACK)
        # A1's old token is told, and takes nothing from her
        for _ in range(3):  # not counted as guesses either
            thief = await resume_from(war, OTHER, room, first_token)
            await thief.expect_error(ErrorCode.SEAT_TAKEN)
            assert (await thief.expect_close())[0] == CloseCode.REFUSED
        # nor A2's
        thief = await resume_from(war, OTHER, room, second.token or "")
        await thief.expect_error(ErrorCode.SEAT_TAKEN)
        # Grandma is still at her seat, and her new token still resumes it
        assert back.ws.close_code is None
        await back.close()
        again = await resume_from(war, GRANDMA, room, welcome.token or "")
        assert (await again.expect(Welcome)).seat == 1


async def test_no_number_of_takeovers_pushes_the_owners_way_back_out(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, (grandma,) = await table(war, (GRANDMA, "Grandma"))
        room, her_token = grandma.room or "", grandma.token or ""
        await grandma.close()
        for number in range(12):  # more than a room remembers of its takeovers
            # (each from an address of its own: one address asks a few times a minute)
            taker = await taken_over(war, ann, f"127.0.1.{number + 1}", "Grandma", 1)
            await taker.close()
        back = await resume_from(war, GRANDMA, room, her_token)
        assert (await back.expect(Welcome)).seat == 1


async def test_a_request_for_the_seat_ends_when_its_owner_takes_it_back(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, (grandma,) = await table(war, (GRANDMA, "Grandma"))
        room, her_token = grandma.room or "", grandma.token or ""
        await grandma.close()
        taker = await taken_over(war, ann, OTHER, "Grandma", 1)
        await taker.close()
        asker = await ask(war, OTHER, ann.player_code or "", "Grandma")
        back = await resume_from(war, GRANDMA, room, her_token)
        await back.expect(Welcome)
        await asker.expect_error(ErrorCode.SEAT_IN_USE)
        # Ann's late "yes" no longer takes the seat from Grandma
        await ann.send(AnswerSeatRequest(seat=1, allow=True))
        await ann.expect_error(ErrorCode.NO_SEAT_REQUEST)
        assert back.ws.close_code is None


async def test_asking_and_withdrawing_in_a_loop_reaches_the_table_a_few_times(
    tmp_path: Path,
) -> None:
    with capture_logs() as logs:
        async with start_war(tmp_path) as war:
            ann, (grandma,) = await table(war, (GRANDMA, "Grandma"))
            await grandma.close()
            code = ann.player_code or ""
            for _ in range(3):  # the address's burst: each reaches the table
                asker = await ask(war, OTHER, code, "Grandma")
                await asker.send(Leave())
                await ann.expect(SeatRequestEnded)
            for _ in range(5):  # then refused before the table is asked
                asker = await client_from(war, OTHER)
                await asker.send(JoinRoom(code=code, name="Grandma"))
                await asker.expect_error(ErrorCode.RATE_LIMITED)
                assert (await asker.expect_close())[0] == CloseCode.REFUSED
            # another household still asks at once
            other = await ask(war, GRANDMA, code, "Grandma")
            await ann.expect(SeatRequested)
            await other.send(Leave())
            await ann.expect(SeatRequestEnded)
            assert len(ann.of(SeatRequested)) == 4
    # one line a minute of each kind, however many requests
    assert [line["event"] for line in logs].count("seat_requested") == 1
    assert [line["event"] for line in logs].count("seat_request_ended") == 1


# --- nobody approves their own request --------------------------------------------------
async def test_a_seated_player_cannot_allow_her_own_request(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, (mallory, grandma) = await table(war, (OTHER, "Mallory"), (GRANDMA, "Grandma"))
        await grandma.close()
        asker = await ask(war, OTHER, ann.player_code or "", "Grandma")
        await mallory.send(AnswerSeatRequest(seat=2, allow=True))
        await mallory.expect_error(ErrorCode.OWN_SEAT_REQUEST)
        # Ann, at another address, decides; the table is told it was her
        await ann.send(AnswerSeatRequest(seat=2, allow=False))
        ended = await mallory.expect(SeatRequestEnded)
        assert (ended.outcome, ended.by) == (RequestOutcome.REFUSED, 0)
        await asker.expect_error(ErrorCode.SEAT_REQUEST_REFUSED)


async def test_with_only_the_askers_household_at_the_table_time_decides(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, (mallory, grandma) = await table(war, (OTHER, "Mallory"), (GRANDMA, "Grandma"))
        await grandma.close()
        await ann.close()  # only Mallory is connected: nobody else can be asked
        code = ann.player_code or ""
        early = await client_from(war, OTHER)
        await early.send(JoinRoom(code=code, name="Grandma"))
        await early.expect_error(ErrorCode.SEAT_AWAY_TOO_BRIEFLY)
        war.clock.offset += 121  # past the away timeout
        late = await client_from(war, OTHER)
        await late.send(JoinRoom(code=code, name="Grandma"))
        assert (await late.expect(Welcome)).seat == 2
        ended = await mallory.expect(SeatRequestEnded)
        assert (ended.outcome, ended.by) == (RequestOutcome.AWAY_LONG, None)


async def test_the_allowed_askers_welcome_carries_the_request(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, (grandma,) = await table(war, (GRANDMA, "Grandma"))
        await grandma.close()
        asker = await ask(war, OTHER, ann.player_code or "", "Grandma")
        await ann.send(AnswerSeatRequest(seat=1, allow=True))
        welcome = await asker.expect(Welcome)
        assert welcome.state.seat_request is not None
        assert welcome.state.seat_request.seat == 1
        ended = await asker.expect(SeatRequestEnded)
        assert ended.seq == welcome.seq + 1 or ended.seq > welcome.seq


# --- the evening -------------------------------------------------------------------------
async def test_a_lone_vote_while_the_others_are_away_never_replays_a_known_deal(
    tmp_path: Path,
) -> None:
    async with start_war(tmp_path) as war:
        ann, (ben,) = await table(war, (OTHER, "Ben"))
        for player in (ann, ben):
            await player.send(VoteFinish())
        over = await ann.expect(GameOver)
        await ben.close()  # Ben is away: his vote is not waited for
        await ann.expect(ConnectionChanged)
        await ann.send(Rematch(deal=RematchDeal.SAME))
        started = await ann.expect(GameStarted)
        assert started.game == 2
        assert started.deal is None  # a new deal, hidden and committed: not game 1's
        assert started.deal_commitment is not None
        assert over.summary.deal is not None


# --- names ------------------------------------------------------------------------------
LOOK_ALIKES = [
    ("Ben", ["\u0392en", "\u0412en", "\u13f4\u13ac\u13c1"]),  # Greek Beta, Cyrillic Ve, ᏴᎬᏁ
    ("BEN", ["\u13f4\u13ac\u13c1"]),  # U+13C1 CHEROKEE LETTER NE is in no confusables class
    ("Bill", ["BiII"]),
    ("Ollie", ["0llie"]),
    ("Ian", ["lan"]),
    ("Tom", ["\u03a4om"]),
    ("Kim", ["\u039aim"]),
    ("Mia", ["\u039cia"]),
    ("Nina", ["\u039dina"]),
    ("Paul", ["PauI"]),
]


async def test_capital_look_alikes_are_one_name(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        for name, alikes in LOOK_ALIKES:
            host = await client_from(war, HOME)
            await host.send(CreateRoom(name=name, rules=RulesSpec(players=3)))
            await host.expect(Welcome)
            for alike in alikes:
                guest = await client_from(war, OTHER)
                await guest.send(JoinRoom(code=host.player_code or "", name=alike))
                await guest.expect_error(ErrorCode.NAME_TAKEN)
            await host.close()


HONEST = [
    ("Ira", "\u0418\u0440\u0430"),  # Ира
    ("Eva", "\u0415\u0432\u0430"),  # Ева
    ("Nikos", "\u039d\u03af\u03ba\u03bf\u03c2"),  # Νίκος
    ("Ben", "\u0411\u0435\u043d"),  # Бен
]


async def test_names_of_other_scripts_sit_beside_different_latin_names(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        for name, other in HONEST:
            host = await client_from(war, HOME)
            await host.send(CreateRoom(name=name, rules=RulesSpec(players=3)))
            await host.expect(Welcome)
            guest = await client_from(war, OTHER)
            await guest.send(JoinRoom(code=host.player_code or "", name=other))
            welcome = await guest.expect(Welcome)
            assert welcome.seat == 1
            await guest.close()
            await host.close()


RESERVED = [
    *("\u03a5OU", "\u0421\u041e\u041c\u0420UT\u0415R", "C0MPUTER"),  # look-alikes
    *("Du", "T\u00fa", "Tu", "Vous", "Ty", "Toi"),  # "you" in es, fr, de, pl
    *("Ordenador", "Ordinateur", "Komputer", "KOMPUTER", "l\u2019ordinateur"),
    *("Computer 1", "Computer 2", "Ordenador 3", "computer3"),  # the computer seats' names
]


@pytest.mark.parametrize("name", RESERVED)
async def test_the_clients_words_are_reserved_in_every_language(tmp_path: Path, name: str) -> None:
    async with start_war(tmp_path) as war:
        creator = await client_from(war, HOME)
        await creator.send(CreateRoom(name=name, computers=1))
        await creator.expect_error(ErrorCode.NAME_RESERVED)


# --- talk -------------------------------------------------------------------------------
async def test_a_talk_line_of_invisible_characters_only_is_refused(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, _ = await table(war, (OTHER, "Ben"))
        for text in ("\u3164", "\u2800\u2800", "\u115f", "\u3164\u034f\u3164"):
            await ann.send(Say(text=text))
            await ann.expect_error(ErrorCode.BAD_VALUE)
        assert ann.ws.close_code is None


async def test_spectators_from_one_address_leave_places_for_others(tmp_path: Path) -> None:
    async with start_war(tmp_path, max_spectators=6) as war:
        ann, _ = await table(war, (OTHER, "Ben"))
        code = ann.watch_code or ""
        watching = 0
        while True:
            squatter = await client_from(war, OTHER)
            await squatter.send(WatchRoom(code=code))
            answer = await squatter.recv()
            if not isinstance(answer, Welcome):
                assert getattr(answer, "code", None) == ErrorCode.SPECTATORS_FULL
                break
            watching += 1
        assert watching < 6
        for _ in range(6 - watching):  # every place left is there for another household
            relative = await client_from(war, GRANDMA)
            await relative.send(WatchRoom(code=code))
            await relative.expect(Welcome)


def saying(text: str) -> Callable[[Said], bool]:
    """An `expect` filter: the ``said`` of ``text``."""
    return lambda said: said.text == text


async def test_talk_rates_hold_per_address_across_connections(tmp_path: Path) -> None:
    async with start_war(tmp_path, say_burst=3.0) as war:
        ann = await client_from(war, HOME)
        await ann.send(CreateRoom(name="Ann", talk=TalkSetting.ALL))
        await ann.expect(Welcome)
        ben = await seated_from(war, OTHER, ann.player_code or "", "Ben")
        watchers = []
        for _ in range(3):
            watcher = await client_from(war, OTHER)
            await watcher.send(WatchRoom(code=ann.watch_code or ""))
            await watcher.expect(Welcome)
            watchers.append(watcher)
        senders = [ben, *watchers]
        for number in range(3):  # the address's burst, whichever connection sends
            text = f"hello {number}"
            await senders[number].send(Say(text=text))
            await senders[number].expect(Said, where=saying(text))
        await senders[3].send(Say(text="one more"))
        await senders[3].expect_error(ErrorCode.RATE_LIMITED)
        # another address has its own share
        await ann.send(Say(text="mine"))
        await ann.expect(Said, where=saying("mine"))


async def test_talk_buckets_go_with_the_address_that_left(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, (ben,) = await table(war, (OTHER, "Ben"))
        room = war.hub.room(ann.room or "")
        assert room is not None
        for source in ("127.0.0.4", "127.0.0.5", "127.0.0.6"):
            for _ in range(3):  # reconnecting brings no fresh bucket, and no new entry
                watcher = await client_from(war, source)
                await watcher.send(WatchRoom(code=ann.watch_code or ""))
                await watcher.expect(Welcome)
                await watcher.send(React(reaction=Reaction.CLAP))
                await watcher.expect(Reacted)
                await watcher.close()
                await ann.expect(SpectatorsChanged, where=lambda m: m.count == 0)
        assert room.talk_addresses == 3
        war.clock.offset += 60  # the buckets refill; the next departure sweeps them
        await ben.close()
        await ann.expect(ConnectionChanged)
        assert room.talk_addresses == 0


# --- rooms one address may hold ---------------------------------------------------------
async def everyone_gone(war: War, players: list[Client], watch_code: str) -> None:
    """``players`` close their connections; returns once the server has seen it (a
    spectator sees them go away, then leaves: its close says its leave was done)."""
    watcher = await client_from(war, GRANDMA)
    await watcher.send(WatchRoom(code=watch_code))
    await watcher.expect(Welcome)
    for player in players:
        await player.close()
        await watcher.expect(ConnectionChanged, where=lambda m: not m.connected)
    await watcher.send(Leave())
    assert (await watcher.expect_close())[0] == CloseCode.NORMAL


async def test_every_room_an_address_created_counts_while_it_exists(tmp_path: Path) -> None:
    async with start_war(tmp_path, max_rooms_per_ip=1) as war:
        ann, others = await table(war, (OTHER, "Ben"), (GRANDMA, "Cy"))
        await everyone_gone(war, [ann, *others], ann.watch_code or "")
        war.clock.offset += 31 * 60  # nobody in it for half an hour: held, and counted
        war.poke()
        again = await client_from(war, HOME)
        await again.send(CreateRoom(name="Ann"))
        await again.expect_error(ErrorCode.TOO_MANY_ROOMS)
        assert war.hub.rooms == 1


async def test_a_two_player_room_nobody_is_in_goes_after_its_idle_time(tmp_path: Path) -> None:
    async with start_war(tmp_path, max_rooms_per_ip=1) as war:
        ann, (ben,) = await table(war, (OTHER, "Ben"))
        await everyone_gone(war, [ann, ben], ann.watch_code or "")
        war.clock.offset += 31 * 60  # --idle-computer-room-minutes (30) later
        war.poke()
        again = await client_from(war, HOME)
        await again.send(CreateRoom(name="Ann"))
        await again.expect(Welcome)  # the abandoned room is gone, and with it its count
        assert war.hub.rooms == 1


# --- every answer carries the headers; /healthz and the page per address ------------------
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options")


async def http_exchange(
    port: int, raw: bytes, *, source: str = HOME
) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` from ``source`` on a fresh loopback connection; the status, the
    headers (lower-cased) and the body back."""

    async def talk() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        try:
            writer.write(raw)
            await writer.drain()
            return await reader.read()
        finally:
            writer.close()

    answer = await asyncio.wait_for(talk(), DEFAULT_TIMEOUT)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split(" ")[1]), headers, body


def get(port: int, path: str = "/", *, extra: str = "", host: str | None = None) -> bytes:
    return (
        f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n{extra}"
        "Connection: close\r\n\r\n"
    ).encode()


UPGRADE = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
"""An upgrade without its key: websockets' own handshake refuses it (400)."""


async def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    async with start_war(tmp_path, connect_burst=1, connect_rate=0.01) as war:
        port = war.server.port
        answers = {
            "healthz": await http_exchange(port, get(port, "/healthz")),
            "other host": await http_exchange(port, get(port, host="rebind.example")),
            "websockets' own 400": await http_exchange(port, get(port, extra=UPGRADE)),
        }
        await client_from(war, OTHER)  # the address's one new connection
        key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        answers["429"] = await http_exchange(port, get(port, extra=UPGRADE + key), source=OTHER)
        statuses = {what: answer[0] for what, answer in answers.items()}
        assert statuses == {
            "healthz": 200,
            "other host": 403,
            "websockets' own 400": 400,
            "429": 429,
        }
        for what, (_, headers, _) in answers.items():
            missing = [name for name in SECURITY_HEADERS if name not in headers]
            assert missing == [], (what, headers)
            assert headers.get("cache-control") == "no-store", what


async def test_healthz_tells_its_counts_only_to_this_machine_itself(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        port = war.server.port
        _, _, plain = await http_exchange(port, get(port, "/healthz"))
        assert "rooms" in json.loads(plain)
        forwarded = get(port, "/healthz", extra="X-Forwarded-For: 127.0.0.1\r\n")
        _, _, through = await http_exchange(port, forwarded)
        assert json.loads(through) == {"status": "ok"}


async def test_the_page_and_healthz_are_rate_limited_per_address(tmp_path: Path) -> None:
    async with start_war(tmp_path, page_burst=20, page_rate=0.01) as war:
        port = war.server.port
        for path in ("/healthz", "/") * 10:  # the burst: a household's page loads
            assert (await http_exchange(port, get(port, path), source=OTHER))[0] == 200
        for path in ("/", "/healthz"):
            status, headers, _ = await http_exchange(port, get(port, path), source=OTHER)
            assert status == 429
            assert int(headers["retry-after"]) >= 1
            assert "content-security-policy" in headers
        assert (await http_exchange(port, get(port, "/"), source=GRANDMA))[0] == 200
