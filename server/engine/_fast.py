"""The fast path behind `Game.finish`: the same game as stepping, without events.

Two players (the hot case, also when only two of three or four are left): plain battles
and wars in which both players have enough cards are played inline on the piles with
the random stream's state held in local variables; anything unusual (a player short in a
war, the end of the game, a round limit, ``won_cards = fixed`` position checks, a time
stop) is handed to the step path, which owns those rules. With three or four players
still in, `play_out` simply steps. tests/server/test_engine_fast.py proves both paths give
the same game over many deals and every setting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.engine.game import Phase
from server.engine.rng import MASK32, MASK64, MULT
from server.engine.rules import WonCards

if TYPE_CHECKING:
    from server.engine.game import Game

__all__ = ["play_out"]

_NO_LIMIT = 1 << 62


def play_out(game: Game) -> None:
    """Play ``game`` to its end; a no-op if it is already over."""
    while game._phase is not Phase.OVER:
        if game._phase is Phase.BATTLE and len(game._active) == 2:
            _duel(game)
        else:
            game.step()


def _duel(g: Game) -> None:
    """Play two-player rounds until the step path is needed; leave ``g`` consistent."""
    sa, sb = g._active
    pile_a = g._piles[sa]
    pile_b = g._piles[sb]
    strength = g._strength
    rules = g._rules
    shuffle = rules.won_cards is WonCards.SHUFFLE
    limit = rules.round_limit or _NO_LIMIT
    every_round = g._seen is not None or g._time_stop
    face_down = rules.face_down
    need = face_down + 1
    rng = g._rng
    state = rng.state
    inc = rng.inc
    reservoir = rng.reservoir
    left = rng.bits_left
    rounds = start = g._rounds
    steps = g._steps
    wars = g._wars
    longest = g._longest
    haul = g._haul
    popleft_a = pile_a.popleft
    popleft_b = pile_b.popleft
    while True:
        x = popleft_a()
        y = popleft_b()
        steps += 1
        u = strength[x]
        v = strength[y]
        if u == v:
            laid = [x, y]
            mine_a = [x]
            mine_b = [y]
            up_a = [x]
            up_b = [y]
            depth = 0
            while u == v:
                depth += 1
                if depth == 1:
                    wars += 1
                longest = max(longest, depth)
                if len(pile_a) < need or len(pile_b) < need:
                    # Someone is short: the step path settles this war from here.
                    rng.state, rng.reservoir, rng.bits_left = state, reservoir, left
                    g._haul = max(haul, 2) if rounds > start else haul
                    g._rounds, g._steps, g._wars, g._longest = rounds, steps, wars, longest
                    g._laid = laid
                    g._mine[sa], g._mine[sb] = mine_a, mine_b
                    g._up[sa], g._up[sb] = up_a, up_b
                    g._down[sa] = g._down[sb] = (depth - 1) * face_down
                    g._depth = depth
                    g._war_seats = (sa, sb)
                    g._phase = Phase.WAR
                    return
                steps += 1
                for _ in range(face_down):
                    card = popleft_a()
                    laid.append(card)
                    mine_a.append(card)
                for _ in range(face_down):
                    card = popleft_b()
                    laid.append(card)
                    mine_b.append(card)
                x = popleft_a()
                y = popleft_b()
                laid.append(x)
                laid.append(y)
                mine_a.append(x)
                mine_b.append(y)
                up_a.append(x)
                up_b.append(y)
                u = strength[x]
                v = strength[y]
            if shuffle:
                rng.state, rng.reservoir, rng.bits_left = state, reservoir, left
                rng.shuffle(laid)
                state, reservoir, left = rng.state, rng.reservoir, rng.bits_left
            if u > v:
                pile_a.extend(laid)
                loser = pile_b
            else:
                pile_b.extend(laid)
                loser = pile_a
            haul = max(haul, len(laid))
        else:
            if u > v:
                winner = pile_a
                loser = pile_b
            else:
                winner = pile_b
                loser = pile_a
            if shuffle:
                # Fisher–Yates of two cards is one bit from the reservoir: 1 keeps the order.
                if not left:
                    old = state
                    state = (old * MULT + inc) & MASK64
                    xs = (((old >> 18) ^ old) >> 27) & MASK32
                    rot = old >> 59
                    reservoir = ((xs >> rot) | (xs << (-rot & 31))) & MASK32
                    left = 32
                bit = reservoir & 1
                reservoir >>= 1
                left -= 1
                if bit:
                    winner.append(x)
                    winner.append(y)
                else:
                    winner.append(y)
                    winner.append(x)
            else:
                winner.append(x)
                winner.append(y)
        rounds += 1
        if not loser or rounds >= limit or every_round:
            rng.state, rng.reservoir, rng.bits_left = state, reservoir, left
            # Every completed round took at least two cards.
            g._haul = max(haul, 2) if rounds > start else haul
            g._rounds, g._steps, g._wars, g._longest = rounds, steps, wars, longest
            g._end_of_round([])
            return
