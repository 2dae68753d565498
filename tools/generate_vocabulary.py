"""Write the words both clients share: ``client/web/js/vocabulary.js``, ``client/state/phases.py``.

    .venv/bin/python -m tools.generate_vocabulary    # make vocabulary

A dev tool, not part of the ``client`` package, so that it may read the server's phase
table. It reads the Python sources and writes them out for the clients:

- from ``vocabulary/``: the rule enums, bounds and defaults (`vocabulary.DEFAULTS`), how
  a game ends;
- from ``protocol/``: the wire-only enums, the protocol version, the frame cap, every
  constrained field type (integer ranges, text lengths and patterns, the Unicode
  categories a name may not hold) and which error is followed by which close;
- from ``client/``: which close codes reconnect (`client.net.policy`; what each means to a
  person is in the message catalogs, `client.words.catalog`), the reconnect backoff's numbers
  (`client.net.policy.Policy`), the countdown's warning (`client.words.countdown.WARN_SECONDS`),
  the auto-play cycle (`client.net.intents`), how many recent messages a view keeps;
- from ``server/core/room/phases.py``, through `phase_table` alone: which command a seat or a
  spectator may send in which phase.

The browser's modules import ``vocabulary.js`` instead of keeping copies; the Python
client reads the phase table from ``client/state/phases.py`` (it may not import the server).
``tests/client/web/test_vocabulary.py`` fails when either file is not what this script
writes now.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import textwrap
import typing
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import Any

import client.net.intents
import client.net.policy
import client.state.view
import client.words.countdown
import protocol
import protocol.client_messages
import protocol.fields
import protocol.seat_requests
import protocol.state
import vocabulary
from protocol.fields import IntRange, MaxItems, Text

__all__ = ["JS_PATH", "PY_PATH", "main", "phase_table", "render_js", "render_py"]

ROOT = Path(__file__).resolve().parents[1]
JS_PATH = ROOT / "client" / "web" / "js" / "vocabulary.js"
PY_PATH = ROOT / "client" / "state" / "phases.py"
SAFE = 2**53 - 1
"""The largest integer a JavaScript number holds exactly; beyond it, a BigInt literal."""

_ENUMS: tuple[type[Enum], ...] = (
    vocabulary.Aces,
    vocabulary.ShortWar,
    vocabulary.BothShort,
    vocabulary.WonCards,
    vocabulary.FixedOrder,
    vocabulary.TakenBack,
    vocabulary.TieBreak,
    vocabulary.Termination,
    vocabulary.OutReason,
    protocol.AutoPlay,
    protocol.RematchDeal,
    protocol.RoomPhase,
    protocol.seat_requests.RequestOutcome,
    protocol.TalkSetting,
    protocol.Reaction,
)
_FIELD_MODULES: tuple[ModuleType, ...] = (
    protocol.fields,
    protocol.state,
    protocol.client_messages,
    protocol.seat_requests,
)


def phase_table() -> dict[str, dict[str, dict[str, str]]]:
    """The phase table as the clients need it: ``{command: {who: {phase: error code}}}``.

    For each room command (``ready``, ``set_auto_play``, ``vote_finish``, ``rematch``,
    ``leave``, ``resync``) and each sender a client can be (``seat``, ``spectator``): the
    phases the wire shows (``waiting``, ``playing``, ``over``) in which the server refuses
    it, each with the error code it refuses it with; a phase not listed accepts it. The
    room core's own ``finishing`` stage looks like ``playing`` to a client, with nobody
    awaited, so it is left out, and so are the opening commands (a newcomer's).

    The one function here that reads ``server.core.room.phases``: when that table changes
    shape, adapt this function and nothing else.
    """
    from server.core.room import phases  # noqa: PLC0415 - the one reader of the server's table

    phase_names = [phase.value for phase in protocol.RoomPhase]
    table: dict[str, dict[str, dict[str, str]]] = {}
    for (command, stage, who), verdict in phases.TABLE.items():
        if who is phases.Who.NEWCOMER or stage.value not in phase_names:
            continue
        refusals = table.setdefault(command, {}).setdefault(who.value, {})
        if verdict is not None:
            refusals[stage.value] = verdict.value
    return table


# --- what goes in ----------------------------------------------------------------------------
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _constraint(alias: Any) -> IntRange | Text | None:
    if typing.get_origin(alias) is not typing.Annotated:
        return None
    found = [m for m in typing.get_args(alias)[1:] if isinstance(m, IntRange | Text)]
    return found[0] if found else None


def _fields() -> tuple[dict[str, list[int]], dict[str, dict[str, Any]]]:
    """Every constrained field type of the wire: integers' ranges, texts' limits."""
    integers: dict[str, list[int]] = {}
    texts: dict[str, dict[str, Any]] = {}
    for module in _FIELD_MODULES:
        for name, alias in vars(module).items():
            constraint = _constraint(alias)
            if name.startswith("_") or constraint is None:
                continue
            if isinstance(constraint, IntRange):
                integers[_snake(name)] = [constraint.low, constraint.high]
            else:
                limits: dict[str, Any] = {"min": constraint.min_len, "max": constraint.max_len}
                if constraint.pattern is not None:
                    limits["pattern"] = constraint.pattern.pattern
                if constraint.printable:
                    limits["printable"] = True
                if constraint.normalize:
                    limits["normalize"] = True
                texts[_snake(name)] = limits
    return dict(sorted(integers.items())), dict(sorted(texts.items()))


class _Raw(str):
    """A JavaScript expression written as it is (computed from an export before it)."""


def _max_items() -> dict[str, int]:
    """The longest arrays a record may hold (seats, face-up cards, a welcome's addresses)."""
    hints = typing.get_type_hints(protocol.RoomState, include_extras=True)
    seat_hints = typing.get_type_hints(protocol.SeatState, include_extras=True)
    out = {}
    arrays = (
        ("seats", hints["seats"]),
        ("face_up", seat_hints["face_up"]),
        ("page_urls", protocol.fields.PageUrls),
        ("talk", hints["talk"]),
        ("evening", hints["evening"]),
    )
    for name, hint in arrays:
        out[name] = next(m.count for m in typing.get_args(hint)[1:] if isinstance(m, MaxItems))
    return out


def exports() -> dict[str, tuple[str, Any]]:
    """Every export of ``vocabulary.js``: name → (what it is, its value)."""
    policy = client.net.policy
    integers, texts = _fields()
    defaults = dataclasses.asdict(policy.Policy())
    return {
        "PROTOCOL_VERSION": ("the protocol version this client speaks", protocol.PROTOCOL_VERSION),
        "MAX_SERVER_MESSAGE_BYTES": (
            "the largest server frame a client accepts",
            protocol.MAX_SERVER_MESSAGE_BYTES,
        ),
        "ENUMS": (
            "every enum of the wire: its values, in order",
            {_snake(e.__name__): [m.value for m in e] for e in _ENUMS},
        ),
        "MAX_PLAYERS": (
            "the most players a game has (seats 0 to MAX_PLAYERS-1)",
            vocabulary.MAX_PLAYERS,
        ),
        "PLAYER_COUNTS": ("how many may play one game", list(vocabulary.PLAYER_COUNTS)),
        "FACE_DOWN_COUNTS": ("cards laid face down in a war", list(vocabulary.FACE_DOWN_COUNTS)),
        "MAX_ROUND_LIMIT": ("the highest round limit", vocabulary.MAX_ROUND_LIMIT),
        "MAX_MINUTES": ("the longest time limit, in minutes", protocol.fields.MAX_MINUTES),
        "MAX_DEAL": ("the highest deal number", vocabulary.MAX_DEAL),
        "RULE_DEFAULTS": ("every rule setting's default", vocabulary.DEFAULTS.to_dict()),
        "RULE_NAMES": ("the rule settings, in order", _Raw("Object.keys(RULE_DEFAULTS)")),
        "INTEGERS": ("each integer field type's [lowest, highest]", integers),
        "TEXTS": (
            "each text field type: its length in characters (code points), the pattern it"
            " matches whole if any, printable if it may hold no character of"
            " UNPRINTABLE_CATEGORIES and not only spaces, normalize if it is checked after NFC"
            " and stripping the spaces around it",
            texts,
        ),
        "UNPRINTABLE_CATEGORIES": (
            "the Unicode categories a printable text may not hold",
            sorted(protocol.fields.UNPRINTABLE_CATEGORIES),
        ),
        "MAX_ITEMS": ("the longest arrays of the room's state", _max_items()),
        "CLOSE_AFTER_ERROR": (
            "the errors after which the server closes the connection, and with which close"
            " code; any other error leaves it open, unless no room was open yet (then 4004)",
            {e.value: int(c) for e, c in protocol.CLOSE_CODE_FOR_ERROR.items()},
        ),
        "RETRY_CLOSE_CODES": (
            "closes after which a client reconnects and resumes (1006: no close frame)",
            sorted(policy.RETRY_CODES),
        ),
        "ROOM_ENDED_CLOSE_CODES": (
            "closes that end a room normally (a spectator, or anyone after game over, stops)",
            sorted(policy.ROOM_ENDED),
        ),
        "STALE_SEAT_ERRORS": (
            "refusals of a stored seat after which a client joins anew",
            sorted(policy.STALE_SEAT),
        ),
        "RECONNECT_POLICY": (
            "the reconnect backoff, in seconds",
            {_camel(name): value for name, value in defaults.items()},
        ),
        "WARN_SECONDS": (
            "how long before the time limit's end the one-minute line is said",
            client.words.countdown.WARN_SECONDS,
        ),
        "AUTO_CYCLE": (
            "the order the auto-play key steps through",
            [mode.value for mode in client.net.intents.AUTO_CYCLE],
        ),
        "RECENT_LIMIT": (
            "how many of the latest room messages a view keeps",
            client.state.view.RECENT_LIMIT,
        ),
        "PHASE_TABLE": (
            "which room command a seat or a spectator may send in which phase: the phases"
            " in which the server refuses it, with the error code; a phase not listed"
            " accepts it",
            phase_table(),
        ),
    }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


# --- what comes out -------------------------------------------------------------------------
def _js(value: Any, indent: str = "") -> str:
    """``value`` as a JavaScript literal (integers beyond 2**53-1 as BigInt literals)."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return f"{value}n" if abs(value) > SAFE else str(value)
    inner = indent + "  "
    if isinstance(value, list):
        flat = "[" + ", ".join(_js(item, inner) for item in value) + "]"
        if len(flat) + len(indent) <= 96 and "\n" not in flat:
            return flat
        return "[\n" + "".join(f"{inner}{_js(item, inner)},\n" for item in value) + indent + "]"
    if isinstance(value, dict):
        items = [f"{_key(k)}: {_js(v, inner)}" for k, v in value.items()]
        flat = "{ " + ", ".join(items) + " }"
        if len(flat) + len(indent) <= 96 and "\n" not in flat:
            return flat
        return "{\n" + "".join(f"{inner}{item},\n" for item in items) + indent + "}"
    raise TypeError(f"no JavaScript literal for {value!r}")


def _key(key: str | int) -> str:
    if isinstance(key, int) or re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key):
        return str(key)
    return json.dumps(key)


JS_HEAD = """\
// The words both clients share, written from the Python sources by
// tools/generate_vocabulary.py (`make vocabulary`): the enums, bounds and defaults
// of vocabulary/ and protocol/, what the close codes mean to client/net/policy.py, and the
// phase table of server/core/room/phases.py. Never edit it by hand;
// tests/client/web/test_vocabulary.py fails when it is out of date.

const frozen = (value) => {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) frozen(item);
    Object.freeze(value);
  }
  return value;
};
"""


def render_js() -> str:
    """The text of ``client/web/js/vocabulary.js``: every object frozen, all the way down."""
    parts = [JS_HEAD]
    for name, (about, value) in exports().items():
        literal = _js(value)
        if isinstance(value, dict | list | _Raw):
            literal = f"frozen({literal})"
        wrapped = textwrap.wrap(f"{about[:1].upper()}{about[1:]}.", 92)
        comment = "\n".join(["/**", *(f" * {line}" for line in wrapped), " */"])
        if len(wrapped) == 1:
            comment = f"/** {wrapped[0]} */"
        parts.append(f"\n{comment}\nexport const {name} = {literal};\n")
    return "".join(parts)


def render_py() -> str:
    """The text of ``client/state/phases.py``: the phase table for the Python client."""
    lines = ["{"]
    for command, rows in phase_table().items():
        lines.append(f"    {json.dumps(command)}: {{")
        for who, cells in rows.items():
            row = ", ".join(
                f"{json.dumps(phase)}: {json.dumps(code)}" for phase, code in cells.items()
            )
            lines.append(f"        {json.dumps(who)}: {{{row}}},")
        lines.append("    },")
    table = "\n".join([*lines, "}"])
    return f'''"""Which room command a seat or a spectator may send in which phase (the server's).

Written by tools/generate_vocabulary.py (``make vocabulary``) from the room core's
phase table (``server/core/room/phases.py``), which the client may not import; never edit it
by hand (``tests/client/web/test_vocabulary.py`` fails when it is out of date). The
browser table reads the same table from ``client/web/js/vocabulary.js``.

``PHASE_TABLE[command][who]``: ``who`` is ``"seat"`` or ``"spectator"``; the phases (their
`protocol.RoomPhase` values) in which the server refuses the command, each with the error
code it refuses it with. A phase not listed accepts it.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PHASE_TABLE"]

PHASE_TABLE: Final[dict[str, dict[str, dict[str, str]]]] = {table}
'''


def main() -> int:
    for path, text in ((JS_PATH, render_js()), (PY_PATH, render_py())):
        path.write_text(text, encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
