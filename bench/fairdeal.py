"""Fair-deal check benchmark: what the browser's check weighs and how long it takes.

Run from the repository root (needs ``node``)::

    .venv/bin/python -m bench.fairdeal [--games 20]

1. **Weight**: the page's first load (what `server.adapters.web.files` serves for ``/``: the
   page, the stylesheet, the icon and every module ``js/main.js`` imports) against the
   modules only a game over loads (``js/engine/``, ``js/sha256.js`` and the vendored
   ``fast-sha256``, fetched by a dynamic ``import()``), as served and gzipped. The first
   load must not grow.
2. **Time**: ``node`` plays ``--games`` whole four-player games (no limit, the slowest
   common case: hundreds of steps) through the browser's whole check (``checkFairDeal``:
   the reveal, the derivation and the replay of every step), and Python the same through
   `client.fair.check.check_fair_deal`; milliseconds per game.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from client.fair.check import check_fair_deal
from protocol.fairness import Claim, commitment, derive_deal
from server.adapters.web.files import WebFiles, _imported
from server.engine import CardsTaken, CardsTurned, Game, Phase, Rules, card_label
from server.engine.check import End, Flip, Shown, Take

ROOT = Path(__file__).parents[1]
LAZY = ("/js/engine/", "/js/sha256.js", "/vendor/fast-sha256/")

NODE_SCRIPT = """
const { checkFairDeal } = await import(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const start = performance.now();
for (const c of cases) {
  const r = checkFairDeal(c.claim, c.shown);
  if (!r.ok) throw new Error(JSON.stringify(r));
}
console.log(JSON.stringify((performance.now() - start) / cases.length));
"""


def weight() -> tuple[int, int, int, int]:
    """First-load bytes, and the lazily loaded modules' bytes, served and gzipped."""
    web = WebFiles.load()
    files = web._files  # the bench reads what the server holds
    prefix = f"/v/{web.version}/"
    assets = {path[len(prefix) :]: f.body for path, f in files.items() if path.startswith(prefix)}
    first = {"/", *(prefix + name for name in _imported(assets))}
    first |= {path for path in files if path.endswith((".css", ".svg"))}
    lazy = [
        f.body
        for path, f in files.items()
        if any(part in path for part in LAZY) and not path.endswith("/LICENSE")
    ]
    return (
        sum(len(files[path].body) for path in first),
        sum(len(gzip.compress(files[path].body, 9)) for path in first),
        sum(len(body) for body in lazy),
        sum(len(gzip.compress(body, 9)) for body in lazy),
    )


def cases(games: int) -> list[tuple[Claim, Shown]]:
    rules = Rules(players=4).to_dict()
    made = []
    for number in range(games):
        key = bytes([number]) * 32
        seeds = [bytes([number, seat]) * 16 for seat in range(4)]
        deal = derive_deal(key, rules, seeds)
        game = Game(Rules.from_dict(rules), deal)
        flips, takes = [], []
        while game.phase is not Phase.OVER:
            for event in game.step():
                if isinstance(event, CardsTurned):
                    cards = tuple((s, card_label(c, game.rules)) for s, c in event.cards)
                    flips.append(Flip(game.steps, event.depth, cards))
                elif isinstance(event, CardsTaken):
                    takes.append(Take(game.steps, event.seat, event.count, event.counts))
        end = End.of(game)
        claim = Claim(rules, commitment(key), key.hex(), [x.hex() for x in seeds], deal)
        made.append((claim, Shown(tuple(flips), tuple(takes), end)))
    return made


def _json(claim: Claim, shown: Shown) -> dict[str, object]:
    end = shown.end
    assert end is not None
    return {
        "claim": {
            "rules": claim.rules,
            "deal_commitment": claim.deal_commitment,
            "server_seed": claim.server_seed,
            "seeds": list(claim.seeds),
            "deal": str(claim.deal),
        },
        "shown": {
            "flips": [{"step": f.step, "depth": f.depth, "cards": f.cards} for f in shown.flips],
            "takes": [
                {"step": t.step, "seat": t.seat, "count": t.count, "counts": t.counts}
                for t in shown.takes
            ],
            "end": {**dataclasses.asdict(end), "termination": end.termination.value},
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    first, first_gz, lazy, lazy_gz = weight()
    print(f"first load: {first / 1024:.1f} KiB as served ({first_gz / 1024:.1f} KiB gzipped)")
    print(
        f"loaded at game over: {lazy / 1024:.1f} KiB as served ({lazy_gz / 1024:.1f} KiB gzipped)"
        " — the engine and fast-sha256"
    )
    made = cases(args.games)
    steps = sum(shown.end.step for _, shown in made if shown.end is not None) / len(made)
    start = time.perf_counter()
    for claim, shown in made:
        assert check_fair_deal(claim, shown).ok
    python_ms = (time.perf_counter() - start) * 1000 / len(made)
    print(f"python: {python_ms:.1f} ms a game ({steps:.0f} steps on average, {len(made)} games)")
    node = shutil.which("node")
    if node is None:
        print("node: not installed, skipped")
        return 0
    module = (ROOT / "client" / "web" / "js" / "engine" / "fairness.js").as_uri()
    done = subprocess.run(
        [node, "--input-type=commonjs", "-e", f"(async () => {{{NODE_SCRIPT}}})()", module],
        input=json.dumps([_json(c, s) for c, s in made]),
        capture_output=True,
        text=True,
        check=True,
    )
    print(
        f"node {subprocess.check_output([node, '--version'], text=True).strip()}:"
        f" {float(done.stdout):.1f} ms a game"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
