"""The fast path behind `Game.finish`: the same game as stepping, without events.

It works on the game's `State` (`server.engine._state`), as the step path
(`server.engine._step`) does, and never sees `Game` itself.

The hot case — two players left, ``won_cards = shuffle``, no time stop — is played by
`_duel` directly on the two piles, with the random stream's state in local variables:
plain battles, and wars in which both players have enough cards, including the
Fisher–Yates of the prize (for two cards: one bit). Anything unusual — a player short in
a war, the end of the game, a round limit being reached, cards left on the table by a
round given back — is handed back to the step path, which owns those rules. With three
or four players still in, or ``won_cards = fixed``, `_battles` plays the plain rounds (one
card strictly the highest, nobody about to go out) without events, recording positions as
the step path does, and every war steps; a time stop simply steps.

A play-out may be bounded (`play_out` with a ``budget``): it then stops at the first
point the budget allows and leaves the state exactly as the step path would there (the
end of a round for the two-player path, any step for the step path), so that a server
can play a long game out a slice at a time between other work. The budget is counted in
units of work that follow what each path costs: a step of the step path costs
`STEP_WORK`, a step of the two-player path one (it is about twenty times cheaper). A
round of `_battles` costs `STEP_WORK` too, so that a slice ends exactly where the step
path's would.

tests/server/engine/test_engine_fast.py, test_engine_props.py and test_engine_tiny.py prove the
two paths give the same game (outcome, statistics, counts and step count), whole or in
slices.
"""

from __future__ import annotations

from server.engine._state import Phase, State
from server.engine._step import advance, end_of_round
from server.engine.rng import MASK32, MASK64, MULT
from server.engine.rules import FixedOrder, WonCards

__all__ = ["STEP_WORK", "play_out"]

STEP_WORK = 16
"""What one step of the step path costs in a play-out's budget; a step of the two-player
fast path costs 1. Measured: about 5-6 µs against 0.3 µs a step (docs/performance.md)."""
_NO_STOP = 1 << 62  # a round count no game reaches

# For Fisher–Yates step i (a draw below i + 1): how many bits, and their mask.
_DRAW = tuple((i.bit_length(), (1 << i.bit_length()) - 1) for i in range(53))


def play_out(s: State, budget: int | None = None) -> int:
    """Play the game of ``s`` on: to its end, or (``budget``: units of work, see
    `STEP_WORK`) until the budget is spent; return the units spent (0 if the game was
    already over).

    A bounded call plays at least one step. It may overspend by less than one step of
    the step path, or by the war steps of the round the two-player path is in (it ends
    that round): at most ``budget + STEP_WORK + deck_size // 2``.
    """
    fast = s.rules.won_cards is WonCards.SHUFFLE
    spent = 0
    limit = _NO_STOP if budget is None else max(1, budget)
    while s.phase is not Phase.OVER and spent < limit:
        if (
            fast
            and s.phase is Phase.BATTLE
            and len(s.active) == 2
            and not s.time_stop
            and not s.laid  # no cards left on the table by a round given back
        ):
            before = s.steps
            _duel(s, None if budget is None else limit - spent)
            spent += s.steps - before
        elif s.phase is Phase.BATTLE and not s.time_stop and not s.laid:
            # Each round costs what the step path's step does, so that a bounded play-out
            # stops where the step path would (-(-a // b) is a / b rounded up).
            played = _battles(s, -(-(limit - spent) // STEP_WORK))
            if not played:
                advance(s)
                played = 1
            spent += played * STEP_WORK
        else:
            advance(s)
            spent += STEP_WORK
    return spent


def _battles(g: State, most: int) -> int:
    """Play plain rounds with any number of players and either way of putting won cards
    under (rounds in which one turned card is strictly the highest and everyone holds two
    cards or more, so that nobody goes out), at most ``most``; return how many. A round
    that ties (a war), one in which a player may go out, one that reaches the round limit
    and a position met before are the step path's: the loop stops before the first two
    and hands the others' end to `end_of_round`. ``won_cards = fixed`` still records every
    position, as `end_of_round` does."""
    piles = g.piles
    active = g.active  # nobody goes out inside the loop
    strength = g.strength
    rules = g.rules
    fixed = rules.won_cards is WonCards.FIXED
    from_winner = fixed and rules.fixed_order is FixedOrder.WINNER
    shuffle = g.rng.shuffle
    seen = g.seen
    limit = _NO_STOP if rules.round_limit is None else rules.round_limit
    playing = [piles[seat] for seat in active]
    played = 0
    while played < most:
        if min(map(len, playing)) < 2:
            break
        tops = [pile[0] for pile in playing]
        powers = list(map(strength.__getitem__, tops))
        best = max(powers)
        if powers.count(best) != 1:
            break
        for pile in playing:
            pile.popleft()
        at = powers.index(best)
        # The table's cards in seat order; from the winner round the table for the fixed
        # order of today's rules (`_step._prize`).
        won = tops[at:] + tops[:at] if from_winner else tops
        if not fixed:
            shuffle(won)
        playing[at].extend(won)
        played += 1
        g.steps += 1
        g.rounds += 1
        g.haul = max(g.haul, len(won))
        if g.rounds >= limit:
            end_of_round(g, [])
            break
        if seen is not None:
            position = g.position()
            if position in seen:
                end_of_round(g, [])  # it finds the position again and ends the game
                break
            seen.add(position)
    return played


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


def _duel(g: State, budget: int | None = None) -> None:
    """Play two-player rounds until the step path is needed (or, with ``budget``, until
    that many steps are played, at the end of a round); leave ``g`` consistent."""
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
    # After this round the step path must look (the limit, or every round past it), or
    # the budget is spent (a war's steps take from it too, below).
    stop_at = _NO_STOP if limit is None else max(limit, start + 1)
    if budget is not None:
        stop_at = min(stop_at, start + max(1, budget))
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
            if budget is not None:
                stop_at -= depth  # this round's war steps
        rounds += 1
        if not loser or rounds >= stop_at:
            rng.state, rng.reservoir, rng.bits_left = state, reservoir, left
            g.steps += rounds - start + war_steps
            # Every completed round took at least two cards.
            g.haul = max(haul, 2)
            g.rounds, g.wars, g.longest = rounds, wars, longest
            end_of_round(g, [])
            return
