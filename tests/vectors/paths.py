"""Write the shared vectors of the second path's merge: ``tests/vectors/paths.json``.

    .venv/bin/python -m tests.vectors.paths      # make vectors

The answers are the Python class's (`protocol.paths.PathMerge`); the browser's port
(``client/web/js/paths.js``) must give the same. The file's own ``about`` says how to read
it; in short: each case starts from a fresh merge (with the file's ``limits``, or the
case's own), and plays its ``steps`` in order:

- ``{"attach": A}``: a second path starts, its first message has index ``A``
  (``PathMerge.attach``);
- ``{"detach": true}``: the second path ended (``PathMerge.detach``);
- ``{"path": P, "index": I, "message": M, "deliver": [...]}``: message ``M`` (an ASCII
  string; its size is its length) arrived on path ``P`` (0: the first connection, 1: the
  second), where it is the message of index ``I`` (what the merge counted for that path
  before it: ``PathMerge.index``); ``deliver``: the messages the merge delivers now, in
  order; ``"overflow": true`` when this arrival put the second path out of step
  (`protocol.paths.PathOverflowError`: nothing delivered, the second path detached).

``delivered``: every message delivered in the case, in order; ``next``: the merge's
``next`` at the end. ``tests/protocol/test_paths.py`` checks the class against the file
and that the file is current; ``tests/client/web/paths.test.mjs`` checks the port. Never
edit the file by hand.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from protocol.paths import FIRST, MOST_HELD, MOST_HELD_BYTES, SECOND, PathMerge, PathOverflowError

__all__ = ["FILE", "VERSION", "cases", "main", "play", "render", "table"]

FILE = Path(__file__).parent / "paths.json"
VERSION = 1
ABOUT = [
    "The second path's merge (protocol/PROTOCOL.md section 11; Python: protocol.paths).",
    "Each case: a fresh merge with the file's limits (or the case's), then its steps in order.",
    '{"attach": A}: a second path starts; its first message has index A.',
    '{"detach": true}: the second path ended (what it held is dropped).',
    '{"path": P, "index": I, "message": M, "deliver": [...]}: M arrived on path P (0 first, 1 '
    "second) as its message of index I (the merge's count for P before it); deliver: what "
    'the merge delivers now, in order; "overflow": true: this arrival put the second path '
    "out of step (nothing delivered, the second path detached).",
    "A message is an ASCII string; its size (for the bytes limit) is its length.",
    "delivered: every message delivered in the case, in order; next: the merge's next at the end.",
]
LIMITS = {"messages": MOST_HELD, "bytes": MOST_HELD_BYTES}

Script = list[tuple[Any, ...]]
"""("attach", after) | ("detach",) | (path, message)"""


def _m(index: int) -> str:
    return f"m{index:02d}"


def _first(*indexes: int) -> Script:
    return [(FIRST, _m(i)) for i in indexes]


def _second(*indexes: int) -> Script:
    return [(SECOND, _m(i)) for i in indexes]


def _hand_made() -> list[tuple[str, dict[str, int] | None, Script]]:
    ahead = MOST_HELD + 1
    return [
        ("the first connection alone", None, _first(0, 1, 2, 3, 4)),
        (
            "attached at the start, the two in step: each message once",
            None,
            [("attach", 0), *[step for i in range(4) for step in (*_first(i), *_second(i))]],
        ),
        (
            "the second path brings 2 to 4 first: delivered from it, the first's copies dropped",
            None,
            [*_first(0, 1), ("attach", 2), *_second(2, 3, 4), *_first(2, 3, 4)],
        ),
        (
            "the first connection is ahead: every message of the second path is a duplicate",
            None,
            [("attach", 0), *_first(0, 1, 2, 3), *_second(0, 1, 2, 3), *_first(4), *_second(4)],
        ),
        (
            "a message held up on the first: the second brings it and the next, then the first",
            None,
            [("attach", 0), *_first(0), *_second(0), *_second(1, 2), *_first(1, 2, 3), *_second(3)],
        ),
        (
            "the second path is ahead of the first: held until the first brings the gap",
            None,
            [("attach", 0), *_first(0), *_second(0, 1), *_second(2, 3), *_first(1), *_first(2, 3)],
        ),
        (
            "attached with an after beyond what the first brought yet: held until it does",
            None,
            [*_first(0), ("attach", 3), *_second(3, 4), *_first(1, 2), *_first(3, 4), *_first(5)],
        ),
        (
            "attached with an after behind what the first brought: its early ones are duplicates",
            None,
            [*_first(0, 1, 2, 3), ("attach", 1), *_second(1, 2, 3, 4), *_first(4, 5), *_second(5)],
        ),
        (
            f"{MOST_HELD} messages held ahead are allowed; one more is out of step",
            None,
            [("attach", 1), *_second(*range(1, ahead + 1)), *_first(*range(ahead + 2))],
        ),
        (
            "more bytes held ahead than allowed (here 10): out of step",
            {"messages": MOST_HELD, "bytes": 10},
            [("attach", 1), *_second(1, 2, 3), *_second(4), *_first(0, 1, 2, 3, 4)],
        ),
        (
            "exactly the bytes allowed (here 9) are held",
            {"messages": MOST_HELD, "bytes": 9},
            [("attach", 1), *_second(1, 2, 3), *_first(0), *_first(1, 2, 3)],
        ),
        (
            "detached: what the second path held is dropped, the first brings it all",
            None,
            [("attach", 1), *_second(1, 2), ("detach",), *_first(0, 1, 2, 3)],
        ),
        (
            "a newer second path replaces the older: its own after, the older's held dropped",
            None,
            [
                *_first(0),
                ("attach", 2),
                *_second(2, 3),
                ("attach", 3),
                *_second(3),
                *_first(1, 2, 3, 4),
                *_second(4, 5),
                *_first(5),
            ],
        ),
        (
            "after an overflow the second path may attach again",
            {"messages": 2, "bytes": MOST_HELD_BYTES},
            [
                ("attach", 1),
                *_second(1, 2, 3),
                *_first(0, 1),
                ("attach", 2),
                *_second(2, 3),
                *_first(2, 3, 4),
                *_second(4),
            ],
        ),
    ]


def _interleaved(rng: random.Random) -> Script:
    """One message list sent on both paths from a random ``after``, with the second path
    dropped and attached again now and then, interleaved at random."""
    count = rng.randint(1, 30)
    script: Script = []
    first = 0
    while first < count:
        if rng.random() < 0.15:
            after = min(count, first + rng.randint(-3, 3))
            script.append(("attach", max(0, after)))
            second = max(0, after)
            while (first < count or second < count) and rng.random() > 0.03:
                take_first = second >= count or (first < count and rng.random() < 0.5)
                if take_first:
                    script.append((FIRST, _m(first)))
                    first += 1
                else:
                    script.append((SECOND, _m(second)))
                    second += 1
            if rng.random() < 0.5:
                script.append(("detach",))
        if first < count:
            script.append((FIRST, _m(first)))
            first += 1
    return script


def cases() -> list[tuple[str, dict[str, int] | None, Script]]:
    """Every case: (about, limits or None for the file's, script)."""
    made = _hand_made()
    rng = random.Random(30)  # issue 30: the same file every time
    for number in range(1, 25):
        made.append((f"random interleaving {number}", None, _interleaved(rng)))
    return made


def play(limits: dict[str, int] | None, script: Script) -> dict[str, Any]:
    """Play ``script`` on a fresh merge: the case as the file gives it."""
    bounds = limits or LIMITS
    merge: PathMerge[str] = PathMerge(most_messages=bounds["messages"], most_bytes=bounds["bytes"])
    steps: list[dict[str, Any]] = []
    delivered: list[str] = []
    for step in script:
        if step[0] == "attach":
            merge.attach(step[1])
            steps.append({"attach": step[1]})
        elif step[0] == "detach":
            merge.detach()
            steps.append({"detach": True})
        else:
            path, message = step
            if path == SECOND and not merge.attached:
                continue  # the second path was put out of step: nothing more from it
            out: dict[str, Any] = {"path": path, "index": merge.index(path), "message": message}
            try:
                now = merge.receive(path, message)
            except PathOverflowError:
                now = []
                out["overflow"] = True
            out["deliver"] = now
            delivered += now
            steps.append(out)
    return {"steps": steps, "delivered": delivered, "next": merge.next}


def table() -> dict[str, Any]:
    """The file's content, made afresh (the same every time)."""
    made = []
    for about, limits, script in cases():
        case: dict[str, Any] = {"about": about}
        if limits is not None:
            case["limits"] = limits
        made.append(case | play(limits, script))
    return {"version": VERSION, "about": ABOUT, "limits": LIMITS, "cases": made}


def render(content: dict[str, Any]) -> str:
    """The file's text: one case a line, so that a changed answer is a small diff."""
    lines = ["{"]
    items = list(content.items())
    for number, (key, value) in enumerate(items):
        comma = "," if number < len(items) - 1 else ""
        if key == "cases":
            lines.append(f"  {json.dumps(key)}: [")
            for i, case in enumerate(value):
                tail = "," if i < len(value) - 1 else ""
                lines.append(f"    {json.dumps(case, separators=(',', ':'))}{tail}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> int:
    FILE.write_text(render(table()), encoding="utf-8")
    print(FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
