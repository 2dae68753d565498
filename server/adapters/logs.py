"""Logging for war-server: structlog key-values, console on a terminal, JSON otherwise.

Log lines are events, not prose: ``log.info("room_created", room="r8k2", seat=0)``. The
connection handler binds ``conn``, ``peer``, and once known ``room`` and ``seat`` to its
task's context (`structlog.contextvars`), so every line it writes carries them.

Secrets never reach a line: any key named like a secret (``token``, ``password``,
``player_code``, ``watch_code``, ``code``) is replaced by ``"[redacted]"`` whatever its
value. Callers name error codes and close codes ``error`` and ``close_code``.

The standard library's loggers (``websockets`` above all) are routed through the same
renderer, and a failed opening handshake (port scanners, health probes without a path)
is one info line instead of an error with a traceback.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from server.adapters.config import LogFormat, LogLevel

__all__ = ["SECRET_KEYS", "bind", "configure_logging", "get_logger", "redact_secrets"]

SECRET_KEYS = frozenset({"token", "password", "player_code", "watch_code", "code", "secret"})
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
