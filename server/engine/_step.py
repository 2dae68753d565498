"""The step path: one flip at a time on a `State`, with the events it produces.

This module owns every rule of play (battles, wars, running short, the end of a round,
limits, endless games). The fast path (`server.engine._fast`) plays only the plainest
two-player rounds itself and hands everything else back to `advance` and `end_of_round`.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.engine._state import Phase, State
from server.engine.events import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    GameOver,
    PlayerOut,
    WarDeclared,
)
from server.engine.outcome import Outcome
from server.engine.rules import ShortWar, TieBreak, WonCards
from vocabulary import OutReason, Termination

__all__ = ["advance", "end_of_round", "stop_by_time"]


def advance(s: State) -> list[Event]:
    """Play the next flip (a round's first flip, or one war) of a game that is not over."""
    s.steps += 1
    events: list[Event] = []
    if s.phase is Phase.BATTLE:
        _battle(s, events)
    else:
        _war(s, events)
    return events


def stop_by_time(s: State) -> list[Event]:
    """The clock stopped a game that is not over (see `Game.stop_by_time`)."""
    events: list[Event] = []
    if s.time_stop:
        return events
    s.time_stop = True
    if s.phase is Phase.BATTLE:
        _check_limit(s, events, Termination.TIME_LIMIT)
    return events


def _leader(counts: list[int] | tuple[int, ...]) -> int | None:
    """The seat holding strictly the most cards, or ``None`` if the most is shared."""
    best = max(counts)
    if counts.count(best) != 1:
        return None
    return counts.index(best)


def _battle(s: State, events: list[Event]) -> None:
    round_no = s.rounds + 1
    turned: list[tuple[int, int]] = []
    for seat in s.active:
        card = s.piles[seat].popleft()
        s.up[seat].append(card)
        s.mine[seat].append(card)
        s.laid.append(card)
        turned.append((seat, card))
    events.append(CardsTurned(round_no, 0, tuple(turned)))
    _compare(s, events, turned)


def _compare(s: State, events: list[Event], turned: list[tuple[int, int]]) -> None:
    strength = s.strength
    best = max(strength[card] for _, card in turned)
    tied = tuple(seat for seat, card in turned if strength[card] == best)
    if len(tied) == 1:
        _take(s, events, tied[0])
        return
    s.depth += 1
    if s.depth == 1:
        s.wars += 1
    s.longest = max(s.longest, s.depth)
    s.war_seats = tied
    s.phase = Phase.WAR
    events.append(WarDeclared(s.rounds + 1, s.depth, tied))


def _war(s: State, events: list[Event]) -> None:
    round_no = s.rounds + 1
    depth = s.depth
    need = s.rules.face_down + 1
    piles = s.piles
    seats = s.war_seats
    lose = s.rules.short_war is ShortWar.LOSE
    if lose:
        short = [seat for seat in seats if len(piles[seat]) < need]
    else:
        short = [seat for seat in seats if not piles[seat]]
    if len(short) == len(seats):
        _return_all(s, events)
        return
    if lose:
        for seat in short:
            s.short_round = True
            s.active.remove(seat)
            events.append(PlayerOut(round_no, seat, OutReason.SHORT_WAR))
    playing = [seat for seat in seats if seat not in short] if lose else list(seats)
    laid: list[tuple[int, int]] = []
    for seat in seats:
        pile = piles[seat]
        if lose and seat in short:
            count = len(pile)  # the rest of the pile is forfeited into the prize
        elif len(playing) == 1:
            count = 0  # the last player left in the war takes the table as it is
        else:
            count = min(need - 1, len(pile) - 1) if pile else 0
        for _ in range(count):
            card = pile.popleft()
            s.mine[seat].append(card)
            s.laid.append(card)
        s.down[seat] += count
        laid.append((seat, count))
    events.append(CardsLaidDown(round_no, depth, tuple(laid)))
    if len(playing) == 1:
        _take(s, events, playing[0])
        return
    turned: list[tuple[int, int]] = []
    for seat in playing:
        pile = piles[seat]
        if pile:
            card = pile.popleft()
            s.up[seat].append(card)
            s.mine[seat].append(card)
            s.laid.append(card)
        else:  # last_card: the card already face up stands again
            card = s.up[seat][-1]
        turned.append((seat, card))
    events.append(CardsTurned(round_no, depth, tuple(turned)))
    _compare(s, events, turned)


def _clear_table(s: State, seats: Iterable[int]) -> None:
    """Take ``seats``' cards off the table (the caller has put them somewhere)."""
    for seat in seats:
        s.up[seat].clear()
        s.mine[seat].clear()
        s.down[seat] = 0
    if any(s.mine):  # cards left on the table: keep them in the order laid
        left = {card for mine in s.mine for card in mine}
        s.laid = [card for card in s.laid if card in left]
    else:
        s.laid = []
    s.war_seats = ()
    s.depth = 0


def _take(s: State, events: list[Event], winner: int) -> None:
    won = s.laid
    if s.rules.won_cards is WonCards.SHUFFLE:
        s.rng.shuffle(won)
    s.piles[winner].extend(won)
    s.haul = max(s.haul, len(won))
    s.rounds += 1
    _clear_table(s, range(s.rules.players))
    events.append(CardsTaken(s.rounds, winner, len(won), s.counts()))
    end_of_round(s, events)


def _return_all(s: State, events: list[Event]) -> None:
    # Every player still in takes their own cards back. A player who went out short in
    # this round is out: what they forfeited stays on the table, won by nobody.
    for seat in s.active:
        s.piles[seat].extend(s.mine[seat])
    _clear_table(s, s.active)
    # Nobody took the table, so the round is not counted.
    counts = s.counts()
    events.append(CardsReturned(s.rounds + 1, counts))
    _end(s, events, _leader(counts), Termination.BOTH_SHORT)


def end_of_round(s: State, events: list[Event]) -> None:
    """A round was just taken: players without cards go out, then the game may end (one
    player left, a limit, a repeated position); else the next step is a battle."""
    s.phase = Phase.BATTLE
    short, s.short_round = s.short_round, False
    for seat in list(s.active):
        if not s.piles[seat]:
            s.active.remove(seat)
            events.append(PlayerOut(s.rounds, seat, OutReason.NO_CARDS))
    if len(s.active) == 1:
        why = Termination.OPPONENTS_SHORT if short else Termination.ALL_CARDS
        _end(s, events, s.active[0], why)
        return
    if s.time_stop:
        _check_limit(s, events, Termination.TIME_LIMIT)
    elif s.rules.round_limit is not None and s.rounds >= s.rules.round_limit:
        _check_limit(s, events, Termination.ROUND_LIMIT)
    if s.phase is not Phase.OVER and s.seen is not None:
        position = s.position()
        if position in s.seen:
            _end(s, events, _leader(s.counts()), Termination.ENDLESS)
        else:
            s.seen.add(position)


def _check_limit(s: State, events: list[Event], why: Termination) -> None:
    leader = _leader(s.counts())
    if leader is not None or s.rules.tie_break is TieBreak.DRAW:
        _end(s, events, leader, why)


def _end(s: State, events: list[Event], winner: int | None, why: Termination) -> None:
    s.outcome = Outcome(winner, why)
    s.phase = Phase.OVER
    s.war_seats = ()
    events.append(GameOver(s.outcome, s.summary()))
