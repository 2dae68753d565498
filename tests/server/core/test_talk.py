"""Table talk and the evening in the room core: who may say what in each talk setting,
the rates, the window of the last 50, the evening across rematches and a restart, and
never a word of it in the log."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from protocol import (
    MAX_TALK,
    CreateRoom,
    ErrorCode,
    GameOver,
    JoinRoom,
    Leave,
    React,
    Reacted,
    Reaction,
    Ready,
    Rematch,
    RematchDeal,
    RulesSpec,
    Said,
    Say,
    TalkLine,
    TalkSetting,
    VoteFinish,
    WatchRoom,
)
from server.adapters.store.sqlite import SqliteStore
from server.core.room.records import EveningRecord, TalkRecord
from server.core.room.talk import with_game, with_line
from server.core.settings import HubSettings
from tests.server.core._roomkit import Peer, RoomKit, seated

MANY = HubSettings(say_burst=1000, react_burst=1000)
"""Rates no test of who-may-what reaches."""


def _table(kit: RoomKit, talk: TalkSetting) -> tuple[Peer, Peer, Peer]:
    """Ann and Ben at a two-seat table of ``talk``, and a spectator."""
    ann, ben = seated(kit, talk=talk)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    return ann, ben, watcher


# (setting, sender, message kind) -> allowed
_MAY = {
    (TalkSetting.ALL, "seat"): {"say", "react"},
    (TalkSetting.ALL, "spectator"): {"say", "react"},
    (TalkSetting.PLAYERS, "seat"): {"say", "react"},
    (TalkSetting.PLAYERS, "spectator"): {"react"},
    (TalkSetting.REACTIONS, "seat"): {"react"},
    (TalkSetting.REACTIONS, "spectator"): {"react"},
    (TalkSetting.OFF, "seat"): set(),
    (TalkSetting.OFF, "spectator"): set(),
}


@pytest.mark.parametrize(("talk", "who"), sorted(_MAY))
def test_who_may_say_and_react_in_each_setting(talk: TalkSetting, who: str) -> None:
    kit = RoomKit(MANY)
    ann, ben, watcher = _table(kit, talk)
    sender = ann if who == "seat" else watcher
    seat = 0 if who == "seat" else None
    for kind, message in (
        ("say", Say(text=" Good game! ")),
        ("react", React(reaction=Reaction.CLAP)),
    ):
        marks = [len(peer.inbox) for peer in (ann, ben, watcher)]
        kit.send(sender, message)
        news = [peer.inbox[mark:] for peer, mark in zip((ann, ben, watcher), marks, strict=True)]
        if kind in _MAY[talk, who]:
            expected = (
                Said(seq=0, seat=seat, text="Good game!")
                if kind == "say"
                else Reacted(seq=0, seat=seat, reaction=Reaction.CLAP)
            )
            for got in news:  # everyone at the table hears it, the sender too
                assert len(got) == 1
                heard: Any = got[0]
                assert dataclasses.replace(heard, seq=0) == expected
        else:
            assert [m.code for m in news[[ann, ben, watcher].index(sender)]] == [  # type: ignore[union-attr]
                ErrorCode.TALK_NOT_ALLOWED
            ]
            others = [
                got
                for peer, got in zip((ann, ben, watcher), news, strict=True)
                if peer is not sender
            ]
            assert others == [[], []]
    assert kit.room(ann).state(kit.now).talk_setting is talk


def test_the_server_talk_is_the_most_a_room_gets() -> None:
    kit = RoomKit(HubSettings(talk=TalkSetting.REACTIONS))
    ann, ben = seated(kit, talk=TalkSetting.ALL)
    assert ann.welcome.state.talk_setting is TalkSetting.REACTIONS
    kit.send(ann, Say(text="hello"))
    assert ann.errors() == [ErrorCode.TALK_NOT_ALLOWED]
    kit.send(ben, React(reaction=Reaction.WOW))
    assert ann.of(Reacted)[-1].reaction is Reaction.WOW
    # a room that asks for less keeps it
    other = RoomKit(HubSettings(talk=TalkSetting.ALL))
    cat, _ = seated(other, talk=TalkSetting.OFF)
    assert cat.welcome.state.talk_setting is TalkSetting.OFF


def test_a_lower_talk_after_a_restart_lowers_a_stored_room(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "war.sqlite3")
    kit = RoomKit(store=store)
    ann, _ = seated(kit, talk=TalkSetting.ALL)
    later = RoomKit(HubSettings(talk=TalkSetting.OFF), store=store)
    back = later.come_back(ann)
    assert back.welcome.state.talk_setting is TalkSetting.OFF
    later.send(back, React(reaction=Reaction.SAD))
    assert back.errors() == [ErrorCode.TALK_NOT_ALLOWED]
    store.close()


def test_rates_per_address_and_one_sender_does_not_slow_another() -> None:
    settings = HubSettings(say_rate=0.5, say_burst=3, react_rate=1.0, react_burst=2)
    kit = RoomKit(settings)
    ann, ben = kit.connect("10.0.0.1"), kit.connect("10.0.0.2")  # two households
    kit.send(ann, CreateRoom(name="Ann", talk=TalkSetting.ALL))
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    for number in range(3):
        kit.send(ann, Say(text=f"message {number}"))
    assert ann.errors() == []
    kit.send(ann, Say(text="one too many"))
    assert ann.errors() == [ErrorCode.RATE_LIMITED]
    assert "wait 2.0 s" in ann.inbox[-1].message  # type: ignore[union-attr]
    kit.send(ben, Say(text="Ben is not held back"))  # his bucket is his own
    assert ben.errors() == []
    kit.send(ann, React(reaction=Reaction.LAUGH))  # reactions have their own bucket
    kit.send(ann, React(reaction=Reaction.LAUGH))
    kit.send(ann, React(reaction=Reaction.LAUGH))
    assert ann.errors() == [ErrorCode.RATE_LIMITED, ErrorCode.RATE_LIMITED]
    kit.advance(2.0)  # one more message a second later… two seconds at 0.5 a second
    kit.send(ann, Say(text="again"))
    assert len(ann.errors()) == 2
    said = [m.text for m in ben.of(Said)]
    assert said == ["message 0", "message 1", "message 2", "Ben is not held back", "again"]
    assert len(ann.of(Reacted)) == 2
    assert ann.closed is None  # a talk refusal leaves the connection open


def test_the_room_keeps_the_last_50_and_a_late_joiner_sees_them() -> None:
    kit = RoomKit(MANY)
    ann, ben, _ = _table(kit, TalkSetting.ALL)
    reactions = list(Reaction)
    for number in range(MAX_TALK + 10):
        if number % 2:
            kit.send(ben, Say(text=f"line {number}"))
        else:
            kit.send(ann, React(reaction=reactions[number % len(reactions)]))
    late = kit.connect()
    kit.send(late, WatchRoom(code=ann.welcome.watch_code or ""))
    talk = late.welcome.state.talk
    assert len(talk) == MAX_TALK
    first = 10
    assert talk[0] == TalkLine(seat=0, reaction=reactions[first % len(reactions)])
    assert talk[1] == TalkLine(seat=1, text="line 11")
    assert talk[-1] == TalkLine(seat=1, text=f"line {MAX_TALK + 9}")
    assert ann.gaps == [] and late.gaps == []  # talk is numbered like every room message


def _three_games(kit: RoomKit, ann: Peer, ben: Peer) -> list[GameOver]:
    overs: list[GameOver] = []
    for game in range(3):
        kit.send(ann, VoteFinish())
        kit.send(ben, VoteFinish())
        kit.run_until(kit.now + 5, stop=lambda: bool(ann.of(GameOver)[len(overs) :]))
        overs.append(ann.of(GameOver)[-1])
        if game < 2:
            kit.send(ann, Rematch(deal=RematchDeal.NEW))
            kit.send(ben, Rematch(deal=RematchDeal.SAME))
    return overs


def test_the_evening_across_rematches_and_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    kit = RoomKit(MANY, store=store)
    ann, ben = seated(kit, deal=11, talk=TalkSetting.ALL)
    kit.send(ben, Say(text="Good luck, Grandma"))
    overs = _three_games(kit, ann, ben)
    assert [len(over.evening) for over in overs] == [1, 2, 3]
    evening = overs[-1].evening
    assert [entry.game for entry in evening] == [1, 2, 3]
    assert evening[0].deal == 11
    for entry, over in zip(evening, overs, strict=True):
        assert entry.winner == over.winner
        assert entry.termination is over.termination
        assert entry.rounds == over.summary.rounds
        assert entry.deal == over.summary.deal
        assert entry.names == ("Ann", "P1")
    kit.send(ann, React(reaction=Reaction.ONE_MORE))
    store.close()  # a restart: a new hub from what the store holds
    again = SqliteStore(path)
    later = RoomKit(MANY, store=again)
    back = later.come_back(ben)
    state = back.welcome.state
    assert state.evening == evening
    assert state.talk == (
        TalkLine(seat=1, text="Good luck, Grandma"),
        TalkLine(seat=0, reaction=Reaction.ONE_MORE),
    )
    # the talk's seq survived (no going back): the resume's connection_changed is the next
    assert back.welcome.seq == kit.room(ann).seq + 1
    # a room that is removed takes its talk and evening with it
    later.send(back, Leave())
    other = later.come_back(ann)
    later.send(other, Leave())
    assert later.hub.rooms == 0
    again.close()
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM talk").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM evening").fetchone() == (0,)
    db.close()


def test_a_talk_line_is_one_small_insert_not_a_room_row(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    kit = RoomKit(MANY, store=store)
    ann, _ = seated(kit, talk=TalkSetting.ALL)
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    kit.send(ann, Say(text="hello"))
    writes = [s for s in statements if s.split()[0] in {"INSERT", "UPDATE", "DELETE"}]
    assert len(writes) == 1 and writes[0].startswith("INSERT INTO talk")
    store._db.set_trace_callback(None)
    store.close()


def test_the_windows_keep_the_last_50_lines_and_the_last_100_games() -> None:
    games: tuple[EveningRecord, ...] = ()
    for number in range(1, 131):
        games = with_game(games, EveningRecord(number, number, None, "time_limit", 3, ("A",)))
    assert [entry.game for entry in games] == list(range(31, 131))
    assert with_game(games, games[-1]) is games  # a game is noted once
    lines: tuple[TalkRecord, ...] = ()
    for seq in range(1, 61):
        lines = with_line(lines, TalkRecord(seq, 0.0, None, reaction="clap"))
    assert [line.seq for line in lines] == list(range(11, 61))


def test_talk_is_never_logged() -> None:
    with capture_logs() as lines:
        kit = RoomKit(MANY, logger=structlog.get_logger())
        ann, ben = kit.connect(), kit.connect()
        kit.send(ann, CreateRoom(name="Ann", talk=TalkSetting.ALL))
        kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
        kit.send(ben, Say(text="a secret about Grandma"))
        kit.send(ann, React(reaction=Reaction.SCARED))
    assert ben.of(Said)
    assert ann.of(Reacted)
    text = repr(lines)
    assert "Grandma" not in text and "scared" not in text
    assert [line["event"] for line in lines] == ["room_created", "seat_joined", "game_started"]


def test_an_out_player_still_talks() -> None:
    kit = RoomKit(MANY)
    rules = RulesSpec(players=3, face_down=3)
    ann, ben, cy = seated(kit, players=3, deal=7652, rules=rules)  # Cy runs short at step 6
    room = kit.room(ann)
    while 2 in room.game.active:
        step = room.game.steps
        for seat in room.waiting_for():
            kit.send((ann, ben, cy)[seat], Ready(step=step))
    assert room.state(kit.now).seats[2].out
    kit.send(cy, React(reaction=Reaction.OH_NO))
    kit.send(cy, Say(text="I am out, go on"))
    assert cy.errors() == []
    assert [m.text for m in ann.of(Said)] == ["I am out, go on"]
    assert ben.of(Reacted)[-1] == Reacted(
        seq=ben.of(Reacted)[-1].seq, seat=2, reaction=Reaction.OH_NO
    )
