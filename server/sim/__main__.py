"""``python -m server.sim`` runs ``war-sim``."""

from __future__ import annotations

import sys

from server.sim.cli import main

sys.exit(main())
