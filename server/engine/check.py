"""Replaying a deal against what a viewer was shown: the engine's half of the fair-deal check.

`check_replay` plays ``Game(rules, deal)`` step by step and compares what a viewer was
`Shown` — every flip (`Flip`: the cards turned at a step), every take (`Take`), the cards
laid face down (`Laid`), the wars declared (`War`), the players out (`Out`) and the end
(`End`) — with what the deal gives, and returns a `Replay`: how much matched and the
first `Mismatch`. What the viewer was shown must be the deal's; what it was not shown is
missing only over the steps it saw *whole* (`Shown.whole`: it was connected, and the
messages' ``seq`` show it missed none): there every event the deal gives must have been
shown (``"missing"``). A viewer who joined late, or missed steps while reconnecting, or
saw a finish vote play the rest out, is compared on what they saw, and the end on the
whole game. docs/fairness.md says what this proves; the other half (the
commitment and the derivation of the deal) is `protocol.fairness`. The browser's
``client/web/js/engine/check.js`` is the same check, pinned to this one by
tests/vectors/fair-checks.json.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TypeVar

from server.engine.cards import card_label
from server.engine.errors import DealError
from server.engine.events import (
    CardsLaidDown,
    CardsTaken,
    CardsTurned,
    Event,
    PlayerOut,
    WarDeclared,
)
from server.engine.game import Game, Phase
from server.engine.outcome import Termination
from server.engine.rules import Rules

__all__ = [
    "End",
    "Flip",
    "Laid",
    "Mismatch",
    "Out",
    "Replay",
    "Shown",
    "Take",
    "War",
    "check_replay",
    "describe_end",
    "describe_take",
]


@dataclass(frozen=True, slots=True)
class Flip:
    """Cards turned face up at ``step`` (the step count after it) for war ``depth`` (0: the
    round's first flip), as ``(seat, card code)`` pairs: a ``cards_turned`` message."""

    step: int
    depth: int
    cards: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Take:
    """``seat`` took ``count`` cards at ``step``, leaving ``counts``: a ``cards_taken``."""

    step: int
    seat: int
    count: int
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Laid:
    """Face-down cards laid at ``step`` for war ``depth``, as ``(seat, how many)`` pairs: a
    ``cards_laid_down``."""

    step: int
    depth: int
    counts: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class War:
    """War ``depth`` declared at ``step`` among ``seats``: a ``war_declared``."""

    step: int
    depth: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Out:
    """``seat`` went out at ``step`` for ``reason`` (its wire value): a ``player_out``."""

    step: int
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class End:
    """How the game ended, as ``game_over`` says: after ``step`` steps, ``winner`` (``None``:
    a draw) for ``termination``, every pile's ``counts``, the summary's figures, and each
    seat's place (``standings``; empty when not shown: a server before 0.3 sends none)."""

    step: int
    winner: int | None
    termination: Termination
    counts: tuple[int, ...]
    rounds: int
    wars: int
    longest_war: int
    biggest_haul: int
    standings: tuple[int, ...] = ()

    @classmethod
    def of(cls, game: Game) -> End:
        """How ``game`` ended. Raises `ValueError` if it is not over."""
        if game.outcome is None:
            raise ValueError(f"game {game.deal} is not over")
        s = game.summary
        return cls(
            game.steps,
            game.outcome.winner,
            game.outcome.termination,
            game.counts,
            s.rounds,
            s.wars,
            s.longest_war,
            s.biggest_haul,
            game.standings or (),
        )


@dataclass(frozen=True, slots=True)
class Shown:
    """What one viewer was shown of a game: flips, takes, laid-down cards, wars and outs
    in any order, and the end if they saw it.

    ``whole``: the stretches of steps ``(first, last)``, both included, that the viewer saw
    whole (connected, no ``seq`` missed): every event the deal gives at those steps must
    have been shown. Empty: nothing is asked beyond what was shown.
    """

    flips: tuple[Flip, ...] = ()
    takes: tuple[Take, ...] = ()
    end: End | None = None
    laid: tuple[Laid, ...] = ()
    wars: tuple[War, ...] = ()
    outs: tuple[Out, ...] = ()
    whole: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first thing shown that the deal does not give.

    ``what``: ``"card"`` (one seat's card of a flip: ``seat``, ``expected`` and ``shown``
    are card codes, ``"none"`` where that seat turned no card), ``"flip"`` (cards shown at
    a step where the deal turns none for that depth: ``expected`` ``"none"``), ``"take"``
    or ``"end"`` (``expected`` and ``shown`` written by `describe_take` and
    `describe_end`; ``"none"`` for a take the deal does not make, ``"the game goes on"``
    for an end it does not reach), ``"laid"`` (face-down cards: ``seat`` the first seat
    whose count differs, ``expected`` and ``shown`` its counts, ``"none"`` where it lays
    none), ``"war"`` (the seats of a war: ``expected`` and ``shown`` them, ``"none"`` for a
    war the deal does not declare), ``"out"`` (``seat`` shown out: ``expected`` the deal's
    reason, ``"none"`` if it is not out there), or ``"missing"`` (a step the viewer saw
    whole lacks an event the deal gives: ``facts["event"]`` names it, ``"flip"``,
    ``"take"``, ``"laid"``, ``"war"`` or ``"out"``; ``seat`` the seat it names, if one).

    ``facts``: what a client needs to word it in its viewer's language (`sentence` is
    ``war-sim verify``'s English): for a take, the ``seat`` and ``count`` shown and the
    deal's (``deal_seat``, ``deal_count``; ``None`` when it makes no take); for an end, the
    ``field`` that differs first (an `End` field, ``"goes_on"`` for an end the deal does
    not reach, ``"over"`` for a step shown after the deal's game is over).
    """

    step: int
    what: str
    seat: int | None
    expected: str
    shown: str
    facts: Mapping[str, object] = field(default_factory=dict)

    def sentence(self) -> str:
        """The mismatch in words, for a person."""
        if self.what == "card":
            return (
                f"step {self.step}: seat {self.seat} was shown {self.shown}, "
                f"but the deal gives {self.expected}"
            )
        if self.what == "laid":
            return (
                f"step {self.step}: seat {self.seat} was shown laying {self.shown} cards face "
                f"down, but the deal lays {self.expected}"
            )
        if self.what == "war":
            return (
                f"step {self.step}: the war shown is between seats {self.shown}, "
                f"but the deal's is between {self.expected}"
            )
        if self.what == "out":
            return (
                f"step {self.step}: seat {self.seat} was shown out ({self.shown}), "
                f"but the deal gives {self.expected}"
            )
        if self.what == "missing":
            return (
                f"step {self.step}: the deal's {self.expected} there was never shown, though "
                "the viewer was connected (no seq missed)"
            )
        return (
            f"step {self.step}: the {self.what} shown ({self.shown}) is not the deal's"
            f" ({self.expected})"
        )


@dataclass(frozen=True, slots=True)
class Replay:
    """What `check_replay` found: ``steps`` replayed; ``flips``, ``cards`` and ``takes``
    compared and equal; ``end`` whether the end was compared and equal; ``mismatch`` the
    first difference (``None``: everything shown is what the deal gives)."""

    steps: int
    flips: int
    cards: int
    takes: int
    end: bool
    mismatch: Mismatch | None
    others: int = 0
    """Laid-down cards, wars and outs compared and equal."""

    @property
    def ok(self) -> bool:
        """Whether everything compared matched."""
        return self.mismatch is None


def describe_take(seat: int, count: int, counts: Iterable[int]) -> str:
    """A take as `Mismatch` writes it: ``"seat 0 takes 6 -> 29/23"``."""
    return f"seat {seat} takes {count} -> {'/'.join(map(str, counts))}"


def describe_end(end: End) -> str:
    """An end as `Mismatch` writes it: ``"step 412 winner 0 all_cards counts 52/0 rounds
    377 wars 21 longest 2 haul 14"`` (``winner none`` for a draw)."""
    winner = "none" if end.winner is None else str(end.winner)
    return (
        f"step {end.step} winner {winner} {end.termination.value} "
        f"counts {'/'.join(map(str, end.counts))} rounds {end.rounds} wars {end.wars} "
        f"longest {end.longest_war} haul {end.biggest_haul}"
    )


def _cards_text(cards: Iterable[tuple[int, str]]) -> str:
    return " ".join(f"{seat}:{code}" for seat, code in cards) or "none"


_Shown = TypeVar("_Shown", Flip, Take, Laid, War, Out)


def _by_step(items: Iterable[_Shown]) -> defaultdict[int, list[_Shown]]:
    found: defaultdict[int, list[_Shown]] = defaultdict(list)
    for item in items:
        found[item.step].append(item)
    return found


def _missing(step: int, event: str, seat: int | None = None) -> Mismatch:
    return Mismatch(step, "missing", seat, event, "none", {"event": event})


class _Checker:
    def __init__(self, game: Game, shown: Shown) -> None:
        self.game = game
        self.flips = _by_step(shown.flips)
        self.takes = _by_step(shown.takes)
        self.laid = _by_step(shown.laid)
        self.wars = _by_step(shown.wars)
        self.outs = _by_step(shown.outs)
        self.whole = shown.whole
        self.matched_flips = self.matched_cards = self.matched_takes = self.matched_others = 0

    def last_shown(self) -> int:
        shown = (self.flips, self.takes, self.laid, self.wars, self.outs)
        return max([0, *(step for items in shown for step in items)])

    def seen_whole(self, step: int) -> bool:
        return any(first <= step <= last for first, last in self.whole)

    def compare(self, events: list[Event]) -> Mismatch | None:
        step = self.game.steps
        return (
            self.compare_flips(step, events)
            or self.compare_takes(step, events)
            or self.compare_laid(step, events)
            or self.compare_wars(step, events)
            or self.compare_outs(step, events)
            or (self.compare_whole(step, events) if self.seen_whole(step) else None)
        )

    def compare_flips(self, step: int, events: list[Event]) -> Mismatch | None:
        rules = self.game.rules
        turned = {e.depth: e for e in events if isinstance(e, CardsTurned)}
        for flip in self.flips.get(step, ()):
            event = turned.get(flip.depth)
            if event is None:
                return Mismatch(step, "flip", None, "none", _cards_text(flip.cards))
            expected = {seat: card_label(card, rules) for seat, card in event.cards}
            shown = dict(flip.cards)
            for seat in sorted(expected.keys() | shown.keys()):
                want, got = expected.get(seat, "none"), shown.get(seat, "none")
                if want != got:
                    return Mismatch(step, "card", seat, want, got)
            self.matched_flips += 1
            self.matched_cards += len(shown)
        return None

    def compare_takes(self, step: int, events: list[Event]) -> Mismatch | None:
        taken = [e for e in events if isinstance(e, CardsTaken)]
        for take in self.takes.get(step, ()):
            shown_text = describe_take(take.seat, take.count, take.counts)
            facts: dict[str, object] = {"seat": take.seat, "count": take.count}
            if not taken:
                facts |= {"deal_seat": None, "deal_count": None}
                return Mismatch(step, "take", None, "none", shown_text, facts)
            want = describe_take(taken[0].seat, taken[0].count, taken[0].counts)
            if want != shown_text:
                facts |= {"deal_seat": taken[0].seat, "deal_count": taken[0].count}
                return Mismatch(step, "take", None, want, shown_text, facts)
            self.matched_takes += 1
        return None

    def compare_laid(self, step: int, events: list[Event]) -> Mismatch | None:
        laid = {e.depth: e for e in events if isinstance(e, CardsLaidDown)}
        for shown in self.laid.get(step, ()):
            event = laid.get(shown.depth)
            want, got = dict(event.counts) if event is not None else {}, dict(shown.counts)
            for seat in sorted(want.keys() | got.keys()):
                if want.get(seat) != got.get(seat):
                    expected = str(want[seat]) if seat in want else "none"
                    return Mismatch(step, "laid", seat, expected, str(got.get(seat, "none")))
            self.matched_others += 1
        return None

    def compare_wars(self, step: int, events: list[Event]) -> Mismatch | None:
        declared = {e.depth: e for e in events if isinstance(e, WarDeclared)}
        for shown in self.wars.get(step, ()):
            event = declared.get(shown.depth)
            want = "none" if event is None else " ".join(map(str, event.seats))
            got = " ".join(map(str, shown.seats))
            if want != got:
                return Mismatch(step, "war", None, want, got, {"depth": shown.depth})
            self.matched_others += 1
        return None

    def compare_outs(self, step: int, events: list[Event]) -> Mismatch | None:
        outs = {e.seat: e.reason.value for e in events if isinstance(e, PlayerOut)}
        for shown in self.outs.get(step, ()):
            want = outs.get(shown.seat, "none")
            if want != shown.reason:
                return Mismatch(step, "out", shown.seat, want, shown.reason)
            self.matched_others += 1
        return None

    def compare_whole(self, step: int, events: list[Event]) -> Mismatch | None:
        """Every event of ``step`` the deal gives was shown (the viewer saw it whole)."""
        flips = {f.depth for f in self.flips.get(step, ())}
        laid = {s.depth for s in self.laid.get(step, ())}
        wars = {w.depth for w in self.wars.get(step, ())}
        outs = {o.seat for o in self.outs.get(step, ())}
        for event in events:
            if isinstance(event, CardsTurned) and event.depth not in flips:
                return _missing(step, "flip")
            if isinstance(event, CardsLaidDown) and event.depth not in laid:
                return _missing(step, "laid")
            if isinstance(event, WarDeclared) and event.depth not in wars:
                return _missing(step, "war")
            if isinstance(event, CardsTaken) and not self.takes.get(step):
                return _missing(step, "take", event.seat)
            if isinstance(event, PlayerOut) and event.seat not in outs:
                return _missing(step, "out", event.seat)
        return None

    def replay(self, end: End | None) -> Mismatch | None:
        game = self.game
        last = self.last_shown()
        timed = end is not None and end.termination is Termination.TIME_LIMIT
        until = max(last, end.step if timed and end is not None else 0)
        while game.steps < until:
            if game.phase is Phase.OVER:
                over = {"field": "over"}
                return Mismatch(game.steps + 1, "end", None, "the game is over", "a step", over)
            mismatch = self.compare(game.step())
            if mismatch is not None:
                return mismatch
        if end is None:
            return None
        if timed and game.phase is not Phase.OVER:
            game.stop_by_time()
        elif not timed:
            game.finish()
        return self.compare_end(end)

    def compare_end(self, end: End) -> Mismatch | None:
        game = self.game
        if game.outcome is None:
            goes_on = {"field": "goes_on"}
            return Mismatch(end.step, "end", None, "the game goes on", describe_end(end), goes_on)
        actual = End.of(game)
        if not end.standings:  # none shown (an older server): nothing to compare
            actual = replace(actual, standings=())
        if actual != end:
            differs = next(
                f.name for f in fields(End) if getattr(actual, f.name) != getattr(end, f.name)
            )
            expected, shown = describe_end(actual), describe_end(end)
            return Mismatch(end.step, "end", None, expected, shown, {"field": differs})
        return None


def check_replay(rules: Rules, deal: int, shown: Shown) -> Replay:
    """Replay ``Game(rules, deal)`` and compare it with what a viewer was ``shown``.

    Steps the game until the last step shown; each `Flip` must be the cards the deal turns
    at its step and depth (seat by seat), each `Take` the take of its step, each `Laid`
    the face-down counts of its step and depth, each `War` the seats of its war, each
    `Out` a seat the deal puts out there (for that reason); at a step within
    ``shown.whole``, every event the deal gives must have been shown. With an end,
    the rest is played out (`Game.finish`) and the end compared; a ``time_limit`` end is
    replayed by stepping to its step and stopping the game there (`Game.stop_by_time`:
    the moment the clock stopped it is the server's to say, and it changes no card).
    Stops at the first mismatch. Raises `DealError` for a deal out of range (a caller's
    bug: a derived deal always fits).
    """
    if isinstance(deal, bool) or not isinstance(deal, int):
        raise DealError(f"deal must be an integer, not {deal!r}")
    checker = _Checker(Game(rules, deal), shown)
    mismatch = checker.replay(shown.end)
    return Replay(
        checker.game.steps,
        checker.matched_flips,
        checker.matched_cards,
        checker.matched_takes,
        shown.end is not None and mismatch is None,
        mismatch,
        checker.matched_others,
    )
