"""Logging for war-server: structlog key-values, console on a terminal, JSON otherwise.

Log lines are events, not prose: ``log.info("room_created", room="r8k2", seat=0)``. The
connection handler binds ``conn``, ``peer``, and once known ``room`` and ``seat`` to its
task's context (`structlog.contextvars`), so every line it writes carries them.

Secrets never reach a line: any key named like a secret (``token``, ``password``,
``player_code``, ``watch_code``, ``code``, ``key`` and ``path_key``, a second path's key)
is replaced by ``"[redacted]"`` whatever its
value. Callers name error codes and close codes ``error`` and ``close_code``.

The standard library's loggers (``websockets`` above all) are routed through the same
renderer, and a failed opening handshake (port scanners, health probes without a path)
is one info line instead of an error with a traceback.

One log line per key per period, with how many were left out since: `LogThrottle`.

An attacker who makes the server refuse or fail something thousands of times a minute
(connections past a limit, accepts failing for lack of file descriptors) must not turn
the log into thousands of lines: the first occurrence of a key is logged, the next ones
within ``period`` seconds are only counted, and the first one after that is logged with
the count (the caller passes the time). `route_accept_errors` puts the event loop's
failed accepts under one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import sys
from collections.abc import Callable, Hashable
from typing import Any, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from server.adapters.settings.config import LogFormat, LogLevel

__all__ = [
    "SECRET_KEYS",
    "LogThrottle",
    "bind",
    "configure_logging",
    "get_logger",
    "redact_secrets",
    "route_accept_errors",
]

SECRET_KEYS = frozenset(
    {"token", "password", "player_code", "watch_code", "code", "secret", "key", "path_key"}
)
_REDACTED = "[redacted]"
_LEVELS = {
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
}


def redact_secrets(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """A structlog processor: replace the value of every secret-named key."""
    for key in SECRET_KEYS.intersection(event):
        event[key] = _REDACTED
    return event


class _QuietHandshakeFailures(logging.Filter):
    """Turn websockets' "opening handshake failed" error + traceback into one info line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() == "opening handshake failed":
            reason = record.exc_info[1] if record.exc_info else None
            record.msg = "handshake_failed"
            record.args = None
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.exc_info = None
            record.exc_text = None
            record.reason = str(reason)[:200] if reason else None
        return True


def _add_record_extras(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    record = event.get("_record")
    reason = getattr(record, "reason", None)
    if reason is not None:
        event["reason"] = reason
    return event


def configure_logging(
    log_format: LogFormat, level: LogLevel, *, stream: TextIO | None = None
) -> None:
    """Send every log line to ``stream`` (stderr by default) in the chosen format.

    ``LogFormat.AUTO`` means console when ``stream`` is a terminal, JSON otherwise.
    Safe to call again (tests do): it replaces the previous setup.
    """
    out = stream if stream is not None else sys.stderr
    if log_format is LogFormat.AUTO:
        is_tty = getattr(out, "isatty", None)
        log_format = LogFormat.CONSOLE if is_tty is not None and is_tty() else LogFormat.JSON
    renderer: Processor
    if log_format is LogFormat.CONSOLE:
        renderer = structlog.dev.ConsoleRenderer(colors=_colors(out))
    else:
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        redact_secrets,
    ]
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info
            if log_format is LogFormat.JSON
            else _keep_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level]),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, _add_record_extras],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info
                if log_format is LogFormat.JSON
                else _keep_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_war_server", False):
            root.removeHandler(old)
    handler.setLevel(_LEVELS[level])
    handler._war_server = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(_LEVELS[level])
    websockets_logger = logging.getLogger("websockets")
    # websockets logs every HTTP answer and close at info: too chatty for /healthz probes
    websockets_logger.setLevel(max(_LEVELS[level], logging.WARNING))
    server_logger = logging.getLogger("websockets.server")
    if not any(isinstance(f, _QuietHandshakeFailures) for f in server_logger.filters):
        server_logger.addFilter(_QuietHandshakeFailures())


def _keep_exc_info(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    return event  # the console renderer formats exceptions itself


def _colors(out: TextIO) -> bool:
    is_tty = getattr(out, "isatty", None)
    return bool(is_tty is not None and is_tty())


def get_logger(**initial: Any) -> Any:
    """A structlog logger with ``initial`` key-values bound."""
    return structlog.get_logger(**initial)


def bind(**values: Any) -> None:
    """Bind key-values to the current task's log context (see module docstring)."""
    structlog.contextvars.bind_contextvars(**values)


# --- one line per key per period ---------------------------------------------------------
_PRUNE_AT = 4096  # keys held before stale ones are dropped (bounds the memory)


class LogThrottle:
    """Say whether to log an occurrence of a key now (see the module docstring)."""

    __slots__ = ("_keys", "period")

    def __init__(self, period: float) -> None:
        self.period = period
        self._keys: dict[Hashable, tuple[float, int]] = {}  # key -> (logged at, left out)

    def allow(self, key: Hashable, now: float) -> int | None:
        """None: do not log this one (it is counted). Otherwise log it, with the returned
        number of occurrences left out since the key's last line."""
        entry = self._keys.get(key)
        if entry is not None and now - entry[0] < self.period:
            self._keys[key] = (entry[0], entry[1] + 1)
            return None
        if entry is None and len(self._keys) >= _PRUNE_AT:
            self._prune(now)
        self._keys[key] = (now, 0)
        return 0 if entry is None else entry[1]

    def _prune(self, now: float) -> None:
        for key, (logged, _) in list(self._keys.items()):
            if now - logged >= self.period:
                del self._keys[key]


def route_accept_errors(
    loop: asyncio.AbstractEventLoop, quiet: LogThrottle, clock: Callable[[], float]
) -> Callable[[], None]:
    """Route ``loop``'s failed accepts (out of file descriptors: EMFILE, ENFILE, ENOBUFS,
    ENOMEM) to one ``accept_failed`` log line per kind of failure per ``quiet``'s period
    (with how many were left out), anything else to the handler it had; return the
    function that puts that handler back.

    asyncio logs every failed ``accept()`` with a traceback and tries again a second
    later; with descriptors used up by an attacker that was 40,000 lines in 20 s.
    """
    previous = loop.get_exception_handler()

    def failed(error: OSError) -> None:
        suppressed = quiet.allow(("accept_failed", error.errno), clock())
        if suppressed is not None:
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            get_logger().error(
                "accept_failed",
                error=os.strerror(error.errno) if error.errno else str(error),
                errno=error.errno,
                also_failed=suppressed,
                open_files_limit=soft,
                hard_limit=hard,
                period=quiet.period,
            )

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        message = str(context.get("message", ""))
        if isinstance(error, OSError) and message.startswith("socket.accept()"):
            failed(error)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)

    def restore() -> None:
        loop.set_exception_handler(previous)

    return restore
