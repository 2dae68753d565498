"""`war-sim`: play many deals of War and report statistics, trace one deal in words, or
check a recorded game's fair deal (``war-sim verify FILE``, `server.sim.verify`).

The console script ``war-sim`` is `server.sim:main` (see `server.sim.cli`).
"""

from __future__ import annotations

from server.sim.cli import main
from server.sim.run import GameRecord, Report, deal_numbers, simulate

__all__ = ["GameRecord", "Report", "deal_numbers", "main", "simulate"]
