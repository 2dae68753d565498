"""The fast path behind `Game.finish`: the same game as stepping, without events.

It works on the game's `State` (`server.engine._state`), as the step path
(`server.engine._step`) does, and never sees `Game` itself.

The hot case — two players left, ``won_cards = shuffle``, no time stop — is played by
`_duel` directly on the two piles, with the random stream's state in local variables:
plain battles, and wars in which both players have enough cards, including the
Fisher–Yates of the prize (for two cards: one bit). Anything unusual — a player short in
a war, the end of the game, a round limit being reached, cards left on the table by a
round given back — is handed back to the step path, which owns those rules. Three or
four players still in, ``won_cards = fixed`` (which checks every position anyway) and a
time stop simply step.

tests/server/engine/test_engine_fast.py, test_engine_props.py and test_engine_tiny.py prove the
two paths give the same game (outcome, statistics, counts and step count).
"""

from __future__ import annotations

from server.engine._state import Phase, State
from server.engine._step import advance, end_of_round
from server.engine.rng import MASK32, MASK64, MULT
from server.engine.rules import WonCards

__all__ = ["play_out"]

# For Fisher–Yates step i (a draw below i + 1): how many bits, and their mask.
_DRAW = tuple((i.bit_length(), (1 << i.bit_length()) - 1) for i in range(53))


def play_out(s: State) -> None:
    """Play the game of ``s`` to its end; a no-op if it is already over."""
    fast = s.rules.won_cards is WonCards.SHUFFLE
    while s.phase is not Phase.OVER:
        if (
            fast
            and s.phase is Phase.BATTLE
            and len(s.active) == 2
            and not s.time_stop
            and not s.laid  # no cards left on the table by a round given back
        ):
            _duel(s)
        else:
            advance(s)


def _hand_over(g: State, laid: list[int], depth: int) -> None:
    """Put a two-player war in progress (``depth`` declared, not played) on ``g``'s table.

    ``laid`` is the table in laying order: both first cards, then per war played
    ``face_down`` cards of each seat and the two face-up cards.
    """
    sa, sb = g.active
    fd = g.rules.face_down
    mine_a, mine_b = [laid[0]], [laid[1]]
    up_a, up_b = [laid[0]], [laid[1]]
    for war in range(depth - 1):
        base = 2 + war * (2 * fd + 2)
        mine_a += laid[base : base + fd]
        mine_b += laid[base + fd : base + 2 * fd]
        mine_a.append(laid[base + 2 * fd])
        mine_b.append(laid[base + 2 * fd + 1])
        up_a.append(laid[base + 2 * fd])
        up_b.append(laid[base + 2 * fd + 1])
    g.laid = laid
    g.tags = [sa, sb]
    for war in range(depth - 1):
        down, up = (1 + 2 * war) << 2, (2 + 2 * war) << 2
        g.tags += [down | sa] * fd + [down | sb] * fd + [up | sa, up | sb]
    g.flips = 2 * depth - 1
    g.mine[sa], g.mine[sb] = mine_a, mine_b
    g.up[sa], g.up[sb] = up_a, up_b
    g.down[sa] = g.down[sb] = (depth - 1) * fd
    g.depth = depth
    g.war_seats = (sa, sb)
    g.phase = Phase.WAR


def _duel(g: State) -> None:
    """Play two-player rounds until the step path is needed; leave ``g`` consistent."""
    sa, sb = g.active
    pile_a = g.piles[sa]
    pile_b = g.piles[sb]
    popleft_a = pile_a.popleft
    popleft_b = pile_b.popleft
    strength = g.strength
    face_down = g.rules.face_down
    need = face_down + 1
    start = rounds = g.rounds
    limit = g.rules.round_limit
    # After this round the step path must look (the limit, or every round past it).
    stop_at = -1 if limit is None else max(limit, start + 1)
    rng = g.rng
    state = rng.state
    inc = rng.inc
    reservoir = rng.reservoir
    left = rng.bits_left
    war_steps = 0
    wars = g.wars
    longest = g.longest
    haul = g.haul
    while True:
        x = popleft_a()
        y = popleft_b()
        u = strength[x]
        v = strength[y]
        if u != v:
            if u > v:
                winner = pile_a
                loser = pile_b
            else:
                winner = pile_b
                loser = pile_a
            # Fisher–Yates of two cards is one bit of the reservoir: 1 keeps the order.
            if not left:
                old = state
                state = (old * MULT + inc) & MASK64
                xs = (((old >> 18) ^ old) >> 27) & MASK32
                rot = old >> 59
                reservoir = ((xs >> rot) | (xs << (-rot & 31))) & MASK32
                left = 32
            if reservoir & 1:
                winner.append(x)
                winner.append(y)
            else:
                winner.append(y)
                winner.append(x)
            reservoir >>= 1
            left -= 1
        else:
            laid = [x, y]
            depth = 0
            while u == v:
                depth += 1
                if len(pile_a) < need or len(pile_b) < need:
                    # Someone is short: the step path settles this war from here.
                    rng.state, rng.reservoir, rng.bits_left = state, reservoir, left
                    g.steps += rounds - start + war_steps + 1  # + this round's first flip
                    g.haul = max(haul, 2) if rounds > start else haul
                    g.rounds, g.wars, g.longest = rounds, wars, longest
                    _hand_over(g, laid, depth)
                    return
                war_steps += 1
                if face_down == 1:
                    laid.append(popleft_a())
                    laid.append(popleft_b())
                else:
                    for _ in range(face_down):
                        laid.append(popleft_a())
                    for _ in range(face_down):
                        laid.append(popleft_b())
                x = popleft_a()
                y = popleft_b()
                laid.append(x)
                laid.append(y)
                u = strength[x]
                v = strength[y]
            wars += 1  # a round counts, with its war, once someone takes it
            longest = max(longest, depth)
            # Fisher–Yates of the prize, exactly as Pcg32.shuffle does it.
            i = len(laid) - 1
            while i:
                k, mask = _DRAW[i]
                while True:
                    if left < k:
                        old = state
                        state = (old * MULT + inc) & MASK64
                        xs = (((old >> 18) ^ old) >> 27) & MASK32
                        rot = old >> 59
                        reservoir |= (((xs >> rot) | (xs << (-rot & 31))) & MASK32) << left
                        left += 32
                    j = reservoir & mask
                    reservoir >>= k
                    left -= k
                    if j <= i:
                        break
                laid[i], laid[j] = laid[j], laid[i]
                i -= 1
            if u > v:
                pile_a.extend(laid)
                loser = pile_b
            else:
                pile_b.extend(laid)
                loser = pile_a
            haul = max(haul, len(laid))
        rounds += 1
        if not loser or rounds == stop_at:
            rng.state, rng.reservoir, rng.bits_left = state, reservoir, left
            g.steps += rounds - start + war_steps
            # Every completed round took at least two cards.
            g.haul = max(haul, 2)
            g.rounds, g.wars, g.longest = rounds, wars, longest
            end_of_round(g, [])
            return
