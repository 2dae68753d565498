"""``war-server``: read the settings, set up logging, serve until SIGTERM/SIGINT.

Exit status: 0 after a clean shutdown (SIGTERM or SIGINT), 1 if the server cannot start
(address in use, store or TLS files unusable), 2 for a bad flag or variable.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence

from server.app import run_server
from server.config import ConfigError, load_settings
from server.errors import ServerError
from server.logs import configure_logging, get_logger

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run `war-server` with ``argv`` (default: the command line); return the exit status."""
    try:
        settings = load_settings(sys.argv[1:] if argv is None else argv, os.environ)
    except ConfigError as error:
        print(f"war-server: error: {error}", file=sys.stderr)
        print("war-server: see war-server --help", file=sys.stderr)
        return 2
    configure_logging(settings.log_format, settings.log_level)
    log = get_logger()
    try:
        asyncio.run(run_server(settings))
    except KeyboardInterrupt:  # SIGINT before the signal handlers were in place
        log.info("server_stopped", signal="SIGINT")
    except (OSError, ServerError) as error:
        log.error("startup_failed", error=str(error), error_type=type(error).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
