"""Why connecting failed, in the player's language (`client.net.failure`,
`client.words.reasons`): every reason a player can meet maps to its key of the
``unreachable`` section, each said in every catalog without English; a real refused port,
an HTTP refusal and a reconnect line in German and Polish over 127.0.0.1."""

from __future__ import annotations

import asyncio
import errno
import random
import re
import socket
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import InvalidMessage, InvalidStatus, InvalidURI, WebSocketException
from websockets.http11 import Request, Response

from client.cli import main
from client.net.connection import Connection, Dialing, Ended, LinkEvent, Received, Reconnecting
from client.net.failure import HOSTNAME_MISMATCH, why_unreachable
from client.net.local import free_port
from client.net.policy import Policy
from client.words import reasons
from client.words.catalog import Number, Said, available, catalog, said
from client.words.reasons import unreachable_key
from protocol import (
    CloseCode,
    JoinRoom,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    WatchRoom,
    Welcome,
    encode,
)

TIMEOUT = 10.0
WS, WSS = "ws://war.example:8765", "wss://war.example:8765"
OTHERS = [tag for tag in available() if tag != "en"]
ENGLISH = re.compile(
    r"\b(the|server|connection|refused|timed|network|certificate|handshake|reset|does|use|"
    r"address|another|found|trusted|expired|with|without|answer|listening)\b"
)
"""English words of the reasons; case-sensitive (German's "Server" is its own word)."""


def verify_error(code: int, message: str) -> ssl.SSLCertVerificationError:
    error = ssl.SSLCertVerificationError(1, f"[SSL: CERTIFICATE_VERIFY_FAILED] {message}")
    error.verify_code, error.verify_message = code, message
    return error


def refusal(status: int) -> InvalidStatus:
    return InvalidStatus(Response(status, "No", Headers()))


def eof() -> InvalidMessage:
    error = InvalidMessage("did not receive a valid HTTP response")
    error.__cause__ = EOFError("connection closed while reading HTTP status line")
    return error


def version() -> ssl.SSLError:
    error = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")
    error.reason = "WRONG_VERSION_NUMBER"
    return error


CASES: list[tuple[str, BaseException, str, bool, Said]] = [
    (
        "refused",
        ConnectionRefusedError(111, "Connect call failed"),
        WS,
        False,
        said(reasons.REFUSED),
    ),
    (
        "refused at every address of a name",
        OSError("Multiple exceptions: [Errno 111] Connect call failed ('::1', 1), [Errno 111] …"),
        WS,
        False,
        said(reasons.REFUSED),
    ),
    ("timed out", TimeoutError(), WS, False, said(reasons.TIMEOUT)),
    ("timed out, by number", OSError(errno.ETIMEDOUT, "x"), WS, False, said(reasons.TIMEOUT)),
    (
        "the name not found",
        socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        WS,
        False,
        said(reasons.NO_NAME, host="war.example"),
    ),
    (
        "network unreachable",
        OSError(errno.ENETUNREACH, "Network is unreachable"),
        WS,
        False,
        said(reasons.NO_NETWORK),
    ),
    (
        "no route",
        OSError(errno.EHOSTUNREACH, "No route to host"),
        WS,
        False,
        said(reasons.NO_NETWORK),
    ),
    (
        "reset, plain url",
        ConnectionResetError(104, "Connection reset by peer"),
        WS,
        False,
        said(reasons.TRY_WSS, problem=said(reasons.RESET)),
    ),
    (
        "reset, tls url",
        ConnectionResetError(104, "Connection reset by peer"),
        WSS,
        False,
        said(reasons.TRY_WS, problem=said(reasons.RESET)),
    ),
    (
        "closed in the handshake",
        eof(),
        WS,
        False,
        said(reasons.TRY_WSS, problem=said(reasons.CLOSED)),
    ),
    (
        "an answer that is not http",
        InvalidMessage("did not receive a valid HTTP response"),
        WS,
        False,
        said(reasons.TRY_WSS, problem=said(reasons.BAD_ANSWER)),
    ),
    (
        "tls to a plain server",
        version(),
        WSS,
        False,
        said(reasons.TRY_WS, problem=said(reasons.TLS_FAILED)),
    ),
    (
        "not trusted",
        verify_error(18, "self-signed certificate"),
        WSS,
        False,
        said(reasons.UNTRUSTED),
    ),
    (
        "not trusted with a cafile",
        verify_error(19, "self-signed certificate in certificate chain"),
        WSS,
        True,
        said(reasons.UNTRUSTED_CAFILE),
    ),
    (
        "wrong name",
        verify_error(HOSTNAME_MISMATCH, "IP address mismatch"),
        WSS,
        True,
        said(reasons.WRONG_NAME),
    ),
    ("expired", verify_error(10, "certificate has expired"), WSS, False, said(reasons.EXPIRED)),
    (
        "not yet valid",
        verify_error(9, "certificate is not yet valid"),
        WSS,
        False,
        said(reasons.EXPIRED),
    ),
    ("http 403", refusal(403), WS, False, said(reasons.HTTP_REFUSED, status=403)),
    ("http 426", refusal(426), WS, False, said(reasons.HTTP_REFUSED, status=426)),
    ("http 503", refusal(503), WSS, False, said(reasons.HTTP_REFUSED, status=503)),
    ("a bad url", InvalidURI("ws:/x", "no host"), WS, False, said(reasons.BAD_URL)),
    (
        "anything else keeps the system's words",
        OSError(errno.EMFILE, "Too many open files"),
        WS,
        False,
        said(reasons.OTHER, problem="too many open files"),
    ),
    (
        "a websockets error of no known kind",
        WebSocketException("Odd things happened"),
        WS,
        False,
        said(reasons.OTHER, problem="odd things happened"),
    ),
]


@pytest.mark.parametrize(
    ("error", "url", "cafile", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_failure_has_its_reason(
    error: BaseException, url: str, cafile: bool, reason: Said
) -> None:
    assert why_unreachable(error, url, cafile_given=cafile) == reason


def test_every_reason_key_is_met_by_some_failure() -> None:
    met = {unreachable_key(case[-1]) for case in CASES} | {c[-1].key for c in CASES}
    english = catalog("en").data["messages"]["unreachable"]
    assert {f"unreachable.{name}" for name in english} <= met


@pytest.mark.parametrize("tag", OTHERS)
@pytest.mark.parametrize("reason", [c[-1] for c in CASES], ids=[c[0] for c in CASES])
def test_each_reason_is_said_without_english(tag: str, reason: Said) -> None:
    words = catalog(tag, strict=True)
    for line in (
        said("close.cannot_reach", problem=reason),
        said("close.cannot_connect", url=WS, problem=reason),
    ):
        text = words.say(line)
        system = reason.values.get("problem") if reason.key == reasons.OTHER else None
        checked = text.replace(str(system), "") if isinstance(system, str) else text
        assert not ENGLISH.search(checked), (tag, text)
    if reason.key == reasons.OTHER:
        assert str(reason.values["problem"]) in words.say(reason), "the system's own text stays"


def test_the_key_is_found_inside_what_is_said() -> None:
    hinted = said(reasons.TRY_WS, problem=said(reasons.TLS_FAILED))
    assert unreachable_key(
        said("close.gave_up", reason=said("close.cannot_reach", problem=hinted))
    ) == (reasons.TLS_FAILED)
    assert unreachable_key(said("close.reason", code=1012)) is None
    assert unreachable_key(said("close.cannot_reach", problem="not a message")) is None


@pytest.mark.parametrize(
    ("tag", "line"),
    [
        ("en", "cannot connect to {url}: no server is listening at that address"),
        ("de", "keine Verbindung zu {url}: unter dieser Adresse wartet kein Server"),
        ("pl", "nie można połączyć się z {url}: pod tym adresem nie działa żaden serwer"),
    ],
)
def test_a_closed_port_is_said_in_the_players_language(
    tag: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"ws://127.0.0.1:{free_port()}"  # nothing listens there now
    assert main([url, "--watch", "9HWT-2CBN", "--plain", "--lang", tag]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"war-client: {line.format(url=url)}\n"


async def test_an_http_refusal_of_the_handshake_says_its_status() -> None:
    def forbid(connection: ServerConnection, request: Request) -> Response:
        return connection.respond(403, "not from here\n")

    async def handler(ws: ServerConnection) -> None:  # pragma: no cover - never opened
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, process_request=forbid) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        connection = Connection(f"ws://127.0.0.1:{port}", WatchRoom(code="9HWT-2CBN"))
        events = await asyncio.wait_for(_all(connection), TIMEOUT)
    last = events[-1]
    assert isinstance(last, Ended) and not last.ok
    assert last.reason.values["problem"] == said(reasons.HTTP_REFUSED, status=403)
    assert (
        catalog("de", strict=True)
        .say(last.reason)
        .endswith(": der Server hat die Verbindung abgelehnt (HTTP 403)")
    )


async def _all(connection: Connection) -> list[LinkEvent]:
    return await _rest(connection.events())


async def _rest(events: AsyncIterator[LinkEvent]) -> list[LinkEvent]:
    return [event async for event in events]


def _welcome() -> Welcome:
    seats = tuple(
        SeatState(seat=s, name=name, connected=True, count=26)
        for s, name in enumerate(("Ann", "Ben"))
    )
    room = RoomState(room="r8k2", phase=RoomPhase.PLAYING, rules=RulesSpec(players=2), seats=seats)
    return Welcome(
        seq=1,
        seat=1,
        token="token-one-0123456789",
        player_code="K7MX-QD4R",
        watch_code="9HWT-2CBN",
        state=room,
    )


RECONNECTING = {
    "de": r"Neu verbinden… \(der Server ist nicht erreichbar: unter dieser Adresse wartet kein "
    r"Server; Versuch 1 in \d+,\d s\)",
    "pl": r"Ponowne łączenie… \(nie można dotrzeć do serwera: pod tym adresem nie działa żaden "
    r"serwer; próba 1 za \d+,\d s\)",
}


async def test_the_reconnect_line_after_the_server_went_away_has_no_english(tmp_path: Path) -> None:
    """A welcomed player whose server stops listening: the line that says it reconnects is
    German or Polish from end to end (it said "connection refused" in English before)."""

    restarted = asyncio.Event()

    async def welcome_then_stop(ws: ServerConnection) -> None:
        await ws.recv()
        await ws.send(encode(_welcome()))
        await ws.close(CloseCode.SERVICE_RESTART)
        restarted.set()

    policy = Policy(base=0.01, cap=0.05, give_up_after=300.0)
    async with serve(welcome_then_stop, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        dialing = Dialing(policy=policy, rng=random.Random(1))
        connection = Connection(
            f"ws://127.0.0.1:{port}", JoinRoom(code="K7MX-QD4R", name="Ben"), dialing=dialing
        )
        events = connection.events()
        first = await asyncio.wait_for(anext(events), TIMEOUT)
        assert isinstance(first, Received)
        await asyncio.wait_for(restarted.wait(), TIMEOUT)
    # the server is gone: the drop, then attempts at a port nobody listens on
    seen: list[Reconnecting] = []
    while len(seen) < 2:
        event = await asyncio.wait_for(anext(events), TIMEOUT)
        assert isinstance(event, Reconnecting), event
        seen.append(event)
    await connection.close()
    rest = await asyncio.wait_for(_rest(events), TIMEOUT)
    assert isinstance(rest[-1], Ended) and rest[-1].ok, "closed while it waited"
    refused = seen[-1]
    assert refused.reason == said("close.cannot_reach", problem=said(reasons.REFUSED))
    for tag, pattern in RECONNECTING.items():
        line = said(
            "plain.reconnecting", reason=refused.reason, attempt=1, delay=Number(refused.delay)
        )
        text = catalog(tag, strict=True).say(line)
        assert re.fullmatch(pattern, text), text
        assert not ENGLISH.search(text), text
