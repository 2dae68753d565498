"""``war-server``: read the settings, set up logging, serve until SIGTERM/SIGINT.

Exit status: 0 after a clean shutdown (SIGTERM or SIGINT), 1 if the server cannot start
(address in use, store or TLS files unusable), 2 for a bad flag or variable.

Once the server accepts connections (the Hub has rebuilt every room from the store), the
garbage collector is tuned for a long-running server: see `tune_gc`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from collections.abc import Sequence

from server.adapters.logs import configure_logging, get_logger
from server.adapters.serving import run_server
from server.adapters.settings.config import ConfigError, load_settings
from server.adapters.ws.app import WarServer
from server.errors import ServerError

__all__ = ["GC_THRESHOLD", "main", "tune_gc"]

GC_THRESHOLD = (700, 10, 100)
"""Generation thresholds for `gc.set_threshold` (CPython's default: 700, 10, 10)."""


def tune_gc() -> int:
    """Freeze what exists now out of the collector's sight and make full collections rare.

    Measured (docs/performance.md, finding F3): with 1,000 rooms x 4
    connections a full (generation 2) collection paused the event loop 130-210 ms, every
    room waiting. ``gc.freeze()`` moves every object alive now (modules, the Hub and the
    rooms it rebuilt from the store) to the permanent generation, so no later collection
    scans them again, and a third threshold of 100 (not 10) makes full collections ten
    times rarer. The young generation keeps CPython's 700: a larger one (50,000 was
    tried) made each young collection free ~21,000 objects of closed connections at once
    under connection churn, a 30-50 ms pause every second (honest p99 35 ms against
    2.5 ms with 700, bench.load --scenarios abuse). Not ``gc.disable()``: websockets and
    asyncio make reference cycles with every closed connection, which only the collector
    frees.

    Collects once first (so no garbage is frozen); returns how many objects were frozen.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    return gc.get_freeze_count()


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

    def on_ready(_server: WarServer) -> None:
        frozen = tune_gc()
        log.debug("gc_tuned", frozen=frozen, threshold=list(gc.get_threshold()))

    try:
        asyncio.run(run_server(settings, on_ready=on_ready))
    except KeyboardInterrupt:  # SIGINT before the signal handlers were in place
        log.info("server_stopped", signal="SIGINT")
    except (OSError, ServerError) as error:
        log.error("startup_failed", error=str(error), error_type=type(error).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
