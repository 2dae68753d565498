"""The server's settings: one frozen `Settings`, read from flags and ``WAR_*`` variables.

Every flag has an environment variable (the flag wins over the variable, the variable
over the default). An empty variable counts as unset, so ``WAR_PASSWORD=`` in an env file
means "no password"; so does a variable of only spaces, except ``WAR_PASSWORD``, which
refuses it as ``--password`` does (a password meant but lost to a stray space must not
silently open the server to anyone). Values are checked here, once, with errors that
name the flag, the variable and the offending value; nothing downstream re-validates.

Use::

    settings = load_settings(sys.argv[1:], os.environ)   # raises ConfigError
    parser = build_parser()                               # what `war-server --help` shows
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from protocol.fields import (
    MAX_PASSWORD_CHARS,  # a longer password could never be sent
    unprintable,
)
from server.adapters._forwarded import Network
from server.adapters._origin import normal_origin

__all__ = [
    "OPTIONS",
    "ConfigError",
    "LogFormat",
    "LogLevel",
    "Option",
    "Settings",
    "build_parser",
    "default_db_path",
    "load_settings",
]

MIN_MESSAGE_BYTES = 512  # every valid client message fits; smaller would refuse real ones
MAX_MESSAGE_BYTES = 1 << 20
INVALID_MESSAGE_BURST = 10  # codec errors tolerated in a burst before close 1008 ...
INVALID_MESSAGE_REFILL_SECONDS = 6.0  # ... plus one more every this many seconds
OPENING_TIMEOUT_SECONDS = 30.0
PING_INTERVAL_SECONDS = 20.0
PING_TIMEOUT_SECONDS = 20.0
RECEIVE_RATE = 32 * 1024
"""bytes a second one connection is read at, once its burst is spent"""
RECEIVE_BURST = 64 * 1024
"""bytes one connection may send at once before reading slows to RECEIVE_RATE"""
MIN_SEND_BUFFER = 64 * 1024
"""the lowest --max-send-buffer: every answer the server makes in one go fits in it"""
WRITE_HIGH_WATER = 32 * 1024
"""Unsent bytes above which a connection counts as not keeping up (its send timeout runs)"""
MIN_PUBLIC_PROXY_PREFIX = {4: 8, 6: 16}
"""A trusted proxy network with public addresses needs at least this prefix length"""
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_PRIVATE_V6 = (ipaddress.IPv6Network("fc00::/7"), ipaddress.IPv6Network("fe80::/10"))


class ConfigError(ValueError):
    """A flag or variable has a value the server cannot run with (the message says which)."""


class LogFormat(StrEnum):
    """How log lines look."""

    AUTO = "auto"
    """console on a terminal, json otherwise"""
    CONSOLE = "console"
    JSON = "json"


class LogLevel(StrEnum):
    """The lowest level logged."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything `war-server` needs to run, checked.

    The fields after ``trusted_proxies`` have no flag: they are fixed for production and
    exist so tests can shorten them.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    db: Path
    password: str | None = None
    log_format: LogFormat = LogFormat.AUTO
    log_level: LogLevel = LogLevel.INFO
    certfile: Path | None = None
    keyfile: Path | None = None
    max_rooms: int = 500
    max_rooms_per_ip: int = 20
    max_spectators: int = 20
    max_connections_per_ip: int = 32
    max_message_bytes: int = 4096
    rate_limit: float = 20.0
    connect_rate: float = 5.0
    connect_burst: int = 32
    abuse_penalty: float = 10.0
    abuse_penalty_max: float = 300.0
    max_failed_joins: int = 10
    idle_room_minutes: int = 1440
    idle_waiting_room_minutes: int = 30
    away_timeout: float = 120.0
    trusted_proxies: tuple[Network, ...] = ()
    """reverse proxies whose X-Forwarded-For names the client (`server.adapters._forwarded`)"""
    max_send_buffer: int = 256 * 1024
    """unsent bytes a connection may have queued; more: it is aborted (`server.adapters._guard`)"""
    send_timeout: float = 20.0
    """seconds unsent data may stay above `WRITE_HIGH_WATER`; longer: aborted"""
    handshake_timeout: float = 5.0
    """seconds from accepting a connection to the end of its WebSocket opening handshake"""
    max_handshakes_per_ip: int = 32
    """connections one address (an IPv6 /64) may have in the opening handshake at once"""
    allowed_origins: tuple[str, ...] = ()
    """origins (`server.adapters._origin.normal_origin` form) allowed besides the server's own"""
    no_web: bool = False
    """serve no browser table (`server.adapters.web`): WebSocket and /healthz only"""
    # --- not settable from outside -----------------------------------------------------
    opening_timeout: float = OPENING_TIMEOUT_SECONDS
    """seconds a connection may take to send its opening message (then close 4005)"""
    ping_interval: float = PING_INTERVAL_SECONDS
    """seconds between keepalive pings"""
    ping_timeout: float = PING_TIMEOUT_SECONDS
    """seconds without a pong before a connection counts as dead"""
    close_timeout: float = 5.0
    """seconds to wait for a client's close frame on shutdown"""
    receive_rate: float = RECEIVE_RATE
    """bytes a second a connection is read at after its burst (`server.adapters._connection`)"""
    receive_burst: float = RECEIVE_BURST
    """bytes a connection may send at once before reading slows down"""

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={'***' if name == 'password' and value else value!r}"
            for name, value in ((n, getattr(self, n)) for n in self.__dataclass_fields__)
        )
        return f"Settings({shown})"

    @property
    def tls(self) -> bool:
        """Whether the server speaks wss:// itself."""
        return self.certfile is not None


def default_db_path(env: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/family-war/war.sqlite3``, or ``~/.local/share/...`` without it."""
    xdg = env.get("XDG_DATA_HOME", "").strip()
    home = env.get("HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        base = Path(xdg)
    elif home:
        base = Path(home) / ".local" / "share"
    else:
        base = Path.home() / ".local" / "share"
    return base / "family-war" / "war.sqlite3"


# --- value parsers: str -> value, raising ValueError with a lowercase sentence -----------
def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise ValueError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise ValueError(f"{value} is out of range {low}..{high}")
        return value

    return parse


def _seconds(low: float, *, positive: bool) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or value < low or (positive and value <= 0):
            bound = "greater than 0" if positive else f"at least {low:g}"
            raise ValueError(f"{text.strip()} must be a finite number {bound}")
        return value

    return parse


def _host(text: str) -> str:
    host = text.strip()
    if not host or any(c.isspace() for c in host):
        raise ValueError(f"not a host name or address: {text!r}")
    return host


def _password(text: str) -> str:
    if len(text) > MAX_PASSWORD_CHARS:
        raise ValueError(
            f"the password has {len(text)} characters, at most {MAX_PASSWORD_CHARS} are allowed"
        )
    if unprintable(text):
        raise ValueError("the password contains a control or format character")
    if not text.strip():
        raise ValueError("the password is only spaces")
    return text


def _path(text: str) -> Path:
    if not text.strip():
        raise ValueError("an empty path")
    return Path(text).expanduser()


def _existing_file(text: str) -> Path:
    path = _path(text)
    if not path.is_file():
        raise ValueError(f"no such file: {str(path)!r}")
    return path


def _networks(text: str) -> tuple[Network, ...]:
    if text.strip().lower() in {"", "none"}:
        return ()
    networks: list[Network] = []
    for item in text.split(","):
        entry = item.strip()
        if not entry:
            raise ValueError(f"an empty entry in the list {text.strip()!r}")
        try:
            network = ipaddress.ip_network(entry)
        except ValueError as error:
            raise ValueError(f"not an IP address or network: {entry!r} ({error})") from None
        if _too_wide(network):
            v4, v6 = MIN_PUBLIC_PROXY_PREFIX[4], MIN_PUBLIC_PROXY_PREFIX[6]
            raise ValueError(
                f"{entry} would let anyone on the internet choose the address the limits "
                f"count (X-Forwarded-For); trust only your proxy's own address or network "
                f"(a public network needs a prefix of at least /{v4} for IPv4, /{v6} for IPv6)"
            )
        networks.append(network)
    return tuple(networks)


def _too_wide(network: Network) -> bool:
    """True if trusting ``network`` as a proxy would trust a large part of the internet.

    IPv4 needs a prefix of at least /8 (10.0.0.0/8 is the largest private block). IPv6
    needs /16 unless it is unique-local (fc00::/7) or link-local (fe80::/10); its
    IPv4-mapped part (::ffff:0:0/96) counts as the IPv4 network it maps, since a trusted
    mapped network trusts the same IPv4 peers (`server.adapters._forwarded`).
    """
    if isinstance(network, ipaddress.IPv4Network):
        return network.prefixlen < MIN_PUBLIC_PROXY_PREFIX[4]
    if network.overlaps(_MAPPED):
        if not network.subnet_of(_MAPPED):
            return True  # it holds every IPv4-mapped address
        return network.prefixlen - _MAPPED.prefixlen < MIN_PUBLIC_PROXY_PREFIX[4]
    if any(network.subnet_of(private) for private in _PRIVATE_V6):
        return False
    return network.prefixlen < MIN_PUBLIC_PROXY_PREFIX[6]


def _origins(text: str) -> tuple[str, ...]:
    if text.strip().lower() in {"", "none"}:
        return ()
    origins: list[str] = []
    for item in text.split(","):
        if not item.strip():
            raise ValueError(f"an empty entry in the list {text.strip()!r}")
        origins.append(normal_origin(item))
    return tuple(dict.fromkeys(origins))


_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"0", "false", "no", "off"})


def _switch(text: str) -> bool:
    """A yes/no setting: ``1 true yes on`` or ``0 false no off`` (any case)."""
    word = text.strip().lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise ValueError(f"{text!r} is not one of 1, true, yes, on, 0, false, no, off")


def _choice(enum: type[StrEnum]) -> Callable[[str], Any]:
    def parse(text: str) -> StrEnum:
        try:
            return enum(text.strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in enum)
            raise ValueError(f"{text!r} is not one of {allowed}") from None

    return parse


@dataclass(frozen=True, slots=True)
class Option:
    """One setting: its flag, variable, parser, default shown in --help, and meaning.
    A ``switch`` flag takes no value (``--no-web``); its variable takes yes or no."""

    field: str
    flag: str
    env: str
    parse: Callable[[str], Any]
    default: str
    help: str
    metavar: str
    blank_is_unset: bool = True
    """a variable of only spaces counts as unset (never for a secret: it is refused)"""
    switch: bool = False


OPTIONS: tuple[Option, ...] = (
    Option(
        "host",
        "--host",
        "WAR_HOST",
        _host,
        "127.0.0.1",
        "address to listen on (0.0.0.0 = every address)",
        "ADDRESS",
    ),
    Option(
        "port",
        "--port",
        "WAR_PORT",
        _int_in(0, 65535),
        "8765",
        "TCP port for WebSocket and GET /healthz (0 = any free port)",
        "PORT",
    ),
    Option(
        "db",
        "--db",
        "WAR_DB",
        _path,
        "$XDG_DATA_HOME/family-war/war.sqlite3 or ~/.local/share/family-war/war.sqlite3",
        "SQLite store (WAL); its folder is created if missing",
        "PATH",
    ),
    Option(
        "password",
        "--password",
        "WAR_PASSWORD",
        _password,
        "none",
        "password needed to create rooms (joining needs only a code)",
        "TEXT",
        blank_is_unset=False,
    ),
    Option(
        "log_format",
        "--log-format",
        "WAR_LOG_FORMAT",
        _choice(LogFormat),
        "auto",
        "console, json, or auto (console on a terminal, json otherwise)",
        "FORMAT",
    ),
    Option(
        "log_level",
        "--log-level",
        "WAR_LOG_LEVEL",
        _choice(LogLevel),
        "info",
        "debug, info, warning or error",
        "LEVEL",
    ),
    Option(
        "certfile",
        "--certfile",
        "WAR_CERTFILE",
        _existing_file,
        "none",
        "TLS certificate chain (PEM): serve wss:// directly; needs --keyfile",
        "PEM",
    ),
    Option(
        "keyfile",
        "--keyfile",
        "WAR_KEYFILE",
        _existing_file,
        "none",
        "TLS private key (PEM) for --certfile",
        "PEM",
    ),
    Option(
        "max_rooms",
        "--max-rooms",
        "WAR_MAX_ROOMS",
        _int_in(1, 1_000_000),
        "500",
        "rooms held at once (more: error too_many_rooms, close 1013)",
        "N",
    ),
    Option(
        "max_rooms_per_ip",
        "--max-rooms-per-ip",
        "WAR_MAX_ROOMS_PER_IP",
        _int_in(1, 1_000_000),
        "20",
        "rooms created from one address (an IPv6 /64) held at once (more: error "
        "too_many_rooms, close 1013)",
        "N",
    ),
    Option(
        "max_spectators",
        "--max-spectators",
        "WAR_MAX_SPECTATORS",
        _int_in(0, 100_000),
        "20",
        "spectators per room (more: error spectators_full, close 1013)",
        "N",
    ),
    Option(
        "max_connections_per_ip",
        "--max-connections-per-ip",
        "WAR_MAX_CONNECTIONS_PER_IP",
        _int_in(1, 1_000_000),
        "32",
        "connections at once from one address (more: error too_many_connections, close 1013)",
        "N",
    ),
    Option(
        "max_message_bytes",
        "--max-message-bytes",
        "WAR_MAX_MESSAGE_BYTES",
        _int_in(MIN_MESSAGE_BYTES, MAX_MESSAGE_BYTES),
        "4096",
        "largest frame a client may send (larger: close 1009)",
        "BYTES",
    ),
    Option(
        "rate_limit",
        "--rate-limit",
        "WAR_RATE_LIMIT",
        _seconds(0, positive=True),
        "20",
        "messages per second per connection, bursts of twice that (faster: error "
        "rate_limited and the message is dropped; another full burst dropped: close 4001)",
        "PER_SECOND",
    ),
    Option(
        "connect_rate",
        "--connect-rate",
        "WAR_CONNECT_RATE",
        _seconds(0, positive=True),
        "5",
        "new connections per second from one address, bursts of --connect-burst (faster: "
        "refused before the WebSocket handshake with HTTP 429 and a Retry-After header)",
        "PER_SECOND",
    ),
    Option(
        "connect_burst",
        "--connect-burst",
        "WAR_CONNECT_BURST",
        _int_in(1, 1_000_000),
        "32",
        "new connections one address may open at once before --connect-rate applies",
        "N",
    ),
    Option(
        "abuse_penalty",
        "--abuse-penalty",
        "WAR_ABUSE_PENALTY",
        _seconds(0, positive=False),
        "10",
        "seconds an address's new connections are refused (HTTP 429) after one of its "
        "connections was closed for abuse (4001, or 1008 for invalid messages); twice as "
        "long each time it happens again, up to --abuse-penalty-max (0 = never)",
        "SECONDS",
    ),
    Option(
        "abuse_penalty_max",
        "--abuse-penalty-max",
        "WAR_ABUSE_PENALTY_MAX",
        _seconds(0, positive=False),
        "300",
        "the longest penalty; an address out of trouble this long after its last one "
        "starts over at --abuse-penalty",
        "SECONDS",
    ),
    Option(
        "max_failed_joins",
        "--max-failed-joins",
        "WAR_MAX_FAILED_JOINS",
        _int_in(1, 1_000_000),
        "10",
        "wrong codes, tokens or passwords per address per minute before that address "
        "is refused (error too_many_failures, close 1008)",
        "N",
    ),
    Option(
        "idle_room_minutes",
        "--idle-room-minutes",
        "WAR_IDLE_ROOM_MINUTES",
        _int_in(1, 525_600),
        "1440",
        "remove rooms nobody used for this long (a restart is no use; rooms loaded at "
        "start get 15 minutes' grace for their players to come back)",
        "MINUTES",
    ),
    Option(
        "idle_waiting_room_minutes",
        "--idle-waiting-room-minutes",
        "WAR_IDLE_WAITING_ROOM_MINUTES",
        _int_in(1, 525_600),
        "30",
        "remove rooms still waiting for players that nobody is in or used for this long",
        "MINUTES",
    ),
    Option(
        "away_timeout",
        "--away-timeout",
        "WAR_AWAY_TIMEOUT",
        _seconds(0, positive=False),
        "120",
        "seconds before the server plays an absent player's seat at the calm pace, until"
        " they return (0 = never: the game waits for them)",
        "SECONDS",
    ),
    Option(
        "trusted_proxies",
        "--trusted-proxies",
        "WAR_TRUSTED_PROXIES",
        _networks,
        "none",
        "reverse proxies (IP addresses or CIDR networks, comma-separated) whose "
        "X-Forwarded-For header names the client; from them, the rightmost untrusted "
        "address in it counts for the per-address limits and the logs; networks "
        "covering much of the internet (0.0.0.0/0, ::/0, ...) are refused",
        "LIST",
    ),
    Option(
        "allowed_origins",
        "--allowed-origins",
        "WAR_ALLOWED_ORIGINS",
        _origins,
        "none",
        "web pages (origins such as https://example.org, comma-separated) whose browser "
        "WebSockets are accepted besides the server's own page; a WebSocket from any "
        "other page is refused with HTTP 403 (clients that send no Origin header, such "
        "as war-client, are not affected)",
        "LIST",
    ),
    Option(
        "max_send_buffer",
        "--max-send-buffer",
        "WAR_MAX_SEND_BUFFER",
        _int_in(MIN_SEND_BUFFER, 64 * 1024 * 1024),
        "262144",
        "bytes a connection may have waiting to be sent (a client that does not read); "
        "more: the connection is dropped at once",
        "BYTES",
    ),
    Option(
        "send_timeout",
        "--send-timeout",
        "WAR_SEND_TIMEOUT",
        _seconds(0, positive=True),
        "20",
        f"seconds a connection's unsent data may stay above {WRITE_HIGH_WATER // 1024} KiB "
        "(the client is not reading); longer: the connection is dropped",
        "SECONDS",
    ),
    Option(
        "handshake_timeout",
        "--handshake-timeout",
        "WAR_HANDSHAKE_TIMEOUT",
        _seconds(0, positive=True),
        "5",
        "seconds a new connection may take to finish its TLS and WebSocket opening "
        "handshake; longer: dropped",
        "SECONDS",
    ),
    Option(
        "max_handshakes_per_ip",
        "--max-handshakes-per-ip",
        "WAR_MAX_HANDSHAKES_PER_IP",
        _int_in(1, 1_000_000),
        "32",
        "connections one address (an IPv6 /64) may have in the opening handshake at "
        "once; more are refused: held unread until --handshake-timeout, or dropped at "
        "once when descriptors run short (not counted for a --trusted-proxies peer)",
        "N",
    ),
    Option(
        "no_web",
        "--no-web",
        "WAR_NO_WEB",
        _switch,
        "off: GET / serves the browser table",
        "serve no browser table: only the WebSocket and /healthz (a plain HTTP request "
        "then gets 426 Upgrade Required); WAR_NO_WEB takes 1/true/yes/on or 0/false/no/off",
        "",
        switch=True,
    ),
)

_DESCRIPTION = """\
The War card game server: rooms for 2-4 players and their spectators over WebSocket
(binary msgpack frames; protocol/PROTOCOL.md), with every game stored in SQLite so a
restart (even kill -9) loses nothing: clients reconnect and resume their seats.
GET /healthz on the same port answers 200 with JSON {status, rooms, connections}, and
GET / the browser table: open http://HOST:PORT/ on a phone, tablet or computer to play
(--no-web turns the page off).
"""

_EPILOG = f"""\
Every flag can also be set by the environment variable shown with it; a flag wins over
its variable, and an empty variable counts as unset. Prefer WAR_PASSWORD to --password:
a flag is visible to every user of the machine in the process list.

Limits on one connection (besides those above): {INVALID_MESSAGE_BURST} invalid messages in a
burst (one more forgiven every {INVALID_MESSAGE_REFILL_SECONDS:g} s) close it with 1008; a text
frame closes it with 1003; no opening message within {OPENING_TIMEOUT_SECONDS:g} s closes it
with 4005; no answer to a ping for {PING_INTERVAL_SECONDS + PING_TIMEOUT_SECONDS:g} s drops it.

SIGTERM or SIGINT: stop accepting, close every client with 1012 (they resume their
seats after the restart), flush the store, exit 0.

examples:
  war-server                                  # 127.0.0.1:8765, store in ~/.local/share
  WAR_PASSWORD='a long family secret' war-server --host 0.0.0.0
  WAR_PORT=9000 WAR_LOG_FORMAT=json war-server
  war-server --certfile fullchain.pem --keyfile privkey.pem   # wss:// directly
  war-server --trusted-proxies 127.0.0.1,::1  # behind nginx or Caddy on this machine
"""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description and epilog as written; never breaks a path at a hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def build_parser() -> argparse.ArgumentParser:
    """The `war-server` argument parser (every option defaults to None = not given)."""
    parser = argparse.ArgumentParser(
        prog="war-server",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=_HelpFormatter,
    )
    for option in OPTIONS:
        text = f"{option.help} (env {option.env}, default {option.default})"
        if option.switch:
            parser.add_argument(
                option.flag, dest=option.field, action="store_const", const="1", help=text
            )
            continue
        parser.add_argument(
            option.flag, dest=option.field, metavar=option.metavar, default=None, help=text
        )
    parser.add_argument("--version", action="version", version="%(prog)s " + _package_version())
    return parser


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("family-war")
    except PackageNotFoundError:
        return "unknown"


def load_settings(argv: Sequence[str] | None, env: Mapping[str, str]) -> Settings:
    """Read flags (``argv``, without the program name) over ``env`` over the defaults.

    ``--help`` and ``--version`` print and raise SystemExit(0), as argparse does; an
    unknown flag raises SystemExit(2) with argparse's usage message.

    Raises:
        ConfigError: a value is invalid, --certfile and --keyfile are not given together,
            or --abuse-penalty is longer than --abuse-penalty-max.
    """
    namespace = build_parser().parse_args(list(argv) if argv is not None else [])
    values: dict[str, Any] = {}
    for option in OPTIONS:
        given = getattr(namespace, option.field)
        source = option.flag
        if given is None:
            given = env.get(option.env, "")
            source = option.env
            if not given or (option.blank_is_unset and not given.strip()):
                continue
        try:
            values[option.field] = option.parse(given)
        except ValueError as error:
            raise ConfigError(f"{source}: {error}") from None
    values.setdefault("db", default_db_path(env))
    if ("certfile" in values) != ("keyfile" in values):
        given, missing = ("--certfile", "--keyfile")
        if "keyfile" in values:
            given, missing = missing, given
        raise ConfigError(f"{given} needs {missing} too (TLS needs a certificate and its key)")
    defaults = Settings.__dataclass_fields__
    penalty = values.get("abuse_penalty", defaults["abuse_penalty"].default)
    longest = values.get("abuse_penalty_max", defaults["abuse_penalty_max"].default)
    if penalty > longest:
        raise ConfigError(
            f"--abuse-penalty {penalty:g} is longer than --abuse-penalty-max {longest:g} "
            "(raise the maximum too)"
        )
    return Settings(**values)
