"""`Logger`: what the room core asks of a logger. A structlog logger is one.

The core logs events as key-values (``logger.info("seat_joined", seat=1)``) and binds
the room's id once (``logger.bind(room=...)``); it never formats text, never logs a
token, a code or a password, and never chooses where logs go (``server.adapters.logs``
does). Typed as a protocol so that the core needs no logging library.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Logger"]


class Logger(Protocol):
    """A structlog-shaped logger: bound key-values, one method per level."""

    def bind(self, **values: Any) -> Logger:
        """A logger that adds ``values`` to every event it logs."""
        ...

    def info(self, event: str, **values: Any) -> Any:
        """Log ``event`` at level info."""
        ...

    def error(self, event: str, **values: Any) -> Any:
        """Log ``event`` at level error (``exc_info`` may carry an exception)."""
        ...
