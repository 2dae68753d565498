"""``war-client``: play or watch War at a server, in a terminal table or as plain lines."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import importlib.util
import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from client.errors import ClientError, UsageError
from client.lines import LineRenderer, Streams, stdin_reader
from client.net.connection import Connection, Dialing, Opening
from client.net.local import LocalServer
from client.net.statefile import StateFile, default_path
from client.net.tls import client_context
from client.words.catalog import DEFAULT, Catalog, available, catalog
from client.words.language import Viewer, pick
from client.words.links import page_url
from protocol import (
    Aces,
    AutoPlay,
    CloseCode,
    CreateRoom,
    EncodeError,
    JoinRoom,
    RulesSpec,
    ShortWar,
    TalkSetting,
    TieBreak,
    WatchRoom,
    WonCards,
    encode,
    option_name,
    option_names,
    option_value,
)
from vocabulary import DEFAULTS, FACE_DOWN_COUNTS, PLAYER_COUNTS

__all__ = ["build_parser", "main"]

PROG = "war-client"

DESCRIPTION = """\
Play War with your family at a war-server, or watch a game.

Create a room and read its player code aloud; the others join with that code, spectators
watch with the watch code. Everyone presses "turn over" (space) together; the server
decides every battle and war and all players and spectators see the same table.
"""

EPILOG = """\
examples:
  war-client --local
      play against the computer right here (starts its own server; quitting stops it)
  war-client ws://192.168.1.20:8765 --name Grandma --create
      open a room for two; the table shows the player code and the watch code, and the
      link for the browser table: http://192.168.1.20:8765/#join=K7MX-QD4R
  war-client ws://192.168.1.20:8765 --name Ben --join K7MX-QD4R
      take a seat; run the same line again after a crash to get the same seat back
  war-client ws://192.168.1.20:8765 --watch 9HWT-2CBN
      watch the game
  war-client wss://war.example.org --name Ann --create --players 3 --face-down 3 --rounds 50
  war-client wss://192.168.1.20:8765 --cafile war-cert.pem --name Ben --join K7MX-QD4R
      a server with a self-signed certificate: trust the server's own certificate file
  war-client ws://127.0.0.1:8765 --name Ann --create --vs-computer --auto quick --plain

keys at the table:
  space or enter  turn over (in a war: lay down and turn one up)
  a               auto-play: off -> calm (about 1.5 s) -> quick (about 0.3 s)
  f               vote to finish (the rest is played out at once when everyone voted)
  r / d           after game over: rematch with a new deal / replay this deal
  ?               the rules in force (shown in the waiting room)
  q q             leave the room for good (ctrl+q closes the window and keeps the seat)

--plain writes one sentence per event (for logs, screen readers and scripts); a player
may type commands on stdin: enter (turn over), a, a quick, f, r, d, s (the score and
what the game waits for), rules, q twice (leave). A player who can type stays after game over
for a rematch until q; otherwise --plain exits 0 after game over.
--json writes every message received as one JSON object per line (the seat token hidden)
and exits 0 after game over; its lines on stderr end with the server's error code of a
refusal, or the key of why connecting failed: (unreachable.refused). Without a terminal
on stdout, --plain is the default.

Seat tokens are kept in $WAR_CLIENT_STATE, or $XDG_STATE_HOME/family-war/client.json
(default ~/.local/state/family-war/client.json), mode 0600. A dropped connection or a
server restart reconnects by itself ("reconnecting...") and resumes the seat; --join
with the same code and --name after a crash takes the seat back (another --name on the
same computer joins as a new player and leaves that seat alone).
The password to create rooms, if the server has one: --password or $WAR_PASSWORD.
The certificate to trust for wss:// (a self-signed one): --cafile or $WAR_CLIENT_CAFILE.

The table needs Textual (pip install 'family-war[tui]'); --plain and --json do not.

exit status: 0 game over or left; 1 could not connect (a certificate check included),
refused, gave up reconnecting, or no Textual for the table (one line on stderr says
why); 2 a command-line mistake; 143 stopped by SIGTERM (or SIGHUP): the client closes its
connection properly (1001) and the seat is kept, as after a drop.
"""

NO_TEXTUAL = (
    "the terminal table needs Textual, which is not installed: "
    "pip install 'family-war[tui]' (or play without it: --plain)"
)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def _deal(text: str) -> int:
    """A deal number as the table shows it, grouped by spaces ("18 446 744 073") or not."""
    return _positive("".join(text.split()))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``war-client`` (its ``--help`` is the manual)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("url", nargs="?", help="the server: ws://host:port or wss://host:port")
    parser.add_argument("--name", help="your name at the table (default: your login name)")
    parser.add_argument(
        "--cafile",
        metavar="PEM",
        help="for wss://: also trust the certificate(s) in this PEM file, such as the "
        "server's self-signed --certfile (default: $WAR_CLIENT_CAFILE)",
    )
    room = parser.add_argument_group("the room (choose one)")
    which = room.add_mutually_exclusive_group()
    which.add_argument("--create", action="store_true", help="create a room and take seat 1")
    which.add_argument("--join", metavar="CODE", help="take a seat with the player code")
    which.add_argument("--watch", metavar="CODE", help="watch with the watch code")
    which.add_argument(
        "--local",
        action="store_true",
        help="no url: start a war-server here and play against the computer",
    )
    rules = parser.add_argument_group("rules, for --create and --local (as in war-sim)")
    rules.add_argument(
        "--players",
        type=int,
        choices=PLAYER_COUNTS,
        default=DEFAULTS.players,
        help="default %(default)s",
    )
    rules.add_argument(
        "--face-down",
        type=int,
        choices=FACE_DOWN_COUNTS,
        default=DEFAULTS.face_down,
        help="default %(default)s",
    )
    rules.add_argument(
        "--aces",
        choices=option_names(Aces),
        default=DEFAULTS.aces.value,
        help="default %(default)s",
    )
    rules.add_argument(
        "--short-war",
        type=option_name,
        choices=option_names(ShortWar),
        default=option_name(DEFAULTS.short_war.value),
        help="short of cards in a war: lose, or play the last card (default %(default)s)",
    )
    rules.add_argument(
        "--won-cards",
        choices=option_names(WonCards),
        default=DEFAULTS.won_cards.value,
        help="won cards go under shuffled, or in table order (default %(default)s)",
    )
    rules.add_argument(
        "--tie-break",
        choices=option_names(TieBreak),
        default=DEFAULTS.tie_break.value,
        help="equal counts at a limit: a draw, or play on (default %(default)s)",
    )
    rules.add_argument(
        "--deal", type=_deal, help="play this deal number (shown to all; 90 210 or 90210)"
    )
    limit = rules.add_mutually_exclusive_group()
    limit.add_argument("--rounds", type=_positive, help="end after N rounds (26, 50, 100…)")
    limit.add_argument(
        "--minutes", type=_positive, help="end after M minutes (the table shows the time left)"
    )
    computers = rules.add_mutually_exclusive_group()
    computers.add_argument(
        "--vs-computer", action="store_true", help="the computer plays every other seat"
    )
    computers.add_argument("--computers", type=_positive, help="the computer plays N seats")
    rules.add_argument("--password", help="the server's password to create rooms")
    rules.add_argument(
        "--talk",
        choices=[setting.value for setting in TalkSetting],
        default=TalkSetting.PLAYERS.value,
        help="who may talk at the table: all, players (spectators react only), reactions "
        "(nobody writes) or off (default %(default)s; the server may allow less)",
    )
    play = parser.add_argument_group("playing")
    play.add_argument(
        "--auto",
        choices=[mode.value for mode in AutoPlay],
        help="auto-play from the start: off, calm or quick",
    )
    output = play.add_mutually_exclusive_group()
    output.add_argument("--plain", action="store_true", help="one plain sentence per event")
    output.add_argument("--json", action="store_true", help="every message as a JSON line")
    play.add_argument(
        "--lang",
        metavar="LANG",
        help=f"the language of the table: {', '.join(available())} (default: the locale's, "
        "from LC_ALL, LC_MESSAGES or LANG; C and POSIX are English)",
    )
    return parser


CREATE_ONLY = (
    "players",
    "face_down",
    "aces",
    "short_war",
    "won_cards",
    "tie_break",
    "deal",
    "rounds",
    "minutes",
    "vs_computer",
    "computers",
    "password",
    "talk",
)
"""The options only a room's creator gives (the rules group); given with --join or --watch,
that is, different from the parser's default, they are refused."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What the command line asks for."""

    url: str | None
    opening: Opening
    auto: AutoPlay | None
    output: str  # "tui", "plain" or "json"
    lang: str = DEFAULT
    cafile: str | None = None
    cafile_source: str = "--cafile"  # or "WAR_CLIENT_CAFILE"


def _default_name() -> str:
    try:
        login = getpass.getuser()
    except (OSError, KeyError):
        login = ""
    name = login.strip().capitalize()[:24]
    return name or "Player"


def _check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise UsageError(f"the url must look like ws://host:port or wss://host:port, not {url!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise UsageError(f"the url has a bad port: {url!r}") from None
    return url


def plan(args: argparse.Namespace, *, stdout_is_terminal: bool) -> Plan:
    """Check the parsed command line and turn it into a :class:`Plan`.

    Raises:
        UsageError: the options do not go together or a value is not allowed.
    """
    parser = build_parser()
    rule_flags = {
        "--" + dest.replace("_", "-"): getattr(args, dest) != parser.get_default(dest)
        for dest in CREATE_ONLY
    }
    if args.local:
        if args.url is not None:
            raise UsageError("--local starts its own server: leave out the url")
    elif args.url is None:
        raise UsageError("give the server's url (ws://host:port), or --local")
    else:
        _check_url(args.url)
        if not (args.create or args.join or args.watch):
            raise UsageError("choose --create, --join CODE or --watch CODE")
    if (args.join or args.watch) and (used := [f for f, on in rule_flags.items() if on]):
        raise UsageError(f"{used[0]} goes with --create (the room's creator sets the rules)")
    if args.watch and args.auto:
        raise UsageError("--auto is for players; spectators only watch")
    cafile, cafile_source = _cafile(args)
    lang = pick(args.lang, os.environ)
    output = "json" if args.json else "plain" if args.plain else "tui"
    if output == "tui" and not stdout_is_terminal:
        output = "plain"
    auto = AutoPlay(args.auto) if args.auto else None
    name = args.name if args.name is not None else _default_name()
    opening: Opening
    if args.watch:
        opening = WatchRoom(code=args.watch)
    elif args.join:
        opening = JoinRoom(code=args.join, name=name)
    else:
        opening = _create(args, name, local=args.local)
    try:
        encode(opening)
    except EncodeError as error:
        raise UsageError(_explain_option(str(error))) from None
    return Plan(
        url=args.url,
        opening=opening,
        auto=auto,
        output=output,
        lang=lang,
        cafile=cafile,
        cafile_source=cafile_source,
    )


def _cafile(args: argparse.Namespace) -> tuple[str | None, str]:
    """The certificate file to trust and where it was named: ``--cafile`` (only with a
    ``wss://`` url), else ``$WAR_CLIENT_CAFILE`` (ignored for ``ws://``)."""
    secure = args.url is not None and urlsplit(args.url).scheme == "wss"
    if args.cafile is not None:
        if not secure:
            raise UsageError("--cafile is for a wss:// url (a server with a certificate)")
        return args.cafile, "--cafile"
    from_env = os.environ.get("WAR_CLIENT_CAFILE") or None
    return (from_env if secure else None), "WAR_CLIENT_CAFILE"


def _create(args: argparse.Namespace, name: str, *, local: bool) -> CreateRoom:
    computers = args.computers
    if computers is None:
        computers = args.players - 1 if (args.vs_computer or local) else 0
    rules = RulesSpec(
        players=args.players,
        face_down=args.face_down,
        aces=Aces(args.aces),
        short_war=ShortWar(option_value(args.short_war)),
        won_cards=WonCards(args.won_cards),
        round_limit=args.rounds,
        tie_break=TieBreak(args.tie_break),
    )
    password = args.password if args.password is not None else os.environ.get("WAR_PASSWORD")
    return CreateRoom(
        name=name,
        rules=rules,
        deal=args.deal,
        computers=computers,
        minutes=args.minutes,
        password=password or None,
        talk=TalkSetting(args.talk),
    )


def _explain_option(error: str) -> str:
    """Turn a codec complaint about a field into one about the option that set it:
    ``create_room.minutes must be an int in 1..1440, not 2000`` becomes
    ``--minutes must be a whole number from 1 to 1440, not 2000``."""
    for field, option in (
        ("rules.round_limit", "--rounds"),
        ("computers", "--computers"),
        ("minutes", "--minutes"),
        ("deal", "--deal"),
        ("password", "--password"),
        ("name", "--name"),
        ("code", "the code"),
    ):
        if match := re.search(rf"(?:^|[.: ]){re.escape(field)} (must .*)$", error):
            words = _plain_words(match.group(1))
            if option == "--password":  # never echo a secret
                words = re.sub(r", not .*$", "", words)
            return f"{option} {words}"
    return error


def _plain_words(text: str) -> str:
    text = re.sub(r"an int in (\d+)\.\.(\d+)", r"a whole number from \1 to \2", text)
    return re.sub(r"a string of (\d+)\.\.(\d+) characters", r"\1 to \2 characters long", text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``war-client`` with ``argv`` (default: the command line); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        wanted = plan(args, stdout_is_terminal=sys.stdout.isatty())
    except UsageError as error:
        print(f"{PROG}: error: {error} (see {PROG} --help)", file=sys.stderr)
        return 2
    if wanted.output == "tui" and importlib.util.find_spec("textual") is None:
        print(f"{PROG}: {NO_TEXTUAL}", file=sys.stderr)  # before any server or connection
        return 1
    try:
        if wanted.url is None:
            signal.signal(signal.SIGTERM, _stop_on_signal)
            signal.signal(signal.SIGHUP, _stop_on_signal)
            with LocalServer() as server:
                return _play(server.url, wanted, seats=None)
        return _play(wanted.url, wanted, seats=StateFile(default_path()))
    except ClientError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that stop the client calmly: it closes its WebSocket with 1001 (going away,
the seat is kept, as after a drop) and exits 128 + 15."""
GOING_AWAY = int(CloseCode.GOING_AWAY)


def _stop_on_signal(number: int, frame: object) -> None:
    """SIGTERM/SIGHUP with ``--local``: unwind so the child server is stopped too."""
    raise SystemExit(128 + number)


def _play(url: str, wanted: Plan, *, seats: StateFile | None) -> int:
    tls = None
    if wanted.cafile is not None:
        tls = client_context(wanted.cafile, source=wanted.cafile_source)
    dialing = Dialing(ssl_context=tls)
    words = catalog(wanted.lang)
    connection = Connection(url, wanted.opening, seats=seats, auto=wanted.auto, dialing=dialing)
    if wanted.output == "tui":
        from client.tui.app import WarApp  # noqa: PLC0415 - Textual loads only for the table

        viewer = Viewer(words, page_url(url))
        app = WarApp(connection, viewer=viewer, stop_signals=STOP_SIGNALS)
        app.run()
        if app.end_reason:
            print(f"{PROG}: {words.say(app.end_reason)}", file=sys.stderr)
        elif app.farewell:
            print(words.say(app.farewell))
        return app.return_code or 0
    return asyncio.run(_lines(connection, words, json_lines=wanted.output == "json"))


async def _lines(connection: Connection, words: Catalog, *, json_lines: bool) -> int:
    commands = None if json_lines else await stdin_reader()
    streams = Streams(sys.stdout, sys.stderr, commands)
    viewer = Viewer(words, page_url(connection.url))
    renderer = LineRenderer(connection, streams, json_lines=json_lines, viewer=viewer)
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []
    for number in STOP_SIGNALS:
        loop.add_signal_handler(
            number, lambda: stopping.append(loop.create_task(connection.close(GOING_AWAY)))
        )
    try:
        status = await renderer.run()
    finally:
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)
    return 128 + signal.SIGTERM if stopping else status
