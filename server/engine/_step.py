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
from server.engine.rules import BothShort, FixedOrder, ShortWar, TakenBack, TieBreak, WonCards
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
    flip = s.flips << 2
    s.flips += 1
    piles, up, mine, laid, tags = s.piles, s.up, s.mine, s.laid, s.tags
    for seat in s.active:
        card = piles[seat].popleft()
        up[seat].append(card)
        mine[seat].append(card)
        laid.append(card)
        tags.append(flip | seat)
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
        _give_back(s, events)
        return
    if lose:
        for seat in short:
            s.short_round = True
            _out(s, events, seat, OutReason.SHORT_WAR)
    playing = [seat for seat in seats if seat not in short] if lose else list(seats)
    laid: list[tuple[int, int]] = []
    flip = s.flips << 2
    s.flips += 2  # this war's face-down cards, then its face-up cards
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
            s.tags.append(flip | seat)
        s.down[seat] += count
        laid.append((seat, count))
    events.append(CardsLaidDown(round_no, depth, tuple(laid)))
    if len(playing) == 1:
        _take(s, events, playing[0])
        return
    turned: list[tuple[int, int]] = []
    flip += 1 << 2
    for seat in playing:
        pile = piles[seat]
        if pile:
            card = pile.popleft()
            s.up[seat].append(card)
            s.mine[seat].append(card)
            s.laid.append(card)
            s.tags.append(flip | seat)
        else:  # last_card: the card already face up stands again
            card = s.up[seat][-1]
        turned.append((seat, card))
    events.append(CardsTurned(round_no, depth, tuple(turned)))
    _compare(s, events, turned)


def _clear_table(s: State, seats: Iterable[int]) -> None:
    """Take ``seats``' cards off the table (the caller has put them somewhere). Cards left
    keep their order, and their flips are renumbered from 0 (see `State.position`)."""
    for seat in seats:
        s.up[seat].clear()
        s.mine[seat].clear()
        s.down[seat] = 0
    if any(s.mine):  # cards left on the table: keep them in the order laid
        left = {card for mine in s.mine for card in mine}
        kept = [(card, tag) for card, tag in zip(s.laid, s.tags, strict=True) if card in left]
        renumber: dict[int, int] = {}
        for _, tag in kept:
            renumber.setdefault(tag >> 2, len(renumber))
        s.laid = [card for card, _ in kept]
        s.tags = [renumber[tag >> 2] << 2 | tag & 3 for _, tag in kept]
        s.flips = len(renumber)
    else:
        s.laid = []
        s.tags = []
        s.flips = 0
    s.war_seats = ()
    s.depth = 0


def _prize(s: State, winner: int) -> list[int]:
    """The table's cards in the order they go under ``winner``'s pile, before a shuffle:
    flip by flip, and within a flip seat by seat from seat 0 or, with ``won_cards =
    fixed`` and ``fixed_order = winner``, from the winner round the table."""
    if s.rules.won_cards is WonCards.SHUFFLE or s.rules.fixed_order is FixedOrder.SEAT0:
        return s.laid
    n = s.rules.players
    keys = [tag >> 2 << 2 | ((tag & 3) - winner) % n for tag in s.tags]
    laid = s.laid
    return [laid[i] for i in sorted(range(len(laid)), key=keys.__getitem__)]


def _take(s: State, events: list[Event], winner: int) -> None:
    won = _prize(s, winner)
    if s.rules.won_cards is WonCards.SHUFFLE:
        s.rng.shuffle(won)
    s.piles[winner].extend(won)
    s.haul = max(s.haul, len(won))
    s.rounds += 1
    if s.depth:
        s.wars += 1
        s.longest = max(s.longest, s.depth)
    _clear_table(s, range(s.rules.players))
    events.append(CardsTaken(s.rounds, winner, len(won), s.counts()))
    end_of_round(s, events)


def _give_back(s: State, events: list[Event]) -> None:
    """Everyone in the war ran out at once: every player still in takes their own cards
    back under their pile, and the round is not counted. They go under the way won cards
    do (``taken_back = as_won``): with ``won_cards = shuffle`` each player's cards are
    shuffled by the stream, seat by seat in seat order, else (and always with ``as_laid``,
    0.2's rule) in the order laid. A player who went out short in this round is out: what
    they forfeited stays on the table.

    The game then ends (``both_short``) if nobody outside the war is still in, or with
    ``both_short = end``; otherwise play goes on and those forfeited cards go to whoever
    takes the next round."""
    everyone = all(seat in s.war_seats for seat in s.active)
    rules = s.rules
    shuffle = rules.won_cards is WonCards.SHUFFLE and rules.taken_back is TakenBack.AS_WON
    for seat in s.active:
        mine = s.mine[seat]
        if shuffle:
            s.rng.shuffle(mine)  # cleared from the table just below
        s.piles[seat].extend(mine)
    _clear_table(s, s.active)
    s.given_backs += 1
    counts = s.counts()
    events.append(CardsReturned(s.rounds + 1, counts))
    if everyone or s.rules.both_short is BothShort.END:
        _end(s, events, _leader(counts), Termination.BOTH_SHORT)
        return
    s.phase = Phase.BATTLE
    s.short_round = False  # the round is played again: who went out in it does not count
    # Every player still in has at least the card they turned up back, so nobody is out.
    if s.time_stop:
        _check_limit(s, events, Termination.TIME_LIMIT)
    elif s.rules.round_limit is not None and s.rounds >= s.rules.round_limit:
        _check_limit(s, events, Termination.ROUND_LIMIT)  # an out player may have led
    if s.phase is not Phase.OVER and _repeated(s):
        _end(s, events, _leader(counts), Termination.ENDLESS)


MOST_GIVEN_BACK = 100
"""Rounds given back in a row (no round taken in between) after which a game whose
taken-back cards are shuffled (``won_cards = shuffle``, ``taken_back = as_won``) ends as
endless. Such a run can meet ever new positions and never end: four players, three down,
``last_card``, deal 6227020799 — seats 0 and 2 hold one ace each, always tie and are
always short, and nobody can beat an ace, while seat 3's shuffled take-backs never repeat
a position (two games in 20,000 loop so; in those that end, the longest run is 35)."""


def _repeated(s: State) -> bool:
    """Whether the position after a round given back was met before in a way that makes
    play go round forever: with ``won_cards = fixed`` at any earlier point between rounds
    (`State.seen`); with shuffled won cards since the last round taken. (Until a round is
    taken every player keeps the same cards. With ``taken_back = as_laid`` nothing was
    shuffled since, so the game would repeat itself; with ``as_won`` the shuffles might
    have found a way out later, but a family would stop there too — and after
    `MOST_GIVEN_BACK` rounds given back in a row, when shuffles keep the positions new.)
    Records the position otherwise."""
    seen = s.seen
    if seen is None:
        if s.given_back is None or s.given_back_at != s.rounds:
            s.given_back, s.given_back_at = set(), s.rounds
        seen = s.given_back
    position = s.position()
    if position in seen:
        return True
    seen.add(position)
    return (
        s.seen is None and s.rules.taken_back is TakenBack.AS_WON and len(seen) >= MOST_GIVEN_BACK
    )


def end_of_round(s: State, events: list[Event]) -> None:
    """A round was just taken: players without cards go out, then the game may end (one
    player left, a limit, a repeated position); else the next step is a battle."""
    s.phase = Phase.BATTLE
    short, s.short_round = s.short_round, False
    for seat in list(s.active):
        if not s.piles[seat]:
            _out(s, events, seat, OutReason.NO_CARDS)
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


def _out(s: State, events: list[Event], seat: int, reason: OutReason) -> None:
    """``seat`` goes out: short in the war being played, or without cards after the round
    just taken (`State.out_at` then names the same round played)."""
    s.active.remove(seat)
    during = 1 if reason is OutReason.SHORT_WAR else 0  # the round being played, or just taken
    s.out_at[seat] = s.rounds + s.given_backs + during  # rounds given back count too
    events.append(PlayerOut(s.rounds + during, seat, reason))


def _check_limit(s: State, events: list[Event], why: Termination) -> None:
    leader = _leader(s.counts())
    if leader is not None or s.rules.tie_break is TieBreak.DRAW:
        _end(s, events, leader, why)


def _end(s: State, events: list[Event], winner: int | None, why: Termination) -> None:
    s.outcome = Outcome(winner, why)
    s.phase = Phase.OVER
    s.war_seats = ()
    events.append(GameOver(s.outcome, s.summary()))
