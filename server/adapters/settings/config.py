"""The server's settings: one frozen `Settings`, read from flags and ``WAR_*`` variables.

Every setting is declared once, as a field with its default, its reader and its help
(`server.core.settings.setting`): the room core's in `server.core.settings.HubSettings`,
the invitation's in `server.adapters.web.invitation`, the others here, in `Settings`. The
flag and the variable are the field's name (``max_rooms_per_ip``: ``--max-rooms-per-ip``,
``WAR_MAX_ROOMS_PER_IP``), `OPTIONS` and ``--help`` (with each default) are built from
the declarations, and the object `load_settings` returns is the one the core gets.

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
import dataclasses
import os
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any

from server.adapters.addresses.forwarded import Network
from server.adapters.settings.values import (
    LETS_ENCRYPT,
    OUTSIDE_CHECK_MAX,
    OUTSIDE_CHECK_MIN,
    OUTSIDE_CHECK_SECONDS,
    acme_url,
    bounded_seconds,
    choice,
    existing_file,
    host,
    hosts,
    networks,
    origins,
    path,
    public_url,
    switch,
)
from server.core.settings import HubSettings, Setting, declared, seconds, setting, whole
from server.errors import ServerError

__all__ = [
    "OPTIONS",
    "ConfigError",
    "EdgeSettings",
    "InvitationSettings",
    "LogFormat",
    "LogLevel",
    "Option",
    "SecondPathOffer",
    "Settings",
    "build_parser",
    "default_db_path",
    "load_settings",
]


# --- the invitation's and the HTTP edge's settings ---------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class InvitationSettings(HubSettings):
    """The invitation's settings (`server.adapters.settings.config.Settings` extends them)."""

    public_url: str | None = setting(
        None,
        Setting(
            help="the address people open the browser table at, when it is not this "
            "machine's (behind a reverse proxy or TLS), e.g. https://war.example.org/: the "
            "invitation's links are built from it, and its host name is allowed (see "
            "--allowed-hosts); http:// or https://, a host, no #fragment",
            parse=public_url,
            metavar="URL",
            shown="none: http://ADDRESS:PORT/ for each network address of this machine",
        ),
    )
    machine_addresses: tuple[str, ...] | None = setting(
        None,
        Setting(
            help="the addresses this server can be reached at, for the invitation (None: "
            "the machine's, where its sockets listen; tests give their own, never the "
            "machine's real interfaces)",
            flag=False,
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeSettings(InvitationSettings):
    """The room core's settings, the invitation's and the HTTP edge's (the host name of
    ``public_url`` is allowed, as ``allowed_hosts`` are)."""

    allowed_origins: tuple[str, ...] = setting(
        (),
        Setting(
            help="web pages (origins such as https://example.org, comma-separated) whose browser "
            "WebSockets are accepted besides the server's own page; a WebSocket from any "
            "other page is refused with HTTP 403 (clients that send no Origin header, such "
            "as war-client, are not affected)",
            parse=origins,
            metavar="LIST",
        ),
    )
    allowed_hosts: tuple[str, ...] = setting(
        (),
        Setting(
            help="host names (comma-separated; .example.org for every name under it) a browser "
            "may use to reach the server besides IP addresses, localhost and the --public-url's; "
            "a request for any other name gets HTTP 403 (DNS rebinding)",
            parse=hosts,
            metavar="LIST",
        ),
    )
    health_counts: bool = setting(
        False,
        Setting(
            help="GET /healthz tells anyone the number of rooms and connections (they are "
            "always told to loopback); WAR_HEALTH_COUNTS takes 1/true/yes/on or 0/false/no/off",
            parse=switch,
            shown="off: only to loopback",
            switch=True,
        ),
    )


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
_MANY = 1_000_000


class ConfigError(ServerError, ValueError):
    """A flag or variable has a value the server cannot run with (the message says which)."""


class LogFormat(StrEnum):
    """How log lines look."""

    AUTO = "auto"
    """console on a terminal, json otherwise"""
    CONSOLE = "console"
    JSON = "json"


class SecondPathOffer(StrEnum):
    """Which connections are offered a second path (PROTOCOL.md §11, docs/hosting.md)."""

    OUTSIDE = "outside"
    """connections from outside the house (`server.adapters.outside.house`)"""
    ALWAYS = "always"
    """every connection (tests, and hosts who want it on the home network too)"""
    NEVER = "never"
    """none"""


class LogLevel(StrEnum):
    """The lowest level logged."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


_DB_SHOWN = "$XDG_DATA_HOME/family-war/war.sqlite3 or ~/.local/share/family-war/war.sqlite3"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings(EdgeSettings):
    """Everything `war-server` needs to run, checked: the room core's settings
    (`HubSettings`, which the Hub gets as they are), the invitation's and the HTTP edge's
    (`EdgeSettings`), and the transport's and the process's. Fields declared without a
    flag are fixed for production and exist so tests can shorten them."""

    host: str = setting(
        "127.0.0.1",
        Setting(
            help="address to listen on (0.0.0.0 = every address)", parse=host, metavar="ADDRESS"
        ),
    )
    port: int = setting(
        8765,
        Setting(
            help="TCP port for WebSocket and GET /healthz (0 = any free port)",
            parse=whole(0, 65535),
            metavar="PORT",
        ),
    )
    db: Path = dataclasses.field(
        metadata={
            "setting": Setting(
                parse=path,
                help="SQLite store (WAL); its folder is created if missing",
                metavar="PATH",
                shown=_DB_SHOWN,
            )
        }
    )
    log_format: LogFormat = setting(
        LogFormat.AUTO,
        Setting(
            help="console, json, or auto (console on a terminal, json otherwise)",
            parse=choice(LogFormat),
            metavar="FORMAT",
        ),
    )
    log_level: LogLevel = setting(
        LogLevel.INFO,
        Setting(help="debug, info, warning or error", parse=choice(LogLevel), metavar="LEVEL"),
    )
    certfile: Path | None = setting(
        None,
        Setting(
            help="TLS certificate chain (PEM): serve wss:// directly; needs --keyfile",
            parse=existing_file,
            metavar="PEM",
        ),
    )
    keyfile: Path | None = setting(
        None,
        Setting(help="TLS private key (PEM) for --certfile", parse=existing_file, metavar="PEM"),
    )
    max_connections_per_ip: int = setting(
        32,
        Setting(
            help="connections at once from one address (more: error too_many_connections, "
            "close 1013)",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    max_message_bytes: int = setting(
        4096,
        Setting(
            help="largest frame a client may send (larger: close 1009)",
            parse=whole(MIN_MESSAGE_BYTES, MAX_MESSAGE_BYTES),
            metavar="BYTES",
        ),
    )
    rate_limit: float = setting(
        20.0,
        Setting(
            help="messages per second per connection, bursts of twice that (faster: error "
            "rate_limited and the message is dropped; another full burst dropped: close 4001)",
            parse=seconds(0, positive=True),
            metavar="PER_SECOND",
        ),
    )
    connect_rate: float = setting(
        5.0,
        Setting(
            help="new connections per second from one address, bursts of --connect-burst (faster: "
            "refused before the WebSocket handshake with HTTP 429 and a Retry-After header)",
            parse=seconds(0, positive=True),
            metavar="PER_SECOND",
        ),
    )
    connect_burst: int = setting(
        32,
        Setting(
            help="new connections one address may open at once before --connect-rate applies",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    page_rate: float = setting(
        30.0,
        Setting(
            help="plain HTTP requests (the browser table's files, /healthz) one address may "
            "make a second (more: HTTP 429 with Retry-After)",
            parse=seconds(0.0, positive=True),
            metavar="PER_SECOND",
        ),
    )
    page_burst: int = setting(
        240,
        Setting(
            help="plain HTTP requests one address may make at once before --page-rate "
            "applies (a few devices of a household loading the page together)",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    abuse_penalty: float = setting(
        10.0,
        Setting(
            help="seconds an address's new connections are refused (HTTP 429) after one of its "
            "connections was closed for abuse (4001, or 1008 for invalid messages); twice as "
            "long each time it happens again, up to --abuse-penalty-max (0 = never)",
            parse=seconds(0, positive=False),
            metavar="SECONDS",
        ),
    )
    abuse_penalty_max: float = setting(
        300.0,
        Setting(
            help="the longest penalty; an address out of trouble this long after its last one "
            "starts over at --abuse-penalty",
            parse=seconds(0, positive=False),
            metavar="SECONDS",
        ),
    )
    trusted_proxies: tuple[Network, ...] = setting(
        (),
        Setting(
            help="reverse proxies (IP addresses or CIDR networks, comma-separated) whose "
            "X-Forwarded-For header names the client; from them, the rightmost untrusted "
            "address in it counts for the per-address limits and the logs; networks "
            "covering much of the internet (0.0.0.0/0, ::/0, ...) are refused",
            parse=networks,
            metavar="LIST",
        ),
    )
    max_send_buffer: int = setting(
        256 * 1024,
        Setting(
            help="bytes a connection may have waiting to be sent (a client that does not read); "
            "more: the connection is dropped at once",
            parse=whole(MIN_SEND_BUFFER, 64 * 1024 * 1024),
            metavar="BYTES",
        ),
    )
    send_timeout: float = setting(
        20.0,
        Setting(
            help=f"seconds a connection's unsent data may stay above "
            f"{WRITE_HIGH_WATER // 1024} KiB "
            "(the client is not reading); longer: the connection is dropped",
            parse=seconds(0, positive=True),
            metavar="SECONDS",
        ),
    )
    handshake_timeout: float = setting(
        5.0,
        Setting(
            help="seconds a new connection may take to finish its TLS and WebSocket opening "
            "handshake; longer: dropped",
            parse=seconds(0, positive=True),
            metavar="SECONDS",
        ),
    )
    max_handshakes_per_ip: int = setting(
        32,
        Setting(
            help="connections one address (an IPv6 /64) may have in the opening handshake at "
            "once; more are refused: held unread until --handshake-timeout, or dropped at "
            "once when descriptors run short (not counted for a --trusted-proxies peer)",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    no_web: bool = setting(
        False,
        Setting(
            help="serve no browser table: only the WebSocket and /healthz (a plain HTTP request "
            "then gets 426 Upgrade Required); WAR_NO_WEB takes 1/true/yes/on or 0/false/no/off",
            parse=switch,
            shown="off: GET / serves the browser table",
            switch=True,
        ),
    )
    outside: bool = setting(
        False,
        Setting(
            help="let relatives elsewhere in: ask the home router (UPnP-IGD, PCP, NAT-PMP) to "
            "forward public port --outside-port to --outside-lan-port, get a certificate "
            "for the public address (ACME, --acme-directory), serve https:// and wss:// "
            "there and print 'outside url=https://ADDRESS/'; without --password only the "
            "house (this machine's own networks) creates rooms; WAR_OUTSIDE takes "
            "1/true/yes/on or 0/false/no/off",
            parse=switch,
            shown="off: the home network alone",
            switch=True,
        ),
    )
    outside_port: int = setting(
        443,
        Setting(
            help="with --outside: the public TCP port the router opens (the certificate's "
            "check, tls-alpn-01, needs 443)",
            parse=whole(1, 65535),
            metavar="PORT",
        ),
    )
    outside_lan_port: int = setting(
        8443,
        Setting(
            help="with --outside: this machine's TCP port the router forwards it to, where "
            "the server serves https:// and wss:// with its own certificate",
            parse=whole(1, 65535),
            metavar="PORT",
        ),
    )
    outside_check: float = setting(
        OUTSIDE_CHECK_SECONDS,
        Setting(
            help="with --outside: seconds between asking the router for its public address "
            "and its mapping, and looking at this machine's global IPv6 address "
            f"({OUTSIDE_CHECK_MIN:g} to {OUTSIDE_CHECK_MAX:g}); a new address gets a new "
            "certificate and a new 'outside url=' line",
            parse=bounded_seconds(OUTSIDE_CHECK_MIN, OUTSIDE_CHECK_MAX),
            metavar="SECONDS",
        ),
    )
    acme_directory: str = setting(
        LETS_ENCRYPT,
        Setting(
            help="with --outside: the ACME (RFC 8555) directory of the certificate authority "
            "(Let's Encrypt's by default)",
            parse=acme_url,
            metavar="URL",
        ),
    )
    acme_ca_file: Path | None = setting(
        None,
        Setting(
            help="with --outside: trust this CA root (PEM) for the ACME directory's own "
            "https:// (a test CA such as pebble); none: the system's roots",
            parse=existing_file,
            metavar="PEM",
        ),
    )
    second_path: SecondPathOffer = setting(
        SecondPathOffer.OUTSIDE,
        Setting(
            help="which connections the server offers a second path, a second TCP connection "
            "that carries the same messages so that a lost packet does not hold a flip up "
            "(welcome.path_key): outside (those from outside the house, as --outside counts "
            "it, with or without --outside), always, or never",
            parse=choice(SecondPathOffer),
            metavar="WHEN",
        ),
    )
    # --- no flag: fixed for production, shortened by tests --------------------------
    house_networks: tuple[Network, ...] | None = setting(
        None,
        Setting(
            help="the house's networks for --outside (None: loopback and this machine's own "
            "interfaces' networks; tests give their own)",
            flag=False,
        ),
    )
    opening_timeout: float = setting(
        OPENING_TIMEOUT_SECONDS,
        Setting(
            help="seconds a connection may take to send its opening message (then close 4005)",
            flag=False,
        ),
    )
    ping_interval: float = setting(
        PING_INTERVAL_SECONDS, Setting(help="seconds between keepalive pings", flag=False)
    )
    ping_timeout: float = setting(
        PING_TIMEOUT_SECONDS,
        Setting(help="seconds without a pong before a connection counts as dead", flag=False),
    )
    close_timeout: float = setting(
        5.0,
        Setting(
            help="seconds a closing handshake may take before the connection is aborted "
            "(the server's, on shutdown too, or one the client's message began)",
            flag=False,
        ),
    )
    receive_rate: float = setting(
        RECEIVE_RATE,
        Setting(
            help="bytes a second a connection is read at after its burst "
            "(server.adapters.ws.connection)",
            flag=False,
        ),
    )
    receive_burst: float = setting(
        RECEIVE_BURST,
        Setting(help="bytes a connection may send at once before reading slows down", flag=False),
    )

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


@dataclass(frozen=True, slots=True)
class Option:
    """One flag, made from a setting's declaration (`server.core.settings.setting`): its
    field, flag, variable, reader, default as ``--help`` shows it, and meaning. A
    ``switch`` flag takes no value (``--no-web``); its variable takes yes or no."""

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


def _shown(value: object) -> str:
    """A default as ``--help`` shows it."""
    if value is None or value == ():
        return "none"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _options() -> tuple[Option, ...]:
    """Every setting with a flag: the transport's and the process's first, then the
    room core's, each in the order of its declaration."""
    core = {field.name for field in dataclasses.fields(HubSettings)}
    ordered = sorted(declared(Settings), key=lambda item: item[0].name in core)
    return tuple(
        Option(
            field=field.name,
            flag="--" + field.name.replace("_", "-"),
            env="WAR_" + field.name.upper(),
            parse=it.parse,
            default=it.shown if it.shown is not None else _shown(field.default),
            help=it.help,
            metavar=it.metavar,
            blank_is_unset=it.blank_is_unset,
            switch=it.switch,
        )
        for field, it in ordered
        if it.flag
    )


OPTIONS: tuple[Option, ...] = _options()
"""Every flag of `war-server`, made from the declarations of `Settings`."""


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
