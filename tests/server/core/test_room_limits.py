"""Round and time limits, the finish vote and rematches, with a fake clock."""

from __future__ import annotations

import pytest

from protocol import (
    AutoPlay,
    CreateRoom,
    FinishVoted,
    GameOver,
    GameStarted,
    Ready,
    Rematch,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    RulesSpec,
    SetAutoPlay,
    Termination,
    TieBreak,
    TimeUp,
    VoteFinish,
    WatchRoom,
)
from server import engine
from tests.server.core._roomkit import (
    Peer,
    RoomKit,
    error_codes,
    expected_events,
    game_events,
    seated,
)


def _war_at_first_flip(rules: engine.Rules) -> int:
    for deal in range(5_000):
        events = engine.Game(rules, deal).step()
        if any(isinstance(e, engine.WarDeclared) for e in events):
            return deal
    raise AssertionError("no war at the first flip in 5,000 deals")


def _both_quick(kit: RoomKit, peers: list[Peer]) -> None:
    for peer in peers:
        kit.send(peer, SetAutoPlay(mode=AutoPlay.QUICK))


def test_round_limit_ends_the_game_by_counts() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=77, rules=RulesSpec(round_limit=26))
    room = kit.room(ann)
    _both_quick(kit, [ann, ben])
    kit.run_until(kit.now + 10_000, stop=lambda: room.phase is RoomPhase.OVER)
    (over,) = ann.of(GameOver)
    assert over.termination is Termination.ROUND_LIMIT
    assert over.summary.rounds == 26
    assert game_events(ben) == expected_events(engine.Rules(round_limit=26), 77)


def test_time_limit_between_rounds_ends_the_game_at_the_deadline() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=8, minutes=2)
    room = kit.room(ann)
    start = kit.now
    assert room.state(kit.now).seconds_left == 120
    kit.send(ann, Ready(step=0))
    kit.send(ben, Ready(step=0))
    kit.advance(30.25)
    assert room.state(kit.now).seconds_left == 89
    assert kit.hub.next_deadline() == pytest.approx(start + 120)
    kit.run_until(start + 119.9)
    assert room.phase is RoomPhase.PLAYING
    if room.game.phase is engine.Phase.WAR:  # settle it so the stop ends the game at once
        for peer in (ann, ben):
            kit.send(peer, Ready(step=room.game.steps))
    kit.run_until(start + 120)
    assert kit.room(ann).phase is RoomPhase.OVER
    kinds = [m.TYPE for m in ann.inbox[-3:]]
    assert kinds == ["time_up", "game_over", "waiting_for"]
    (over,) = ann.of(GameOver)
    assert over.termination is Termination.TIME_LIMIT
    counts = room.game.counts
    assert over.winner == (None if counts[0] == counts[1] else counts.index(max(counts)))
    assert room.state(kit.now).seconds_left == 0


def test_time_limit_during_a_war_waits_for_the_round_to_finish() -> None:
    deal = _war_at_first_flip(engine.Rules())
    kit = RoomKit()
    ann, ben = seated(kit, deal=deal, minutes=1)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0))
    kit.send(ben, Ready(step=0))
    assert room.game.phase is engine.Phase.WAR
    kit.advance(60)
    assert ann.of(TimeUp) != []
    assert room.phase is RoomPhase.PLAYING  # the war is settled first
    assert kit.hub.next_deadline() is None
    while room.phase is RoomPhase.PLAYING:
        step = room.game.steps
        for peer in (ann, ben):
            kit.send(peer, Ready(step=step))
    (over,) = ann.of(GameOver)
    assert over.termination is Termination.TIME_LIMIT
    assert over.summary.rounds == 1


def test_time_limit_with_equal_counts_and_battle_tie_break_plays_on() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=21, minutes=1, rules=RulesSpec(tie_break=TieBreak.BATTLE))
    room = kit.room(ann)
    kit.advance(60)  # 26 against 26 when the time is up
    assert ann.of(TimeUp) != []
    assert room.phase is RoomPhase.PLAYING
    while room.phase is RoomPhase.PLAYING:
        step = room.game.steps
        for peer in (ann, ben):
            kit.send(peer, Ready(step=step))
    (over,) = ann.of(GameOver)
    assert over.termination is Termination.TIME_LIMIT
    assert over.winner is not None
    assert over.counts[0] != over.counts[1]


def test_finish_vote_plays_the_rest_out_when_every_human_voted() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=4242)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    room = kit.room(ann)
    for _ in range(3):
        for peer in (ann, ben):
            if room.seat_of(peer.conn) in room.waiting_for():
                kit.send(peer, Ready(step=room.game.steps))
    assert error_codes(kit.send(watcher, VoteFinish())) == ["not_seated"]
    kit.send(ben, VoteFinish())
    assert ann.of(FinishVoted)[-1].seat == 1
    assert room.state(kit.now).seats[1].finish_vote
    assert kit.send(ben, VoteFinish()) == []  # a second vote changes nothing
    assert room.phase is RoomPhase.PLAYING
    kit.send(ann, VoteFinish())
    assert kit.room(ann).phase is RoomPhase.OVER
    played_out = engine.Game(engine.Rules(), 4242)
    outcome = played_out.finish()
    (over,) = watcher.of(GameOver)
    assert (over.winner, over.termination.value) == (outcome.winner, outcome.termination.value)
    assert over.counts == played_out.counts
    assert over.step == played_out.steps
    assert over.summary.deal == 4242
    assert room.state(kit.now).result is not None
    assert error_codes(kit.send(ann, VoteFinish())) == ["game_over"]


def test_finish_vote_needs_no_vote_from_the_computer() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", computers=1))
    assert error_codes(kit.send(ann, Rematch(deal=RematchDeal.NEW))) == ["game_in_progress"]
    kit.send(ann, VoteFinish())
    assert kit.room(ann).phase is RoomPhase.OVER


def test_finish_vote_before_the_game_starts_is_refused() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    assert error_codes(kit.send(ann, VoteFinish())) == ["game_not_started"]
    assert error_codes(kit.send(ann, Rematch(deal=RematchDeal.SAME))) == ["game_not_started"]


def test_rematch_with_the_same_deal_replays_identically() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=None)  # the server picks: hidden until the end
    room = kit.room(ann)
    first_started = ann.of(GameStarted)[0]
    assert first_started.deal is None
    assert room.state(kit.now).deal is None
    kit.play_round_robin([ann, ben])
    first = game_events(ann)
    deal = ann.of(GameOver)[0].summary.deal
    assert room.state(kit.now).deal == deal
    kit.send(ann, Rematch(deal=RematchDeal.SAME))
    assert ann.of(RematchVoted)[-1].deal is RematchDeal.SAME
    assert room.phase is RoomPhase.OVER
    kit.send(ben, Rematch(deal=RematchDeal.SAME))
    started = ann.of(GameStarted)[-1]
    assert (started.game, started.deal, started.counts) == (2, deal, (26, 26))
    state = room.state(kit.now)
    assert (state.game, state.step, state.deal, state.phase) == (2, 0, deal, RoomPhase.PLAYING)
    assert all(s.rematch_vote is None and not s.finish_vote for s in state.seats)
    mark = len(ann.inbox)
    kit.play_round_robin([ann, ben])
    second = [key for key in game_events(ann)[len(first) :]]
    assert second == first
    assert ann.gaps == []
    assert len(ann.inbox) > mark


def test_rematch_with_a_new_deal_unless_every_vote_is_same() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=12)
    room = kit.room(ann)
    kit.send(ann, VoteFinish())
    kit.send(ben, VoteFinish())
    kit.send(ann, Rematch(deal=RematchDeal.SAME))
    kit.send(ben, Rematch(deal=RematchDeal.NEW))
    started = ann.of(GameStarted)[-1]
    assert started.game == 2
    assert started.deal is None
    assert room.game_record.deal != 12
    assert room.state(kit.now).deal is None
