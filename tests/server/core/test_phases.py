"""The room's state machine: the stage × command table, walked cell by cell through a real
hub, and the stage × event transitions.

For every (command, stage, who) of `server.core.room.phases.TABLE`: a room in that stage, a
connection of that kind, the command sent; an accepted command gets no error, a refused
one gets the cell's code with a sentence naming the command and the stage.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from protocol import (
    CLIENT_MESSAGE_TYPES,
    AutoPlay,
    ClientMessage,
    Commit,
    CreateRoom,
    Error,
    ErrorCode,
    FixedOrder,
    JoinRoom,
    Leave,
    LookUp,
    React,
    Reaction,
    Ready,
    Rematch,
    RematchDeal,
    ResumeSeat,
    Resync,
    RoomPhase,
    RulesSpec,
    Say,
    SetAutoPlay,
    VoteFinish,
    WatchRoom,
    WonCards,
)
from protocol.seat_requests import AnswerSeatRequest
from server.core.room.phases import (
    COMMANDS,
    PLAYING_OUT,
    ROWS,
    SEATS_OPEN,
    TABLE,
    TRANSITIONS,
    Event,
    Stage,
    Who,
    accepted,
    advance,
    finish_agreed,
    game_end,
    may,
    refusal,
    rematch_agreed,
    replays_as,
    seats_filled,
    time_limit,
)
from server.core.room.room import Room
from tests.server.core._roomkit import Peer, RoomKit, SeededSource, seated


def _room_in(stage: Stage) -> tuple[RoomKit, Peer]:
    """A 2-player room in ``stage``; returns the kit and the creator (seat 0).

    Finishing: a game long enough to take many slices (fixed won cards, no limit to
    speak of, deal 374), its finish vote passed and no slice played yet."""
    kit = RoomKit()
    if stage is Stage.WAITING:
        ann = kit.connect()
        kit.send(ann, CreateRoom(name="Ann", deal=7))
    elif stage is Stage.FINISHING:
        long_rules = RulesSpec(
            players=2,
            won_cards=WonCards.FIXED,
            fixed_order=FixedOrder.SEAT0,
            round_limit=1_000_000,
        )
        ann, ben = seated(kit, deal=374, rules=long_rules)
        kit.send(ann, VoteFinish())
        kit.send(ben, VoteFinish())
    else:
        ann, ben = seated(kit, deal=7)
        if stage is Stage.OVER:
            kit.send(ann, VoteFinish())
            kit.send(ben, VoteFinish())
    assert kit.room(ann).stage is stage
    return kit, ann


def _message(command: str, kit: RoomKit, ann: Peer) -> ClientMessage:
    welcome = ann.welcome
    room = kit.room(ann)
    messages: dict[str, ClientMessage] = {
        "join_room": JoinRoom(code=welcome.player_code or "", name="Newcomer"),
        "watch_room": WatchRoom(code=welcome.watch_code or ""),
        "resume_seat": ResumeSeat(room=welcome.state.room, token=welcome.token or ""),
        "look_up": LookUp(code=welcome.player_code or ""),
        "ready": Ready(step=room.game.steps),
        "commit": Commit(seed_commitment="ab" * 32),
        "set_auto_play": SetAutoPlay(mode=AutoPlay.QUICK),
        "vote_finish": VoteFinish(),
        "rematch": Rematch(deal=RematchDeal.SAME),
        "leave": Leave(),
        "resync": Resync(),
        "answer_seat_request": AnswerSeatRequest(seat=1, allow=True),
        "react": React(reaction=Reaction.CLAP),
        "say": Say(text="Good game!"),
    }
    return messages[command]


@pytest.mark.parametrize(("command", "stage", "who"), sorted(TABLE), ids=str)
def test_every_cell_of_the_table(command: str, stage: Stage, who: Who) -> None:
    kit, ann = _room_in(stage)
    if who is Who.SEAT:
        sender = ann
    else:
        sender = kit.connect("10.0.0.9")  # another household: the table may answer it
        if who is Who.SPECTATOR:
            kit.send(sender, WatchRoom(code=ann.welcome.watch_code or ""))
    message = _message(command, kit, ann)
    if command == "join_room" and stage is not Stage.WAITING:
        # a started room has no open seat: a join takes back an away seat by its name
        room = kit.room(ann)
        kit.drop(kit.peers[room.connections[1]])
        name = room.state(kit.now).seats[1].name or ""
        message = JoinRoom(code=ann.welcome.player_code or "", name=name)
    mark = len(sender.inbox)
    kit.send(sender, message)
    errors = [m for m in sender.inbox[mark:] if isinstance(m, Error)]
    expected = TABLE[command, stage, who]
    if expected is None and command == "answer_seat_request":
        # accepted, but nobody asks for a seat: refused for its content
        assert [error.code for error in errors] == ["no_seat_request"]
    elif expected is None and command == "commit":
        # accepted, but no fresh deal waits for commitments: refused for its content
        assert [error.code for error in errors] == [ErrorCode.NOT_NEEDED]
    elif command == "say" and who is Who.SPECTATOR:  # the phase table accepts it; the room's
        # talk setting (players, the default) does not (tests/server/core/test_talk.py)
        assert [error.code for error in errors] == [ErrorCode.TALK_NOT_ALLOWED]
    elif expected is None:
        assert errors == [], errors
    else:
        assert [error.code for error in errors] == [expected]
        assert errors[0].message.startswith(f"cannot {command} while {stage.value}: ")
        assert kit.room(ann).stage is stage  # refused: nothing moved


def test_the_table_has_every_command_for_everyone_it_may_come_from() -> None:
    opening = {"join_room", "watch_room", "resume_seat", "look_up"}
    # second_path is the WebSocket adapter's (server/adapters/ws/paths.py): never the core's
    assert set(COMMANDS) == set(CLIENT_MESSAGE_TYPES) - {"create_room", "second_path"}
    for command in COMMANDS:
        kinds = [Who.NEWCOMER] if command in opening else [Who.SEAT, Who.SPECTATOR]
        for stage in Stage:
            for who in Who:
                assert ((command, stage, who) in TABLE) == (who in kinds)


def test_a_refusal_names_the_command_and_the_phase() -> None:
    refused = refusal("vote_finish", Stage.WAITING, Who.SEAT)
    assert refused is not None
    assert refused.code == "game_not_started"
    assert str(refused) == "cannot vote_finish while waiting: the game waits for players to join"
    assert refusal("vote_finish", Stage.PLAYING, Who.SEAT) is None
    finishing = refusal("ready", Stage.FINISHING, Who.SEAT)
    assert finishing is not None
    assert str(finishing) == (
        "cannot ready while finishing: a finish vote passed and the rest is being played "
        "out; game_over follows"
    )
    with pytest.raises(KeyError):
        refusal("join_room", Stage.PLAYING, Who.SEAT)


def test_the_wire_shows_finishing_as_playing() -> None:
    assert [stage.phase for stage in Stage] == [
        RoomPhase.WAITING,
        RoomPhase.PLAYING,
        RoomPhase.PLAYING,
        RoomPhase.OVER,
    ]


def test_protocol_md_shows_this_table() -> None:
    doc = (Path(__file__).parents[3] / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    section = doc.split("### What each room phase accepts", 1)[1].split("\n###", 1)[0]
    shown: dict[tuple[str, Stage, Who], str | None] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 2 + len(Stage) or not cells[0].startswith("`"):
            continue
        commands, who, *verdicts = cells
        for command in re.findall(r"`([a-z_]+)`", commands):
            for stage, verdict in zip(Stage, verdicts, strict=True):
                code = re.fullmatch(r"`([a-z_]+)`", verdict)
                shown[command, stage, Who(who)] = code[1] if code else None
    assert shown == dict(TABLE)


def test_the_transitions_are_the_drawing_of_the_docstring() -> None:
    assert {
        (stage, event): following
        for stage, events in TRANSITIONS.items()
        for event, following in events.items()
    } == {
        (Stage.WAITING, Event.SEATS_FILLED): Stage.PLAYING,
        (Stage.PLAYING, Event.TIME_UP): Stage.PLAYING,
        (Stage.PLAYING, Event.GAME_ENDED): Stage.OVER,
        (Stage.PLAYING, Event.FINISH_AGREED): Stage.FINISHING,
        (Stage.FINISHING, Event.PLAYED_OUT): Stage.OVER,
        (Stage.OVER, Event.REMATCH_AGREED): Stage.PLAYING,
    }
    assert set(TRANSITIONS) == set(Stage)


def test_an_event_a_stage_does_not_list_cannot_happen_in_it() -> None:
    for stage in Stage:
        for event in Event:
            assert may(stage, event) == (event in TRANSITIONS[stage])
            if not may(stage, event):
                with pytest.raises(ValueError, match=f"{event.value} cannot happen while"):
                    advance(stage, event)


def test_the_public_views_agree_with_the_table() -> None:
    assert list(ROWS) == list(dict.fromkeys((command, who) for command, _, who in TABLE))
    for (command, who), verdicts in ROWS.items():
        assert list(verdicts) == list(Stage)
        for stage, verdict in verdicts.items():
            assert TABLE[command, stage, who] == verdict
        assert accepted(command, who) == {s for s, v in verdicts.items() if v is None}
    assert accepted("ready", Who.SEAT) == {Stage.PLAYING}
    assert {Stage.WAITING} == SEATS_OPEN
    assert [stage.started for stage in Stage] == [False, True, True, True]


def test_a_stored_stage_its_game_does_not_replay_to_is_refused() -> None:
    """The stage is stored, not derived; a record whose stage its replay contradicts does
    not describe a room (it is skipped when loaded, as any record that does not rebuild)."""
    kit = RoomKit()
    ann, ben = seated(kit, deal=7)
    kit.send(ann, Ready(step=0))
    kit.send(ben, Ready(step=0))
    record = kit.room(ann).record()
    assert (record.game.stage, record.game.steps) == (Stage.PLAYING, 1)
    for wrong in (Stage.WAITING, Stage.OVER):
        game = dataclasses.replace(record.game, stage=wrong)
        with pytest.raises(ValueError, match="does not replay as one"):
            Room(dataclasses.replace(record, game=game), **_room_args(kit))


def _room_args(kit: RoomKit) -> dict[str, Any]:
    return {"settings": kit.settings, "random": SeededSource(0), "now": kit.now}


def test_finishing_is_named_by_the_phase_table_alone() -> None:
    """Which stage has its game played out, and what a stored stage must agree with, are
    the table module's (`PLAYING_OUT`, `replays_as`): no other module of the server names
    the stage `finishing` to decide something."""
    server = Path(__file__).parents[3] / "server"
    naming = sorted(
        str(path.relative_to(server))
        for path in server.rglob("*.py")
        if "Stage.FINISHING" in path.read_text(encoding="utf-8")
    )
    assert naming == ["core/room/phases.py"]
    assert {Stage.FINISHING} == PLAYING_OUT


def test_only_the_table_asks_whether_a_stage_is_played_out() -> None:
    """`PLAYING_OUT` is asked in one place, where the stage moves (the table's
    ``playing_out``, a value the hub, the rooms and the room read): no other module
    checks the stage itself."""
    server = Path(__file__).parents[3] / "server"
    asking = sorted(
        str(path.relative_to(server))
        for path in server.rglob("*.py")
        if "PLAYING_OUT" in path.read_text(encoding="utf-8")
    )
    assert asking == ["core/room/phases.py", "core/room/table.py"]


def test_only_the_table_changes_the_rooms_state() -> None:
    """The commands over the table (play, arrivals, takeovers) change the room's state
    through the table's own methods (`Table.set_game`, `Table.advance`, ...): none of
    them assigns an attribute of the table."""
    room = Path(__file__).parents[3] / "server" / "core" / "room"
    assigning = re.compile(r"\b(?:self\._)?table\.\w+ = ")
    found = sorted(
        f"{path.name}:{number}"
        for path in room.glob("*.py")
        if path.name != "table.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if assigning.search(line)
    )
    assert found == []


@pytest.mark.parametrize("stage", list(Stage))
def test_a_stored_stage_agrees_with_its_replay_in_one_way(stage: Stage) -> None:
    """`replays_as` over every (started, finished, over): waiting is a game not started
    nor finished; playing one not over nor finished; finishing one a finish vote passed;
    over one with an outcome."""
    agrees = {
        (started, finished, over)
        for started in (False, True)
        for finished in (False, True)
        for over in (False, True)
        if replays_as(stage, started=started, finished=finished, over=over)
    }
    expected = {
        Stage.WAITING: {(False, False, False), (False, False, True)},
        Stage.PLAYING: {(False, False, False), (True, False, False)},
        Stage.FINISHING: {(s, True, o) for s in (False, True) for o in (False, True)},
        Stage.OVER: {(s, f, True) for s in (False, True) for f in (False, True)},
    }
    assert agrees == expected[stage]


@pytest.mark.parametrize("stage", list(Stage))
def test_the_conditions_under_which_a_stage_ends(stage: Stage) -> None:
    """Each condition holds only in a stage whose transitions list its event, and only
    when its facts are all there: every seat taken; some vote given and every voter's
    in (a finish also waits for a settled deal); a time limit set, not stopped yet, the
    deal settled."""
    playing, over, waiting = stage is Stage.PLAYING, stage is Stage.OVER, stage is Stage.WAITING
    assert seats_filled(stage, full=True) is waiting
    assert not seats_filled(stage, full=False)

    assert finish_agreed(stage, votes=(0, 1), voters=(0, 1), settled=True) is playing
    assert finish_agreed(stage, votes=(1, 0, 2), voters=(0, 1), settled=True) is playing
    assert not finish_agreed(stage, votes=(0,), voters=(0, 1), settled=True)
    assert not finish_agreed(stage, votes=(0, 1), voters=(0, 1), settled=False)
    assert not finish_agreed(stage, votes=(), voters=(), settled=True)
    assert not finish_agreed(stage, votes=(0,), voters=(), settled=True)

    assert rematch_agreed(stage, votes=(0, 1), voters=(0, 1)) is over
    assert not rematch_agreed(stage, votes=(1,), voters=(0, 1))
    assert not rematch_agreed(stage, votes=(), voters=())

    expected = 100.0 if playing else None
    assert time_limit(stage, deadline=100.0, stopped=False, settled=True) == expected
    assert time_limit(stage, deadline=100.0, stopped=True, settled=True) is None
    assert time_limit(stage, deadline=100.0, stopped=False, settled=False) is None
    assert time_limit(stage, deadline=None, stopped=False, settled=True) is None


def test_a_games_outcome_ends_its_stage_by_the_table() -> None:
    """A game's outcome is the last slice of a play-out while finishing, else the game
    ended; either is a transition of the stage."""
    assert game_end(Stage.FINISHING) is Event.PLAYED_OUT
    assert game_end(Stage.PLAYING) is Event.GAME_ENDED
    for stage in (Stage.PLAYING, Stage.FINISHING):
        assert advance(stage, game_end(stage)) is Stage.OVER
