"""What war-client says of a fair deal: the fingerprint from the start, the check at the end.

`FairWatch` follows every server message of a connection as a game record
(`protocol.record.RecordReader`, the same reader ``war-sim verify`` uses on a
``war-client --json`` file), and at each ``game_over`` checks that game
(`check_game`): the reveal against the commitments, this client's own seed in its seat,
then every card shown against the deal replayed by the engine (`client.fair.check`). A deal
chosen by the creator, or the same deal again, is said to be chosen: its cards are
replayed, nothing more is claimed. The words are here, in one place (`fingerprint_line`,
`verdict_line`); what the check found is worded by `client.fair.words`, in the viewer's
language, each seat by the name the table shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from client.fair.check import check_fair_deal
from client.fair.words import check_said
from client.jsonline import message_json
from client.words.catalog import Person, Said, said
from protocol import GameOver, ReadyChanged, ServerMessage
from protocol.fairness import Claim, FairnessError, Finding, commitment, fingerprint
from protocol.record import RecordedGame, RecordError, RecordReader
from server.engine import Rules, RulesError
from server.engine.check import End, Flip, Laid, Out, Shown, Take, War, check_replay

__all__ = [
    "FairVerdict",
    "FairWatch",
    "check_game",
    "fingerprint_line",
    "no_seed_line",
    "pinned_fingerprint",
    "verdict_line",
    "voided_line",
]


@dataclass(frozen=True, slots=True)
class FairVerdict:
    """What was checked of one game: ``ok`` (None: nothing could be checked), whether
    its deal was ``chosen``, the first ``problem``, and what was ``proved``."""

    game: int
    ok: bool | None
    chosen: bool = False
    problem: Said | None = None
    proved: tuple[Said, ...] = ()


def shown(game: RecordedGame) -> Shown:
    """What the viewer was shown of ``game``, in the engine check's terms."""
    end = None
    if game.end is not None:
        e, s = game.end, game.end.summary
        end = End(
            e.step, e.winner, e.termination, e.counts, s.rounds, s.wars, s.longest_war,
            s.biggest_haul, tuple(e.standings),
        )  # fmt: skip
    return Shown(
        tuple(Flip(m.step, m.depth, m.cards) for m in game.flips),
        tuple(Take(m.step, m.seat, m.count, m.counts) for m in game.takes),
        end,
        tuple(Laid(m.step, m.depth, m.counts) for m in game.laid),
        tuple(War(m.step, m.depth, m.seats) for m in game.wars),
        tuple(Out(m.step, m.seat, m.reason.value) for m in game.outs),
        game.seen_whole(),
    )


def check_game(
    game: RecordedGame, my_seed: bytes | None, names: Sequence[str | Person | None] = ()
) -> FairVerdict:
    """Check one finished game as this client saw it; never raises for what it was sent.
    ``names``: each seat's name as the table shows it (``None``: an open seat)."""
    if game.shown_deal is not None:
        try:
            replay = check_replay(Rules.from_dict(game.rules), game.shown_deal, shown(game))
        except RulesError:
            return FairVerdict(game.number, False, True, said("check.rules"))
        problem = None if replay.mismatch is None else check_said(replay.mismatch, names)
        return FairVerdict(game.number, replay.ok, True, problem)
    if game.broken is not None:
        return FairVerdict(game.number, False, problem=check_said(game.broken, names))
    if game.deal_commitment is None or game.end is None:
        return FairVerdict(game.number, None, problem=said("fair.no_commitment"))
    if game.server_seed is None or game.seeds is None:
        return FairVerdict(game.number, False, problem=said("fair.no_seeds"))
    claim = Claim(
        game.rules,
        game.deal_commitment,
        game.server_seed,
        game.seeds,
        game.end.summary.deal,
        game.seed_commitments,
    )
    # my seed is looked for where the table was shown my commitment at the start (a seat
    # taken over on another device holds the old device's: nothing of mine to find)
    mine = my_seed if _pinned_mine(game, my_seed) else None
    result = check_fair_deal(claim, shown(game), my_seat=game.seat, my_seed=mine)
    proved = tuple(check_said(found, names) for found in result.reveal.proved)
    if result.replay is not None and result.replay.ok:
        proved += (said("fair.every_card"),)
    problem = None if result.problem is None else check_said(result.problem, names)
    return FairVerdict(game.number, result.ok, problem=problem, proved=proved)


def _pinned_mine(game: RecordedGame, my_seed: bytes | None) -> bool:
    """Whether the commitment pinned for this client's seat is its own seed's."""
    kept, seat = game.seed_commitments, game.seat
    if my_seed is None or kept is None or seat is None or not 0 <= seat < len(kept):
        return False
    return kept[seat] == commitment(my_seed)


def pinned_fingerprint(game: RecordedGame) -> str | None:
    """The fingerprint of what ``game`` pinned at its start (None: no fair deal claimed,
    or the seat commitments were never shown)."""
    if not game.pinned or game.deal_commitment is None or game.seed_commitments is None:
        return None
    try:
        return fingerprint(game.number, game.deal_commitment, game.seed_commitments, game.rules)
    except FairnessError:
        return None


class FairWatch:
    """Follows one connection's messages; `follow` returns the verdict of a game that
    just ended, or at once a failed one when the game shows something other than it
    pinned at its start (a commitment, the rules) or a ``time_up`` too early. A message
    the record reader refuses (a malformed commitment) fails the check of that game.
    ``clock``: seconds of a monotonic clock (tests give their own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._reader = RecordReader()
        self._broken: Said | None = None
        self._clock = clock
        self._accepted: int | None = None  # the game whose seed-bearing ready was taken
        self.fingerprint: str | None = None
        """The current game's fingerprint (None: the deal claims no commitment)."""

    def connected(self) -> None:
        """A new connection opened: its welcome may excuse the steps missed meanwhile
        (`protocol.record.RecordReader.connected`)."""
        self._reader.connected()

    def no_seed(self) -> list[int]:
        """The seats of the current fair deal that add no seed (None: no commitment)."""
        game = self._reader.current
        if game is None or game.deal_commitment is None or game.seed_commitments is None:
            return []
        return [seat for seat, c in enumerate(game.seed_commitments) if c is None]

    def commitment(self, seat: int | None) -> str | None:
        """The seed commitment pinned for ``seat`` in the current game."""
        game = self._reader.current
        if seat is None or game is None or game.seed_commitments is None:
            return None
        kept = game.seed_commitments
        return kept[seat] if 0 <= seat < len(kept) else None

    def follow(
        self,
        message: ServerMessage,
        my_seed: bytes | None = None,
        names: Sequence[str | Person | None] = (),
    ) -> FairVerdict | None:
        """Follow ``message``; at a ``game_over``, the check of its game (``my_seed``:
        the seed this client committed to for it; ``names``: each seat's name as the
        table shows it, to say what did not match); at once, a failed check when the game
        differs from what was pinned at its start."""
        current = self._reader.current
        broken = None if current is None else current.broken
        voided = 0 if current is None else len(current.voided_by)
        try:
            game = self._reader.line(message_json(message), self._clock())
        except RecordError:
            self._broken = said("check.record")
            game = self._reader.current
        if game is None:
            return None
        mine = isinstance(message, ReadyChanged) and message.seat == game.seat and message.ready
        if mine and not game.flips and _pinned_mine(game, my_seed):
            self._accepted = game.number  # my first ready went with my seed, and was taken
        fresh = game.voided_by[voided:] if game is current else game.voided_by
        if fresh:  # a void (told, or missed and told by a state's voids)
            if game.seat in fresh and self._accepted == game.number:
                game.differs(Finding("my_seed_dropped", {"seat": game.seat}))
            self._accepted = None  # a fresh deal: a fresh seed to reveal
        self.fingerprint = pinned_fingerprint(game)
        if not isinstance(message, GameOver):
            if game.broken is not None and (game is not current or broken is None):
                return FairVerdict(game.number, False, problem=check_said(game.broken, names))
            return None
        if self._broken is not None:
            problem, self._broken = self._broken, None
            return FairVerdict(game.number, False, problem=problem)
        return check_game(game, my_seed, names)


def fingerprint_line(print_: str) -> Said:
    """The line that gives the fingerprint people compare aloud."""
    return said("fair.fingerprint", print=print_)


def no_seed_line(names: list[Person]) -> Said:
    """The line that names the seats that add no seed to the deal (at its start)."""
    return said("fair.no_seed", names=names)


def voided_line(who: Person, voids: int) -> Said:
    """The line for a deal void (``deal_voided``): whose seed did not come, and that
    seat's voids this evening (everyone sees them)."""
    return said("fair.voided", who=who, count=voids)


def verdict_line(verdict: FairVerdict) -> Said:
    """What ``--plain`` (and the TUI) says of a game's check (the ``problem`` in the
    viewer's language too: `client.fair.words`)."""
    problem: Said | str = verdict.problem or ""
    if verdict.ok:
        return said("fair.chosen_ok" if verdict.chosen else "fair.checked")
    if verdict.chosen:
        return said("fair.chosen_failed", problem=problem)
    if verdict.ok is None:
        return said("fair.not_checked", problem=problem)
    return said("fair.failed", problem=problem)
