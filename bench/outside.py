"""The router step of ``--outside``: how long finding the router and opening the port takes,
and closing it, by each protocol, against Debian's miniupnpd in the network lab.

Run from the repository root, as root (tests/lab/setup.sh installs the lab's packages)::

    .venv/bin/python -m bench.outside              # 10 runs of each
    .venv/bin/python -m bench.outside --runs 30 --json

What is measured, each on a lab of its own (tests/lab/lab.py), from the home's namespace:

- the lab's own build and teardown (namespaces, veth pairs, nftables, miniupnpd);
- ``open_outside`` to the open door (search, the address, the conflict check, the
  mapping), for UPnP-IGD v2 and v1, PCP, NAT-PMP, and the default order with UPnP off
  (the SSDP search's wait, then PCP);
- leaving the ``async with`` to the mapping removed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

from server.adapters.outside import Options, open_outside
from server.adapters.outside.door import Method
from tests.lab.lab import Lab, Variant

__all__ = ["main", "measure"]

CASES: list[tuple[str, Variant, tuple[Method, ...]]] = [
    ("upnp (IGD v2)", "public", ("upnp",)),
    ("upnp (IGD v1)", "igd1", ("upnp",)),
    ("pcp", "no-upnp", ("pcp",)),
    ("nat-pmp", "no-upnp", ("nat-pmp",)),
    ("default order, UPnP off", "no-upnp", ("upnp", "pcp", "nat-pmp")),
]


async def _once(methods: tuple[Method, ...]) -> tuple[float, float]:
    options = Options(methods=methods, ipv6=False)
    started = time.perf_counter()
    door = open_outside(8443, 443, options)
    await door.__aenter__()
    opened = time.perf_counter()
    await door.__aexit__(None, None, None)
    return opened - started, time.perf_counter() - opened


def measure(runs: int) -> dict[str, Any]:
    """Medians and ranges in milliseconds, per case, and of the lab's build."""
    results: dict[str, Any] = {}
    builds: list[float] = []
    downs: list[float] = []
    for name, variant, methods in CASES:
        started = time.perf_counter()
        lab = Lab(variant).up()
        builds.append(time.perf_counter() - started)
        try:
            with lab.inside("home"):
                times = [asyncio.run(_once(methods)) for _ in range(runs)]
            assert lab.forwards() == []
        finally:
            started = time.perf_counter()
            lab.down()
            downs.append(time.perf_counter() - started)
        results[name] = {
            "open_ms": _spread([t[0] for t in times]),
            "close_ms": _spread([t[1] for t in times]),
        }
    results["lab up"] = {"ms": _spread(builds)}
    results["lab down"] = {"ms": _spread(downs)}
    return results


def _spread(seconds: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "median": round(statistics.median(ms), 1),
        "min": round(min(ms), 1),
        "max": round(max(ms), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.outside", description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    results = measure(options.runs)
    if options.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"load average {os.getloadavg()[0]:.1f}, {options.runs} runs each")
    for name, figures in results.items():
        line = ", ".join(
            f"{what} {f['median']} ms ({f['min']}-{f['max']})" for what, f in figures.items()
        )
        print(f"{name:28} {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
