"""Cards taken back from a war nobody could settle go under as won cards do (``taken_back``).

Today's rule (``as_won``, the default): with ``won_cards = shuffle`` each player still in
shuffles the cards they take back with the game's stream, seat by seat in seat order,
before they go under the pile; with ``fixed`` they go in the order laid. Versions up to
0.2 always kept the order laid (``as_laid``, kept for the games they stored): with four
players and three cards down a shuffled game could then go round one given-back round
hundreds of times until the position came back and the game ended as endless
(docs/rules.md, "Everyone runs out"). test_engine_golden.py replays deals 290 and 927
under ``as_laid`` exactly as 0.2's engine played them.
"""

from __future__ import annotations

from server.engine import (
    CardsReturned,
    Event,
    Game,
    Outcome,
    Phase,
    Rules,
    TakenBack,
    Termination,
    WonCards,
    card_label,
)
from server.engine.rng import Pcg32
from tests._kit.decks import arrange

AS_LAID = TakenBack.AS_LAID


def play(game: Game) -> list[Event]:
    events: list[Event] = []
    while game.phase is not Phase.OVER:
        events += game.step()
    return events


def pile(game: Game, seat: int) -> list[str]:
    return [card_label(card, game.rules) for card in game._state.piles[seat]]


# Q K A x 3 suits, one card down. R1: Ann's KS and Ben's KH tie (Cat's QD is lower); they
# lay QS and QH and turn AH and AS: a tie again, and neither has a card left. Cat, outside
# the war, is still in: everyone takes their cards back and round 1 is played again.
PILES = ["KS QS AH", "KH QH AS", "QD KD AD"]


def test_the_cards_taken_back_are_shuffled_by_the_stream_seat_by_seat() -> None:
    rules = Rules(players=3, ranks=3, suits=3)
    game = arrange(rules, PILES)
    game.step()
    game.step()
    assert game.step() == [CardsReturned(1, (3, 3, 3))]
    stream = Pcg32.for_deal(0)  # an arranged game's stream, of which nothing was drawn yet
    expected = []
    for taken in (["KS", "QS", "AH"], ["KH", "QH", "AS"], ["QD"]):
        stream.shuffle(taken)
        expected.append(taken)
    assert [pile(game, 0), pile(game, 1), pile(game, 2)[-1:]] == expected
    assert pile(game, 2)[:2] == ["KD", "AD"]
    assert (game._state.rng.state, game._state.rng.reservoir) == (stream.state, stream.reservoir)


def test_0_2_took_them_back_in_the_order_laid() -> None:
    game = arrange(Rules(players=3, ranks=3, suits=3, taken_back=AS_LAID), PILES)
    for _ in range(3):
        game.step()
    assert [pile(game, 0), pile(game, 1), pile(game, 2)] == [
        ["KS", "QS", "AH"],
        ["KH", "QH", "AS"],
        ["KD", "AD", "QD"],
    ]


def test_fixed_won_cards_take_them_back_in_the_order_laid_either_way() -> None:
    for taken_back in TakenBack:
        rules = Rules(players=3, ranks=3, suits=3, won_cards=WonCards.FIXED, taken_back=taken_back)
        game = arrange(rules, PILES)
        for _ in range(3):
            game.step()
        assert [pile(game, 0), pile(game, 1)] == [["KS", "QS", "AH"], ["KH", "QH", "AS"]]


def _given_back(rules: Rules, deal: int) -> tuple[Outcome | None, int, int]:
    game = Game(rules, deal)
    returned = sum(isinstance(event, CardsReturned) for event in play(game))
    return game.outcome, game.round, returned


def test_deals_290_and_927_loop_no_more() -> None:
    """The deals the issue found: four players, three down, shuffled. Taken back as laid,
    one round came back hundreds of times and the game ended as endless after a handful of
    rounds; taken back as won cards go, the first shuffle finds a way out."""
    old = Rules(players=4, face_down=3, taken_back=AS_LAID)
    new = Rules(players=4, face_down=3)
    assert _given_back(old, 290) == (Outcome(0, Termination.ENDLESS), 8, 326)
    assert _given_back(old, 927) == (Outcome(2, Termination.ENDLESS), 4, 223)
    assert _given_back(new, 290) == (Outcome(2, Termination.ALL_CARDS), 250, 1)
    assert _given_back(new, 927) == (Outcome(1, Termination.OPPONENTS_SHORT), 109, 1)


def test_a_finish_gives_the_same_game_as_stepping() -> None:
    for taken_back in TakenBack:
        for deal in (290, 927, 1684):
            rules = Rules(players=4, face_down=3, taken_back=taken_back)
            stepped = Game(rules, deal)
            play(stepped)
            fast = Game(rules, deal)
            fast.finish()
            assert (fast.outcome, fast.summary, fast.counts, fast.steps) == (
                stepped.outcome,
                stepped.summary,
                stepped.counts,
                stepped.steps,
            )
