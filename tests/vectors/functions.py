"""Write the shared vectors of the clients' pure decisions: ``tests/vectors/functions/*.json``.

    .venv/bin/python -m tests.vectors.functions      # make vectors

Each file is a table of cases, inputs and the answer the Python client gives, for one of
the decisions the terminal client and the browser table make alike:

- ``intents.json``: a view (the ``welcome`` frame that makes it, exactly as it crossed
  the wire) and a key press (``space``, ``a``, ``f``, ``r``, ``d``, or ``a <mode>`` for
  a chosen auto-play mode), with the step of a ``ready`` already sent (``sent``) and an
  auto-play mode asked for (``asked``) → the message to send (``send``) or what the
  player is told instead (``say``: a catalog message and its values, said in the
  viewer's language). `client.net.intents` against ``js/intents.js``.
- ``reconnect.json``: how a connection ended, the jitter and the policy → the decision
  (stop, join anew, or retry after a delay, reopening how). `client.net.policy.decide`
  against ``decide`` of ``js/connection.js``.
- ``close-reasons.json``: a close code, and the error the server sent before it → the
  line that says why, and whether to reconnect. `client.words.sentences.closed_because` and
  ``should_reconnect`` against ``closedBecause`` and ``shouldReconnect``.
- ``countdown.json``: scripts of frames received and clock ticks, at given moments →
  the countdown after each, the seconds left, the one-minute line; and the clock texts.
  `client.words.countdown` against ``js/countdown.js``.
- ``format-<language>.json``: every message of the catalogs, said with values of every
  kind (tests/vectors/samples.py) → the text, in each language. `client.words.catalog` against
  ``js/catalog.js``.
- ``fair-checks.json``: what the fair-deal check found (every finding code of the reveal,
  every kind of mismatch of the replay, as the engines give them: the shared
  tests/vectors/engine/checks.json pins those) and the seats' names → the message that
  says it (``said``) and its text in every language. `client.fair.words.check_said`
  against ``checkSaid`` of ``js/fairwords.js``.

The reasons, refusals and lines are language-neutral there: ``{"key": …, "values": …}``,
the catalog message and its values (`client.words.catalog.Said`), as both clients carry them.
- ``wire.json``: every server message type and its fields, as ``protocol`` defines them,
  which ``js/wire.js`` must check, no more and no fewer.

``tests/client/test_functions.py`` checks the Python client against these files and that
they are current; ``tests/client/web/functions.test.mjs`` checks the JavaScript. Never
edit them by hand.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Any

from client.fair.words import check_said
from client.net.intents import for_key, set_auto
from client.net.policy import (
    Decision,
    Ending,
    JoinAnew,
    Policy,
    Retry,
    Stop,
    decide,
    should_reconnect,
)
from client.state.view import ViewState, apply
from client.words import reasons
from client.words.catalog import Said, available, catalog
from client.words.countdown import Countdown, clock_text, follow, warning
from client.words.sentences import closed_because
from protocol import (
    SERVER_MESSAGE_TYPES,
    AutoPlay,
    ClientMessage,
    CloseCode,
    Error,
    ErrorCode,
    GameOver,
    GameResult,
    GameStarted,
    ReadyChanged,
    RematchDeal,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    Snapshot,
    Summary,
    Termination,
    TimeUp,
    Welcome,
    decode_server_message,
    encode,
)
from protocol.fairness import Finding
from server.engine.check import Mismatch
from tests.vectors.samples import cases, value_from_json, value_json

__all__ = [
    "FOLDER",
    "URL",
    "decision_dict",
    "intent_dict",
    "main",
    "press",
    "render",
    "tables",
]

FOLDER = Path(__file__).parent / "functions"
VERSION = 1
URL = "ws://war.test/"
"""The server's address in every reconnect case (``ending.url``)."""


def frame(message: ServerMessage) -> str:
    """A message as it crosses the wire, base64."""
    return base64.b64encode(encode(message)).decode("ascii")


def view_of(frames: list[str]) -> ViewState:
    """The Python client's view after ``frames`` (as the cases give them)."""
    view = ViewState()
    for text in frames:
        view = apply(view, decode_server_message(base64.b64decode(text)))
    return view


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    return value


def intent_dict(intent: ClientMessage | Said | None) -> dict[str, Any]:
    """An intent as the vectors write it: ``{"send": {type, fields}}`` or ``{"say": …}``."""
    if intent is None:
        return {"none": True}
    if isinstance(intent, Said):
        return {"say": value_json(intent)}
    fields = {f.name: _plain(getattr(intent, f.name)) for f in dataclasses.fields(intent)}
    for added in _ADDED_BY_THE_CONNECTION:
        if fields.get(added, "") is None:
            del fields[added]
    return {"send": {"type": intent.TYPE, **fields}}


_ADDED_BY_THE_CONNECTION = ("seed", "seed_commitment")
"""Fair-deal fields a key's intent never holds: each client's connection adds them
(client/fair/seeds.py, client/web/js/fair.js), so the vectors leave them out."""


def press(view: ViewState, case: dict[str, Any]) -> ClientMessage | Said | None:
    """What the Python client makes of one press of an intents case."""
    key = case["press"]
    if key.startswith("a "):
        return set_auto(view, AutoPlay(key[2:]))
    asked = None if case.get("asked") is None else AutoPlay(case["asked"])
    return for_key(key, view, sent=case.get("sent"), asked=asked)


def decision_dict(decision: Decision) -> dict[str, Any]:
    """A decision as the browser's ``decide`` returns it."""
    match decision:
        case Stop(ok=ok, reason=reason, code=code):
            return {"kind": "stop", "ok": ok, "reason": value_json(reason), "code": code}
        case JoinAnew(notice=notice):
            return {"kind": "join_anew", "notice": value_json(notice)}
        case Retry(delay=delay, reason=reason, reopen=reopen):
            said = value_json(reason)
            return {"kind": "retry", "delay": delay, "reason": said, "reopen": reopen.value}
    raise TypeError(decision)  # pragma: no cover


# --- intents ---------------------------------------------------------------------------------
def _seat(seat: int, **changes: Any) -> SeatState:
    return SeatState(seat=seat, name=("Ann", "Ben", "Cy")[seat], connected=True, **changes)


def _welcome(me: int | None, phase: RoomPhase, **changes: Any) -> Welcome:
    seats = changes.pop("seats", (_seat(0), _seat(1)))
    state = RoomState(
        room="r8k2",
        phase=phase,
        rules=RulesSpec(players=len(seats)),
        seats=seats,
        step=changes.pop("step", 3 if phase is RoomPhase.PLAYING else 0),
        **changes,
    )
    if phase is RoomPhase.OVER and state.result is None:
        summary = Summary(rounds=40, wars=3, longest_war=1, biggest_haul=6, deal=7)
        result = GameResult(winner=0, termination=Termination.ALL_CARDS, summary=summary)
        state = dataclasses.replace(state, result=result)
    token = "token-0123456789abcdef" if me is not None else None
    return Welcome(seq=5, seat=me, token=token, state=state)


def _views() -> list[tuple[str, list[str]]]:
    """(about, frames): every kind of view a key press meets."""
    waiting = (_seat(0), SeatState(seat=1))
    both = (0, 1)
    views: list[tuple[str, ServerMessage | None]] = [
        ("not welcomed yet", None),
        ("a spectator, waiting", _welcome(None, RoomPhase.WAITING, seats=waiting)),
        ("a spectator, playing", _welcome(None, RoomPhase.PLAYING, waiting_for=both)),
        ("a spectator, game over", _welcome(None, RoomPhase.OVER)),
        ("seat 0, waiting for a player", _welcome(0, RoomPhase.WAITING, seats=waiting)),
        ("seat 0, my turn", _welcome(0, RoomPhase.PLAYING, waiting_for=both)),
        (
            "seat 0, ready",
            _welcome(
                0, RoomPhase.PLAYING, waiting_for=(1,), seats=(_seat(0, ready=True), _seat(1))
            ),
        ),
        ("seat 0, the game waits for Ben only", _welcome(0, RoomPhase.PLAYING, waiting_for=(1,))),
        (
            "seat 0, a war I sit out",
            _welcome(
                0,
                RoomPhase.PLAYING,
                seats=(_seat(0), _seat(1), _seat(2)),
                war_depth=1,
                war_seats=(1, 2),
                waiting_for=(1, 2),
            ),
        ),
        (
            "seat 0, out of the game",
            _welcome(
                0,
                RoomPhase.PLAYING,
                seats=(_seat(0, out=True), _seat(1), _seat(2)),
                waiting_for=(1, 2),
            ),
        ),
        (
            "seat 0, voted to finish",
            _welcome(
                0, RoomPhase.PLAYING, waiting_for=both, seats=(_seat(0, finish_vote=True), _seat(1))
            ),
        ),
        (
            "seat 0, calm auto-play",
            _welcome(
                0,
                RoomPhase.PLAYING,
                waiting_for=both,
                seats=(_seat(0, auto=AutoPlay.CALM), _seat(1)),
            ),
        ),
        (
            "seat 0, quick auto-play",
            _welcome(
                0,
                RoomPhase.PLAYING,
                waiting_for=both,
                seats=(_seat(0, auto=AutoPlay.QUICK), _seat(1)),
            ),
        ),
        ("seat 0, game over", _welcome(0, RoomPhase.OVER)),
        (
            "seat 0, game over, asked for a new deal",
            _welcome(0, RoomPhase.OVER, seats=(_seat(0, rematch_vote=RematchDeal.NEW), _seat(1))),
        ),
    ]
    return [(about, [] if m is None else [frame(m)]) for about, m in views]


def _presses() -> list[dict[str, Any]]:
    """Every press, with the bookkeeping a client keeps between presses."""
    presses: list[dict[str, Any]] = [
        {"press": "space"},
        {"press": "space", "sent": 3},  # the double tap: a ready for step 3 already went
        {"press": "space", "sent": 2},  # a ready sent for an earlier step does not count
        {"press": "a"},
        {"press": "a", "asked": "calm"},
        {"press": "a", "asked": "quick"},
        {"press": "f"},
        {"press": "r"},
        {"press": "d"},
    ]
    presses += [{"press": f"a {mode.value}"} for mode in AutoPlay]
    return presses


def intents() -> dict[str, Any]:
    views = dict(_views())
    cases = []
    for about, pressed in itertools.product(views, _presses()):
        case = {"view": about, **pressed}
        case["out"] = intent_dict(press(view_of(views[about]), case))
        cases.append(case)
    # after a ready was sent and the room confirmed it (ready_changed): told, not resent
    confirmed = "seat 0, my turn, the ready confirmed"
    views[confirmed] = [*views["seat 0, my turn"], frame(ReadyChanged(seq=6, seat=0, ready=True))]
    for sent in (None, 3):
        case = {"view": confirmed, "press": "space", "sent": sent}
        case["out"] = intent_dict(press(view_of(views[confirmed]), case))
        cases.append(case)
    return {"views": views, "cases": cases}


# --- the reconnect policy and the close reasons ----------------------------------------------
def _error(code: ErrorCode, message: str = "") -> dict[str, str]:
    return {"code": code.value, "message": message}


_ERRORS: tuple[dict[str, str] | None, ...] = (
    None,
    _error(ErrorCode.BAD_TOKEN, "the seat token is not known"),
    _error(ErrorCode.UNKNOWN_CODE),
    _error(ErrorCode.ROOM_FULL, "every seat is taken"),
    _error(ErrorCode.STORE_UNAVAILABLE, "the server cannot save games right now"),
)
_CLOSES: tuple[int | None, ...] = (None, 1006, *sorted(int(c) for c in CloseCode), 4999)


_REFUSED = value_json(Said(reasons.REFUSED))
_UNTRUSTED = value_json(Said(reasons.UNTRUSTED))
"""Why connecting failed, as the browser's ``decide`` gets it: a message with its values."""


def _ending(changes: dict[str, Any]) -> Ending:
    error = changes.get("error")
    fields = dict(changes)
    if error is not None:
        fields["error"] = Error(code=error["code"], message=error["message"])
    if changes.get("unreachable") is not None:
        fields["unreachable"] = value_from_json(changes["unreachable"])
    return Ending(**fields)


def _policy(numbers: dict[str, float] | None) -> Policy:
    return Policy() if numbers is None else Policy(**numbers)


def reconnect() -> dict[str, Any]:
    """The policy's table case by case, and across every close code and refusal."""
    situations: tuple[dict[str, Any], ...] = (
        {"welcomed": True, "ever_welcomed": True, "holds_token": True},
        {"ever_welcomed": True, "holds_token": True},  # a reconnect that failed again
        {},  # an opening that was never welcomed
        {"welcomed": True, "ever_welcomed": True, "spectator": True},
    )
    endings: list[dict[str, Any]] = []
    for close, error, situation in itertools.product(_CLOSES, _ERRORS, situations):
        endings.append({"close_code": close, "error": error} | situation)
    for close in (1000, 4003, 1012):
        endings.append({"close_code": close, "game_over": True, "holds_token": True})
    endings += [
        {"closing": True, "close_code": 1000},
        {"left": True, "close_code": 1000},
        {"stored_seat": True, "error": _error(ErrorCode.BAD_TOKEN), "close_code": 4004},
        {"stored_seat": True, "error": _error(ErrorCode.UNKNOWN_CODE), "close_code": 4004},
        {"stored_seat": True, "welcomed": True, "error": _error(ErrorCode.BAD_TOKEN, "x")},
        {"unreachable": _REFUSED},
        {"unreachable": _REFUSED, "ever_welcomed": True, "holds_token": True},
        {"unreachable": _UNTRUSTED, "ever_welcomed": True, "final": True},
        {"close_code": 1012, "ever_welcomed": True, "holds_token": True, "trouble_for": 301.0},
        {"close_code": 1012, "ever_welcomed": True, "holds_token": True, "attempt": 3},
        {"close_code": 1012, "ever_welcomed": True, "holds_token": True, "attempt": 40},
        {
            "close_code": 1013,
            "ever_welcomed": True,
            "error": _error(ErrorCode.STORE_UNAVAILABLE, "no disk"),
            "attempt": 2,
        },
    ]
    cases = []
    for index, given in enumerate(endings):
        changes = {k: v for k, v in given.items() if v is not None}
        jitter = (0.0, 0.5, 1.0)[index % 3]
        numbers = None if index % 7 else {"base": 0.5, "cap": 4.0, "give_up_after": 30.0}
        decision = decide(_ending({"url": URL, **changes}), _policy(numbers), jitter)
        case: dict[str, Any] = {"ending": changes, "jitter": jitter}
        if numbers is not None:
            case["policy"] = numbers
        case["decision"] = decision_dict(decision)
        cases.append(case)
    return {"url": URL, "policy": dataclasses.asdict(Policy()), "cases": cases}


def close_reasons() -> dict[str, Any]:
    cases = []
    for close, error in itertools.product(_CLOSES, _ERRORS):
        typed = None if error is None else Error(code=error["code"], message=error["message"])
        cases.append(
            {
                "code": close,
                "error": error,
                "reason": value_json(closed_because(close, typed)),
                "reconnect": should_reconnect(close),
            }
        )
    return {"cases": cases}


# --- the countdown ---------------------------------------------------------------------------
def _timed(phase: RoomPhase, **changes: Any) -> RoomState:
    seats = (_seat(0), _seat(1))
    return RoomState(room="r8k2", phase=phase, rules=RulesSpec(), seats=seats, **changes)


def _scripts() -> list[tuple[str, list[tuple[float, ServerMessage | None]]]]:
    """(about, [(at, message, or None for a clock tick)])."""
    waiting = _timed(RoomPhase.WAITING, minutes=5)
    summary = Summary(rounds=9, wars=1, longest_war=1, biggest_haul=4, deal=7)
    over = GameOver(
        seq=9,
        step=20,
        winner=0,
        termination=Termination.TIME_LIMIT,
        summary=summary,
        counts=(30, 22),
    )
    start = GameStarted(seq=6, game=1, counts=(26, 26))
    playing = RoomPhase.PLAYING
    ended = GameResult(winner=None, termination=Termination.TIME_LIMIT, summary=summary)
    return [
        (
            "a five-minute game from the start: the line once, time up, game over",
            [
                (100.0, Welcome(seq=5, seat=0, state=waiting)),
                (101.0, start),
                (101.2, None),
                (340.0, None),
                (341.0, None),
                (341.5, ReadyChanged(seq=7, seat=1, ready=True)),
                (400.0, None),
                (401.0, TimeUp(seq=8)),
                (402.0, None),
                (405.0, over),
                (500.0, None),
            ],
        ),
        (
            "a late look: a welcome with 3 minutes left, then a snapshot with 50 s",
            [
                (
                    0.0,
                    Welcome(
                        seq=5, seat=0, state=_timed(RoomPhase.PLAYING, minutes=5, seconds_left=180)
                    ),
                ),
                (100.0, None),
                (125.0, None),
                (
                    125.0,
                    Snapshot(seq=9, state=_timed(RoomPhase.PLAYING, minutes=5, seconds_left=50)),
                ),
                (126.0, None),
            ],
        ),
        (
            "a welcome near the end needs no line; a rematch starts a new clock",
            [
                (0.0, Welcome(seq=5, seat=0, state=_timed(playing, minutes=5, seconds_left=40))),
                (10.0, None),
                (
                    41.0,
                    Snapshot(
                        seq=9, state=_timed(RoomPhase.OVER, minutes=5, seconds_left=0, result=ended)
                    ),
                ),
                (50.0, GameStarted(seq=10, game=2, counts=(26, 26))),
                (60.0, None),
                (290.5, None),
                (291.0, None),
            ],
        ),
        (
            "no time limit: no clock",
            [
                (0.0, Welcome(seq=5, seat=None, state=_timed(RoomPhase.PLAYING))),
                (10.0, None),
            ],
        ),
    ]


def countdown() -> dict[str, Any]:
    scripts = []
    for about, steps in _scripts():
        view, timer, out = ViewState(), Countdown(), []
        for at, message in steps:
            step: dict[str, Any] = {"at": at}
            if message is None:
                timer, line = warning(timer, at)
                step["line"] = None if line is None else value_json(line)
            else:
                step["frame"] = frame(message)
                before, view = view, apply(view, message)
                timer = follow(timer, before, message, view, at)
            step["countdown"] = dataclasses.asdict(timer)
            step["left"] = timer.left(at)
            out.append(step)
        scripts.append({"about": about, "steps": out})
    clock = [[seconds, clock_text(seconds)] for seconds in (-3, 0, 5, 59, 60, 299, 3599, 3725)]
    return {"scripts": scripts, "clock_text": clock}


# --- the wire's message fields ---------------------------------------------------------------
def wire() -> dict[str, Any]:
    return {
        "server_messages": {
            name: [f.name for f in dataclasses.fields(cls)]
            for name, cls in SERVER_MESSAGE_TYPES.items()
        }
    }


# --- what the fair-deal check found --------------------------------------------------------
FAIR_NAMES = ["Ann", "Ben", None]
"""The seats' names of every fair-check case: two named, one open."""


def _findings() -> list[Finding]:
    value = "'not hex'"
    return [
        Finding("malformed", {"what": "deal_commitment", "seat": None, "value": value}),
        Finding("malformed", {"what": "server_seed", "seat": None, "value": value}),
        Finding("malformed", {"what": "seed", "seat": 1, "value": value}),
        Finding("seeds_per_seat", {"players": "3", "value": "['a']"}),
        Finding("rules_missing", {"missing": ["aces"], "extra": []}),
        Finding("rules_value", {"setting": "aces", "value": "'x'"}),
        Finding("rules_unplayable", {"error": "players must be 2 to 4"}),
        Finding("seeds_for_seats", {"count": 2, "seats": 3}),
        Finding("seed_size", {"seat": 0}),
        Finding("server_seed_size"),
        Finding("server_seed_mismatch"),
        Finding("seat_commitments", {"count": 2, "seats": 3}),
        Finding("seed_uncommitted", {"seat": 2}),
        Finding("seed_unused", {"seat": 1}),
        Finding("seed_mismatch", {"seat": 1}),
        Finding("not_my_seed", {"seat": 0}),
        Finding("deal_mismatch", {"deal": "10232474513215630408", "derived": "165227105738965"}),
        Finding("server_seed"),
        Finding("seat_seeds"),
        Finding("my_seed", {"seat": 0}),
        Finding("deal", {"deal": "10232474513215630408"}),
        Finding("commitment_changed"),
        Finding("seat_commitment_changed", {"seat": 1}),
        Finding("seat_commitment_changed", {"seat": 2}),
        Finding("rules_changed"),
        Finding("time_up_early", {"seconds": 240}),
        Finding("my_seed_dropped", {"seat": 0}),
        Finding("seat_commitments", {"count": 0, "seats": 3}),
        Finding("a_code_from_a_newer_check"),
    ]


def _mismatches() -> list[Mismatch]:
    take = {"seat": 0, "count": 6}
    none, ben, ann = (
        {**take, "deal_seat": None, "deal_count": None},
        {**take, "deal_seat": 1, "deal_count": 2},
        {**take, "deal_seat": 0, "deal_count": 6},
    )
    ends = ["winner", "termination", "counts", "rounds", "wars", "longest_war", "biggest_haul"]
    return [
        Mismatch(10, "card", 1, "3S", "2C"),
        Mismatch(11, "card", 0, "QH", "none"),
        Mismatch(12, "card", 2, "none", "TD"),
        Mismatch(13, "flip", None, "none", "0:AS 1:KD"),
        Mismatch(14, "take", None, "none", "seat 0 takes 6 -> 29/23", none),
        Mismatch(15, "take", None, "seat 1 takes 2 -> 27/25", "seat 0 takes 6 -> 29/23", ben),
        Mismatch(16, "take", None, "seat 0 takes 6 -> 30/22", "seat 0 takes 6 -> 29/23", ann),
        Mismatch(17, "end", None, "the game is over", "a step", {"field": "over"}),
        Mismatch(43, "end", None, "the game goes on", "step 43 …", {"field": "goes_on"}),
        *(Mismatch(43, "end", None, "step 43 …", "step 43 …", {"field": f}) for f in ends),
        Mismatch(44, "end", None, "step 45 …", "step 44 …", {"field": "step"}),
        Mismatch(4, "laid", 1, "1", "2"),
        Mismatch(5, "laid", 2, "none", "1"),
        Mismatch(3, "war", None, "0 2", "2", {"depth": 1}),
        Mismatch(5, "out", 0, "none", "no_cards"),
        Mismatch(12, "missing", None, "flip", "none", {"event": "flip"}),
        Mismatch(13, "missing", 1, "take", "none", {"event": "take"}),
    ]  # fmt: skip


def _mismatch_json(m: Mismatch) -> dict[str, Any]:
    fields = ("step", "what", "seat", "expected", "shown")
    return {**{name: getattr(m, name) for name in fields}, "facts": dict(m.facts)}


def fair_checks() -> dict[str, Any]:
    """Each finding and mismatch → its message and its text in every language."""
    found: list[tuple[dict[str, Any], Finding | Mismatch]] = [
        *((f.to_json(), f) for f in _findings()),
        *((_mismatch_json(m), m) for m in _mismatches()),
    ]
    words = {tag: catalog(tag, strict=True) for tag in available()}
    out = []
    for data, item in found:
        message = check_said(item, FAIR_NAMES)
        text = {tag: language.say(message) for tag, language in words.items()}
        out.append({"found": data, "said": value_json(message), "text": text})
    return {"names": FAIR_NAMES, "cases": out}


# --- the catalogs -----------------------------------------------------------------------------
def formats(tag: str) -> dict[str, Any]:
    """Every message of the catalog of ``tag``, said with values of every kind (a few of
    each: the Python tests say every rank and number, tests/client/test_catalogs.py)."""
    english, words = catalog("en"), catalog(tag, strict=True)
    said = []
    for section, entries in english.data["messages"].items():
        for name in entries:
            key = f"{section}.{name}"
            for values in cases(english, key, full=False):
                text = words.text(key, **values)
                given = {name: value_json(value) for name, value in values.items()}
                said.append({"key": key, "values": given, "text": text})
    return {"language": tag, "cases": said}


def tables() -> dict[str, dict[str, Any]]:
    """Every file's content by name, made afresh (the same every time)."""
    made = {
        "intents": intents(),
        "reconnect": reconnect(),
        "close-reasons": close_reasons(),
        "countdown": countdown(),
        "wire": wire(),
        "fair-checks": fair_checks(),
        **{f"format-{tag}": formats(tag) for tag in available()},
    }
    return {name: {"version": VERSION, **body} for name, body in made.items()}


def render(table: dict[str, Any]) -> str:
    """A file's text: one case (or script step) a line, so a changed answer is a small diff."""
    lines = ["{"]
    items = list(table.items())
    for index, (key, value) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f"  {json.dumps(key)}: [")
            for i, item in enumerate(value):
                tail = "," if i < len(value) - 1 else ""
                lines.append(
                    f"    {json.dumps(item, ensure_ascii=False, separators=(',', ':'))}{tail}"
                )
            lines.append(f"  ]{comma}")
        else:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            lines.append(f"  {json.dumps(key)}: {text}{comma}")
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> int:
    FOLDER.mkdir(exist_ok=True)
    made = tables()
    for name, table in made.items():
        path = FOLDER / f"{name}.json"
        path.write_text(render(table), encoding="utf-8")
        print(f"{path}")
    for stale in FOLDER.glob("format-*.json"):
        if stale.stem not in made:
            stale.unlink()  # a language that is no more
    return 0


if __name__ == "__main__":
    sys.exit(main())
