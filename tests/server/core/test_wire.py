"""The engine ↔ wire border (`server.core.room.wire`): rules both ways, and every event mapped.

The expected messages are written out by hand from the rules (docs/rules.md), not
computed by another mapping: every harness (room tests, e2e, client recordings, bench)
calls `server.core.room.wire`, so this file is where the mapping itself is checked.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given

from protocol import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    CreateRoom,
    GameOver,
    GameResult,
    OutReason,
    PlayerOut,
    RulesSpec,
    ServerMessage,
    Summary,
    Termination,
    WarDeclared,
    encode,
)
from server import engine
from server.core.room.wire import engine_rules, event_message, game_result, rules_spec
from tests.protocol.strategies import rules as wire_rules


def _arranged(rules: engine.Rules, *piles: str) -> engine.Game:
    """A game whose seats hold ``piles`` (card codes, top first)."""
    hands = [[engine.parse_card(code, rules) for code in pile.split()] for pile in piles]
    deck = [hand[i] for i in range(len(hands[0])) for hand in hands]
    return engine.Game.arranged(rules, deck)


def _messages(game: engine.Game) -> list[ServerMessage]:
    """Every step's events as room messages, numbered from seq 1."""
    out: list[ServerMessage] = []
    while game.outcome is None:
        for event in game.step():
            out.append(event_message(event, game, len(out) + 1))
    return out


def test_a_war_taken_and_the_loser_out_of_cards() -> None:
    rules = engine.Rules(ranks=3, suits=2, won_cards=engine.WonCards.FIXED)
    game = _arranged(rules, "AS QS KS", "AH KH QH")
    summary = Summary(rounds=1, wars=1, longest_war=1, biggest_haul=6, deal=0)
    assert _messages(game) == [
        CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "AS"), (1, "AH"))),
        WarDeclared(seq=2, step=1, round=1, depth=1, seats=(0, 1)),
        CardsLaidDown(seq=3, step=2, round=1, depth=1, counts=((0, 1), (1, 1))),
        CardsTurned(seq=4, step=2, round=1, depth=1, cards=((0, "KS"), (1, "QH"))),
        CardsTaken(seq=5, step=2, round=1, seat=0, count=6, counts=(6, 0)),
        PlayerOut(seq=6, step=2, round=1, seat=1, reason=OutReason.NO_CARDS),
        GameOver(
            seq=7,
            step=2,
            winner=0,
            termination=Termination.ALL_CARDS,
            summary=summary,
            counts=(6, 0),
            standings=(1, 2),
        ),
    ]
    assert game_result(game) == GameResult(
        winner=0, termination=Termination.ALL_CARDS, summary=summary, standings=(1, 2)
    )


def test_everyone_short_in_a_war_takes_their_cards_back() -> None:
    rules = engine.Rules(ranks=3, suits=2, face_down=3)
    game = _arranged(rules, "AS QS KS", "AH KH QH")
    assert _messages(game) == [
        CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "AS"), (1, "AH"))),
        WarDeclared(seq=2, step=1, round=1, depth=1, seats=(0, 1)),
        CardsReturned(seq=3, step=2, round=1, counts=(3, 3)),
        GameOver(
            seq=4,
            step=2,
            winner=None,
            termination=Termination.BOTH_SHORT,
            # the unsettled round counts in no figure: no round taken, so no war either
            summary=Summary(rounds=0, wars=0, longest_war=0, biggest_haul=0, deal=0),
            counts=(3, 3),
            standings=(1, 1),  # a draw: both share first place
        ),
    ]


def test_a_player_short_in_a_war_goes_out_with_the_reason_on_the_wire() -> None:
    rules = engine.Rules(ranks=5, suits=2, face_down=3, won_cards=engine.WonCards.FIXED)
    # Seat 0 takes round 1 (6 cards to 4); the kings tie in round 2 and seat 1, with 3
    # cards left, cannot lay 3 down and turn one up.
    game = _arranged(rules, "AS KS TS JS QS", "TH KH AH JH QH")
    messages = _messages(game)
    outs = [m for m in messages if isinstance(m, PlayerOut)]
    assert outs == [PlayerOut(seq=5, step=3, round=2, seat=1, reason=OutReason.SHORT_WAR)]
    assert msgpack.unpackb(encode(outs[0]))["reason"] == "short_war"
    over = messages[-1]
    assert isinstance(over, GameOver)
    assert (over.winner, over.termination) == (0, Termination.OPPONENTS_SHORT)


def test_a_game_still_on_has_no_result() -> None:
    assert game_result(engine.Game(engine.Rules(), 7)) is None


@given(wire_rules())
def test_rules_go_both_ways_unchanged(spec: RulesSpec) -> None:
    rules = engine_rules(spec)
    assert (rules.ranks, rules.suits) == (13, 4)
    assert rules_spec(rules) == spec


@given(wire_rules())
def test_the_wire_rules_map_is_the_engine_dict_minus_the_deck(spec: RulesSpec) -> None:
    """The same keys and the same strings on the wire and in the store's JSON."""
    mapped: dict[str, Any] = msgpack.unpackb(encode(CreateRoom(name="Ann", rules=spec)))["rules"]
    stored = engine_rules(spec).to_dict()
    assert (stored.pop("ranks"), stored.pop("suits")) == (13, 4)
    assert mapped == stored


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (RulesSpec(face_down=2), "face_down must be 1 or 3, not 2"),
        (RulesSpec(players=5), "players must be 2, 3 or 4, not 5"),
        (RulesSpec(round_limit=0), "round_limit must be a positive integer or None, not 0"),
    ],
)
def test_rules_that_skipped_the_codec_meet_the_same_bounds(spec: RulesSpec, message: str) -> None:
    with pytest.raises(engine.RulesError, match=f"^{message}$"):
        engine_rules(spec)
