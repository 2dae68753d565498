"""Reading a ``war-client --json`` record (`protocol.record.read_record`): game by game,
every field checked as the codec checks it, the fair-deal fields read from the lines, and
a clear `RecordError` naming the line for anything else."""

from __future__ import annotations

import hashlib
import json

import pytest

from protocol.fairness import commitment
from protocol.record import RecordError, read_record
from server import engine
from tests._kit.records import Table, edit, game_record


def seed(word: str) -> bytes:
    return hashlib.sha256(word.encode()).digest()


TABLE = Table(engine.Rules(players=3, round_limit=30), seed("s"), (seed("a"), None, seed("c")))


def test_a_record_read_back() -> None:
    lines = game_record(TABLE, seat=2)
    (game,) = read_record(lines)
    assert game.rules == TABLE.rules.to_dict()
    assert (game.number, game.seat, game.first_step) == (1, 2, 0)
    assert game.deal_commitment == commitment(TABLE.server_seed)
    assert game.server_seed == TABLE.server_seed.hex()
    assert game.seeds == (seed("a").hex(), None, seed("c").hex())
    assert game.end is not None and game.end.summary.deal == TABLE.deal
    assert len(game.flips) == sum('"cards_turned"' in line for line in lines)
    assert len(game.takes) == sum('"cards_taken"' in line for line in lines)
    assert game.shown_deal is None
    # each seat's commitment, as the table was shown it (the computer's: none)
    assert game.seed_commitments == (commitment(seed("a")), None, commitment(seed("c")))
    assert not game.time_up


def test_the_hidden_token_and_unknown_fields_are_fine() -> None:
    lines = game_record(TABLE)
    lines = edit(lines, 0, lambda body: body.update(token="<hidden>", later_field=[1, {"x": 2}]))
    assert read_record(lines)[0].seat == 0


def test_seat_commitments_when_the_state_shows_them() -> None:
    shown = [commitment(seed("a")), None, commitment(seed("c"))]

    def show(body: dict[str, object]) -> None:
        state = body["state"]
        assert isinstance(state, dict)
        for seat, committed in zip(state["seats"], shown, strict=True):
            seat["seed_commitment"] = committed

    (game,) = read_record(edit(game_record(TABLE), 0, show))
    assert game.seed_commitments == tuple(shown)


def test_a_late_viewer_and_the_time_limit() -> None:
    (game,) = read_record(game_record(TABLE, join_at=12, stop_at=20))
    assert game.first_step == 12
    assert min(flip.step for flip in game.flips) == 13
    assert game.time_up


@pytest.mark.parametrize(
    ("index", "change", "problem"),
    [
        (0, lambda b: b["state"]["rules"].update(taken_back="shuffled"), "taken_back must be"),
        (
            0,
            lambda b: b["state"].update(deal_commitment="F" * 64),
            "deal_commitment must be a string matching [0-9a-f]{64}",
        ),
        (1, lambda b: b.update(deal=2**64), "game_started.deal must be an int"),
        (-1, lambda b: b["fairness"].update(seeds=[None]), "must be a list of 3"),
        (-1, lambda b: b.update(fairness=[]), "game_over.fairness must be a map"),
        (
            -1,
            lambda b: b["fairness"].pop("server_seed"),
            "game_over.fairness lacks the field 'server_seed'",
        ),
    ],
)
def test_what_is_refused(index: int, change: object, problem: str) -> None:
    lines = game_record(TABLE)  # line 1: the welcome, line 2: game_started
    with pytest.raises(RecordError) as info:
        read_record(edit(lines, index, change))
    assert problem in str(info.value)
    line = index + 1 if index >= 0 else len(lines)
    assert str(info.value).startswith(f"line {line}: ")


def test_two_rooms_in_one_record_are_refused() -> None:
    other = Table(engine.Rules(players=3), seed("t"), (None, None, None))
    lines = game_record(TABLE) + game_record(other, number=2)
    with pytest.raises(RecordError, match="the rules changed within one room"):
        read_record(lines)


def test_games_come_in_the_order_of_their_numbers() -> None:
    again = Table(TABLE.rules, seed("s2"), TABLE.seeds)
    games = read_record(game_record(again, number=2, seq=900) + game_record(TABLE))
    assert [g.number for g in games] == [1, 2]
    assert json.loads(json.dumps(games[1].seeds)) == [s.hex() if s else None for s in TABLE.seeds]


def _type(line: str) -> str:
    kind = json.loads(line)["type"]
    assert isinstance(kind, str)
    return kind


def test_every_event_is_read_and_the_steps_seen_whole() -> None:
    """Issue 31: the face-down counts, wars and outs are read; a viewer there from the
    start saw every step whole; one that joined at step 12 saw steps 13 on whole."""
    lines = game_record(TABLE, seat=2)
    (game,) = read_record(lines)
    assert len(game.laid) == sum(_type(line) == "cards_laid_down" for line in lines)
    assert len(game.wars) == sum(_type(line) == "war_declared" for line in lines)
    assert len(game.outs) == sum(_type(line) == "player_out" for line in lines)
    assert game.laid and game.wars
    assert game.end is not None
    last = max(m.step for m in game.flips)
    assert game.seen_whole() == ((1, last),)
    (late,) = read_record(game_record(TABLE, seat=2, join_at=12))
    assert late.seen_whole() == ((13, last),)


def test_a_repeat_and_what_follows_a_seq_gap_are_not_read() -> None:
    """As the view applies them: a room message whose seq was seen is a repeat; after a
    seq gap nothing is read until a snapshot (and the steps it hides are not excused)."""
    lines = game_record(TABLE, seat=2)
    turned = [i for i, line in enumerate(lines) if _type(line) == "cards_turned"]
    repeat = edit(lines, turned[3], lambda body: body["cards"][0].__setitem__(1, "2C"))
    (game,) = read_record([*lines[: turned[3] + 1], repeat[turned[3]], *lines[turned[3] + 1 :]])
    assert len(game.flips) == len(turned)  # the repeat (another card) is not read
    hole = [*lines[: turned[5]], *lines[turned[5] + 1 :]]  # one message never sent
    (gapped,) = read_record(hole)
    assert gapped.end is None  # nothing read past the gap: no snapshot came
    assert len(gapped.flips) == 5
