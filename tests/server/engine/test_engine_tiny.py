"""Tiny decks, every deal enumerated, against an independent brute force written here.

`reference_game` re-implements docs/rules.md from scratch with plain lists and
no shared code beyond card labels and the documented random stream (`Pcg32.below`,
itself pinned by test vectors). Each tiny deck is played in every order the shuffled
deck could have, under every combination of settings, by the engine's step path and its
fast `finish()`; all three must agree on outcome, statistics, final counts and standings.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction

import pytest

from server.engine import (
    Aces,
    BothShort,
    CardsTaken,
    FixedOrder,
    Game,
    Phase,
    Rules,
    ShortWar,
    TakenBack,
    TieBreak,
    WarDeclared,
    WonCards,
    card_label,
)
from server.engine.rng import Pcg32

Result = tuple[int | None, str, int, int, int, int, tuple[int, ...], tuple[int, ...]]

DEAL = 7  # stream for won-card shuffles in every arranged game below


def reference_game(rules: Rules, deck: list[int]) -> Result:
    """(winner, termination, rounds, wars, longest_war, biggest_haul, final counts,
    standings)."""
    order = "23456789TJQKA" if rules.aces is Aces.HIGH else "A23456789TJQK"
    power = {card: order.index(card_label(card, rules)[0]) for card in deck}
    n = rules.players
    usable = len(deck) - len(deck) % n
    piles = [[deck[i] for i in range(usable) if i % n == seat] for seat in range(n)]
    rng = Pcg32.for_deal(DEAL)
    fd = rules.face_down
    lose = rules.short_war is ShortWar.LOSE
    fixed = rules.won_cards is WonCards.FIXED
    shuffle_back = not fixed and rules.taken_back is TakenBack.AS_WON
    alive = list(range(n))
    # The round played (a round given back and played again counts twice) each seat went
    # out in; a seat still in at the end has none.
    gone: dict[int, int] = {}
    played = 0
    # What an out player forfeited in a round given back: (flip, owner, card), waiting
    # for whoever takes the next round. Flips are renumbered 0, 1, ... when kept.
    carry: list[tuple[int, int, int]] = []

    def position() -> tuple[object, ...]:
        return tuple(map(tuple, piles)), tuple(carry)

    # Positions met: with fixed won cards every one between rounds (the start included);
    # with shuffled ones, those after rounds given back since the last round taken.
    seen = {position()} if fixed else set()
    rounds = wars = longest = haul = 0

    def lead() -> int | None:
        sizes = [len(p) for p in piles]
        top = max(sizes)
        return sizes.index(top) if sizes.count(top) == 1 else None

    def shuffle(cards: list[int]) -> None:
        for i in range(len(cards) - 1, 0, -1):
            j = rng.below(i + 1)
            cards[i], cards[j] = cards[j], cards[i]

    def places() -> tuple[int, ...]:
        # Best first: those still in by cards held, then the later out the better.
        def merit(seat: int) -> tuple[int, int]:
            return (1, len(piles[seat])) if seat not in gone else (0, gone[seat])

        ranked = sorted(range(n), key=merit, reverse=True)
        place: dict[int, int] = {}
        for index, seat in enumerate(ranked):
            same = index and merit(ranked[index - 1]) == merit(seat)
            place[seat] = place[ranked[index - 1]] if same else index + 1
        return tuple(place[seat] for seat in range(n))

    def result(winner: int | None, why: str) -> Result:
        counts = tuple(len(p) for p in piles)
        return (winner, why, rounds, wars, longest, haul, counts, places())

    def limit_reached() -> bool:
        limit = rules.round_limit
        settled = lead() is not None or rules.tie_break is TieBreak.DRAW
        return limit is not None and rounds >= limit and settled

    while True:
        played += 1
        table = list(carry)  # (flip, owner, card) in the order laid
        flip = carry[-1][0] + 1 if carry else 0
        showing: dict[int, int] = {}
        for seat in alive:
            card = piles[seat].pop(0)
            table.append((flip, seat, card))
            showing[seat] = card
        fighting = list(alive)
        depth = 0
        went_short = False
        given_back = False
        while True:
            top = max(power[showing[s]] for s in fighting)
            tied = [s for s in fighting if power[showing[s]] == top]
            if len(tied) == 1:
                winner = tied[0]
                break
            depth += 1
            fighting = tied
            if lose:
                out = [s for s in fighting if len(piles[s]) < fd + 1]
            else:
                out = [s for s in fighting if not piles[s]]
            if len(out) == len(fighting):
                # Players still in take their own cards back; an out player's stay put.
                for seat in alive:
                    back = [card for _, owner, card in table if owner == seat]
                    if shuffle_back:  # as won cards go (0.2 kept the order laid)
                        shuffle(back)
                    piles[seat] += back
                if rules.both_short is BothShort.END or set(alive) <= set(fighting):
                    return result(lead(), "both_short")
                kept = [(f, owner, card) for f, owner, card in table if owner not in alive]
                flips = sorted({f for f, _, _ in kept})
                carry = [(flips.index(f), owner, card) for f, owner, card in kept]
                given_back = True
                break
            if lose and out:
                went_short = True
                for seat in fighting:
                    if seat in out:
                        table += [(flip + 1, seat, card) for card in piles[seat]]
                        piles[seat] = []
                        alive.remove(seat)
                        gone[seat] = played
                fighting = [s for s in fighting if s not in out]
                if len(fighting) == 1:
                    winner = fighting[0]
                    break
            for seat in fighting:
                k = min(fd, len(piles[seat]) - 1)
                table += [(flip + 1, seat, card) for card in piles[seat][:k]]
                del piles[seat][:k]
            for seat in fighting:
                if piles[seat]:
                    showing[seat] = piles[seat].pop(0)
                    table.append((flip + 2, seat, showing[seat]))
            flip += 2
        if given_back:  # the round does not count; a loop with no card taken is endless
            if limit_reached():
                return result(lead(), "round_limit")
            if position() in seen:
                return result(lead(), "endless")
            seen.add(position())
            continue
        if fixed and rules.fixed_order is FixedOrder.WINNER:
            table.sort(key=lambda laid: (laid[0], (laid[1] - winner) % n))
        won = [card for _, _, card in table]
        if not fixed:
            shuffle(won)
        piles[winner] += won
        carry = []
        rounds += 1
        wars += depth > 0
        longest = max(longest, depth)
        haul = max(haul, len(won))
        for seat in alive:
            if not piles[seat]:
                gone[seat] = played
        alive = [s for s in alive if piles[s]]
        if len(alive) == 1:
            return result(alive[0], "opponents_short" if went_short else "all_cards")
        if limit_reached():
            return result(lead(), "round_limit")
        if fixed:
            if position() in seen:
                return result(lead(), "endless")
            seen.add(position())
        else:
            seen = set()


def engine_results(rules: Rules, deck: list[int]) -> tuple[Result, Result, int, int]:
    stepped = Game.arranged(rules, deck, DEAL)
    while stepped.phase is not Phase.OVER:
        stepped.step()
    fast = Game.arranged(rules, deck, DEAL)
    fast.finish()

    def as_result(game: Game) -> Result:
        assert game.outcome is not None
        s = game.summary
        return (
            game.outcome.winner,
            game.outcome.termination.value,
            s.rounds,
            s.wars,
            s.longest_war,
            s.biggest_haul,
            game.counts,
            game.standings or (),
        )

    return as_result(stepped), as_result(fast), stepped.steps, fast.steps


RETURNS: list[dict[str, WonCards | FixedOrder | TakenBack]] = [
    {"won_cards": WonCards.SHUFFLE},
    {"won_cards": WonCards.SHUFFLE, "taken_back": TakenBack.AS_LAID},
    {"won_cards": WonCards.FIXED, "fixed_order": FixedOrder.WINNER},
    {"won_cards": WonCards.FIXED, "fixed_order": FixedOrder.SEAT0},
]
SETTINGS = [
    {"face_down": fd, "short_war": sw, "aces": aces, "both_short": bs, **returns}
    for fd in (1, 3)
    for sw in ShortWar
    for returns in RETURNS
    for aces in Aces
    for bs in BothShort
]
LIMITS = [{"round_limit": 3, "tie_break": tb} for tb in TieBreak]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ranks", "suits", "players"),
    [(2, 2, 2), (3, 2, 2), (3, 2, 3), (2, 2, 3), (2, 2, 4), (2, 3, 3), (3, 2, 4)],
)
def test_every_deal_of_a_tiny_deck_matches_the_brute_force(
    ranks: int, suits: int, players: int
) -> None:
    for setting in SETTINGS + LIMITS:
        rules = Rules(ranks=ranks, suits=suits, players=players, **setting)
        for deck in itertools.permutations(range(ranks * suits)):
            expected = reference_game(rules, list(deck))
            stepped, fast, stepped_steps, fast_steps = engine_results(rules, list(deck))
            assert stepped == expected, (setting, deck)
            assert fast == expected, (setting, deck)
            assert fast_steps == stepped_steps


def test_tiny_deck_outcomes_cover_every_way_to_end() -> None:
    """The enumeration above is only convincing if it exercises every termination."""
    seen: set[str] = set()
    for setting in SETTINGS + LIMITS:
        rules = Rules(ranks=3, suits=2, **setting)
        for deck in itertools.permutations(range(6)):
            seen.add(reference_game(rules, list(deck))[1])
    rules = Rules(ranks=2, suits=4, won_cards=WonCards.FIXED)
    seen.add(reference_game(rules, [0, 1, 2, 3, 4, 5, 6, 7])[1])
    assert seen >= {"all_cards", "opponents_short", "both_short", "round_limit"}


@pytest.mark.parametrize(
    ("ranks", "suits", "players", "loops"),
    [(2, 3, 3, False), (3, 2, 3, True), (3, 2, 4, True)],
)
def test_tiny_decks_give_rounds_back_and_play_on(
    ranks: int, suits: int, players: int, loops: bool
) -> None:
    """The enumeration meets rounds given back with play going on (the two values of
    ``both_short`` disagree), and loops of them that end as endless although won cards
    are shuffled."""
    differ = 0
    endings: set[str] = set()
    for fd in (1, 3):
        play_on = Rules(ranks=ranks, suits=suits, players=players, face_down=fd)
        end = replace(play_on, both_short=BothShort.END)
        for deck in itertools.permutations(range(ranks * suits)):
            result = reference_game(play_on, list(deck))
            if result != reference_game(end, list(deck)):
                differ += 1
                endings.add(result[1])
    assert differ > 10
    if loops:
        assert "endless" in endings


def test_brute_force_agrees_on_the_endless_example() -> None:
    rules = Rules(ranks=2, suits=4, won_cards=WonCards.FIXED, fixed_order=FixedOrder.SEAT0)
    # seat 0: KS KH KD AC, seat 1: AS AH AD KC (the deck alternates seats)
    deck = [0, 4, 1, 5, 2, 6, 7, 3]
    assert reference_game(rules, deck) == (1, "endless", 28, 0, 0, 2, (2, 6), (2, 1))
    assert engine_results(rules, deck)[0] == reference_game(rules, deck)


def _sweeps(rules: Rules, deck: tuple[int, ...]) -> int | None:
    """The seat that won every battle without a tie, or None; stops at the first miss."""
    game = Game.arranged(rules, deck)
    takers: set[int] = set()
    while game.phase is not Phase.OVER:
        for event in game.step():
            if isinstance(event, WarDeclared):
                return None
            if isinstance(event, CardsTaken):
                takers.add(event.seat)
                if len(takers) > 1:
                    return None
    return takers.pop()


def test_exact_chance_of_a_clean_sweep_with_four_ranks_two_suits() -> None:
    """Published figure: seat 0 wins every battle without a tie with chance exactly 1/28."""
    rules = Rules(ranks=4, suits=2)
    wins = [0, 0]
    decks = list(itertools.permutations(range(8)))
    for deck in decks:
        seat = _sweeps(rules, deck)
        if seat is not None:
            wins[seat] += 1
    assert Fraction(wins[0], len(decks)) == Fraction(1, 28)
    assert Fraction(sum(wins), len(decks)) == Fraction(1, 14)
