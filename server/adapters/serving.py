"""Serving: a `WarServer` started with its store, its Hub and its TLS, and run until a
signal.

Use::

    async with serving(settings) as server:    # bound; server.port is the real port
        ...
    await run_server(settings)                  # until SIGTERM/SIGINT

`serving` checks the TLS files, takes the store's lock (a second server on the same
store refuses to start), opens the store, rebuilds every room into the Hub, starts the
server, announces it (warns about how it is exposed, `server.adapters.web.exposure`, and
says the addresses to open, `server.adapters.web.invitation`), and on exit stops it as on
SIGTERM: stop accepting, close every client with 1012, commit the last batch, close the
store. `run_server` also raises the process's open-files
limit (every connection is a descriptor) and installs the signal handlers.
"""

from __future__ import annotations

import asyncio
import resource
import signal
import ssl
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.adapters.logs import get_logger
from server.adapters.outside.opening import (
    Door,
    OutsideHooks,
    OutsidePlan,
    RouterStep,
    Six,
    outside,
)
from server.adapters.settings.config import Settings
from server.adapters.web import exposure as _exposure
from server.adapters.web import invitation as _invitation
from server.adapters.ws.app import Clocks, HubLike, WarServer
from server.adapters.ws.connection import NOFILE_CEILING
from server.errors import TlsKeyError

if TYPE_CHECKING:
    from server.adapters.store.sqlite import Store

__all__ = [
    "build_hub",
    "open_store",
    "raise_open_files_limit",
    "run_server",
    "serving",
    "tighten_store_mode",
    "tls_context",
]

log = get_logger()


def open_store(settings: Settings) -> Store:
    """The SQLite store at ``settings.db`` (its folder is created).

    Raises:
        OSError: the store's folder cannot be created.
        server.errors.StoreError: the store cannot be opened.
    """
    from server.adapters.store.sqlite import SqliteStore  # noqa: PLC0415 (keep the app importable alone)

    settings.db.parent.mkdir(parents=True, exist_ok=True)
    tighten_store_mode(settings.db)
    store = SqliteStore(settings.db)
    tighten_store_mode(settings.db)  # a -wal or -shm SQLite made just now
    return store


STORE_SUFFIXES = ("", "-wal", "-shm")
"""The store's files: the database, its write-ahead log and its shared-memory index."""


def tighten_store_mode(db: Path) -> list[Path]:
    """Make each of the store's files (`STORE_SUFFIXES`) that others may read or write
    readable by its owner only (0600), with a warning that says so (a store restored
    from a backup with ``cp`` is often 0644: its codes would be readable by every user
    of the machine); the files changed."""
    changed = []
    for suffix in STORE_SUFFIXES:
        file = db.with_name(db.name + suffix)
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
            if not mode & 0o077:
                continue
            file.chmod(0o600)
        except FileNotFoundError:
            continue
        except OSError as error:  # not ours to change: say so, the server still runs
            log.warning("store_mode_unchanged", file=str(file), mode=oct(mode), error=str(error))
            continue
        log.warning(
            "store_mode_tightened",
            file=str(file),
            was=oct(mode),
            now="0o600",
            why="other users of this machine could read the store's codes",
        )
        changed.append(file)
    return changed


def build_hub(settings: Settings, store: Store, now: float) -> HubLike:
    """The real Hub, built from every room ``store`` holds, with ``settings`` (the room
    core's part of them: `server.core.settings.HubSettings`).

    Raises:
        server.errors.StoreError: the store cannot be loaded.
    """
    from server.core.hub.hub import Hub  # noqa: PLC0415 (keep the app importable alone)

    return Hub(store.load_all(), settings, now=now, logger=log)


def _plan(settings: Settings) -> OutsidePlan:
    return OutsidePlan(
        lan_port=settings.outside_lan_port,
        public_port=settings.outside_port,
        directory=settings.acme_directory,
        ca_file=settings.acme_ca_file,
        folder=settings.db.parent,
        check_every=settings.outside_check,
    )


def _home_router(settings: Settings) -> RouterStep:
    """The home router, asked for its address every ``--outside-check`` seconds; the
    IPv6 pinhole only for the address and port the server's IPv6 listener holds."""
    from server.adapters.outside import (  # noqa: PLC0415
        Options,
        OutsideError,
        open_ipv6,
        open_outside,
    )

    def open_door(
        lan_port: int, public_port: int, ipv6: Six | None
    ) -> AbstractAsyncContextManager[Door]:
        options = Options(
            ipv6=ipv6 is not None,
            ipv6_address=ipv6[0] if ipv6 else None,
            ipv6_port=ipv6[1] if ipv6 else None,
            check_every=settings.outside_check,
        )
        return open_outside(lan_port, public_port, options)

    def open_pinhole(ipv6: Six) -> AbstractAsyncContextManager[Door]:
        return open_ipv6(ipv6[0], ipv6[1], Options(check_every=settings.outside_check))

    return RouterStep(open=open_door, errors=(OutsideError,), open_ipv6=open_pinhole)


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """A server TLS context from ``--certfile``/``--keyfile``, or None without them.

    A key protected by a passphrase is refused with `TlsKeyError` instead of OpenSSL's
    prompt on the terminal (the server runs unattended: nobody would answer it).

    Raises:
        ssl.SSLError, OSError: the files are not a matching PEM certificate and key.
        server.errors.TlsKeyError: the key needs a passphrase.
    """
    if settings.certfile is None or settings.keyfile is None:
        return None
    keyfile = settings.keyfile

    def no_passphrase() -> bytes:
        raise TlsKeyError(
            f"the TLS key {str(keyfile)!r} is protected by a passphrase, which war-server "
            "cannot ask for: give --keyfile a copy without one, readable only by the "
            "server (openssl pkey -in KEY -out KEY.plain; chmod 600 KEY.plain)"
        )

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(settings.certfile, keyfile, password=no_passphrase)
    return context


@asynccontextmanager
async def serving(
    settings: Settings,
    *,
    hub: HubLike | None = None,
    store: Store | None = None,
    clocks: Clocks | None = None,
    hooks: OutsideHooks | None = None,
) -> AsyncIterator[WarServer]:
    """Start a server: the real Hub over the SQLite store at ``settings.db``, or ``hub``
    (built from ``store``'s rooms; a stand-in that writes nothing needs none). ``clocks``:
    the Hub's (wall time) and the transport limits' (monotonic), `Clocks`. With
    ``--outside``, the way in for relatives elsewhere is opened once the server runs
    (`server.adapters.outside.opening`: the home router, `server.adapters.outside.open_outside`,
    unless ``hooks`` give another); its failures are said, never raised.

    Yields once it accepts connections; on exit it stops as on SIGTERM (clients get
    1012, the last batch is committed, the store is closed).

    Raises:
        OSError: the address cannot be bound, or the store's folder cannot be made.
        ssl.SSLError: the TLS files do not load.
        server.errors.TlsKeyError: the TLS key needs a passphrase.
        server.errors.StoreError: the store cannot be opened, or another server holds it.
    """
    clocks = clocks or Clocks()
    context = tls_context(settings)  # bad TLS files fail before the store is opened
    async with _store_locked(settings, hub is None):
        if hub is None:
            store = open_store(settings)
            try:
                hub = build_hub(settings, store, clocks.wall())
            except BaseException:
                store.close()
                raise
        server = WarServer(settings, hub, store, clocks=clocks, ssl_context=context)
        try:
            await server.start()
        except BaseException:
            if store is not None:
                store.close()
            raise
        async with _serving(settings, server) as started:
            if not settings.outside:
                yield started
                return
            hooks = hooks or OutsideHooks()
            router = hooks.router or _home_router(settings)
            async with outside(_plan(settings), started, router, hooks) as state:
                if hooks.on_state is not None:
                    hooks.on_state(state)
                yield started


@asynccontextmanager
async def _store_locked(settings: Settings, lock: bool) -> AsyncIterator[None]:
    """Hold `StoreLock` on ``settings.db`` for the block (if ``lock``): a second server
    on the same store refuses to start."""
    if not lock:
        yield
        return
    from server.adapters.store.sqlite import StoreLock  # noqa: PLC0415 (keep the app importable alone)

    settings.db.parent.mkdir(parents=True, exist_ok=True)
    held = StoreLock(settings.db)
    try:
        yield
    finally:
        held.release()


@asynccontextmanager
async def _serving(settings: Settings, server: WarServer) -> AsyncIterator[WarServer]:
    """Announce a started ``server`` (and warn about its exposure); stop it at the end."""
    log.info(
        "listening",
        host=settings.host,
        port=server.port,
        tls=settings.tls,
        db=str(settings.db),
        rooms=server.hub.rooms,
        password_required=settings.password is not None,
        open_files_limit=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    )
    for warning in _exposure.startup_warnings(
        _exposure.bound_addresses(server.sockets),
        tls=settings.tls,
        password=settings.password is not None,
        behind_proxy=bool(settings.trusted_proxies),
    ):
        log.warning(warning.event, **warning.fields)
    addresses = _invitation.invitation(server)
    lines = _invitation.startup_lines(
        addresses, public_url=settings.public_url is not None, here=_invitation.here(server)
    )
    for line in lines:
        (log.warning if line.event == "loopback_only" else log.info)(line.event, **line.fields)
    try:
        yield server
    finally:
        await server.stop()


async def run_server(
    settings: Settings,
    *,
    on_ready: Callable[[WarServer], Any] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT (or ``stop`` is set), then shut down cleanly.

    ``on_ready`` is called with the running server once it accepts connections.
    Raises what `serving` raises.
    """
    stopping = stop if stop is not None else asyncio.Event()
    raise_open_files_limit()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, _on_signal, sig, stopping)
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # not the main thread, or a platform without signal handlers
        installed.append(sig)
    try:
        async with serving(settings) as server:
            if on_ready is not None:
                on_ready(server)
            await stopping.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


def raise_open_files_limit() -> int:
    """Raise this process's soft open-files limit to its hard limit; return the limit.

    Every connection is a file descriptor; the soft limit is often 1,024 while the hard
    one (systemd's LimitNOFILE, compose's ``ulimits``) allows far more. A raise is logged
    (``open_files_limit``), as is a refusal; the ``listening`` line shows the limit in
    any case. Never raises: a system that refuses (a seccomp filter, a container) leaves
    the limit as it was.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = NOFILE_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (OSError, ValueError) as error:
            log.warning("open_files_limit", limit=soft, hard_limit=hard, error=str(error))
            return soft
        log.info("open_files_limit", limit=target, hard_limit=hard, raised_from=soft)
        return target
    return soft  # already there: the "listening" line shows it


def _on_signal(sig: signal.Signals, stopping: asyncio.Event) -> None:
    log.info("signal_received", signal=sig.name)
    stopping.set()
