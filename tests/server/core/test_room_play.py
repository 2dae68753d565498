"""Playing a game through the hub with a fake clock: ready, steps, wars, spectators, computer."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from protocol import (
    AutoPlay,
    CardsTurned,
    ClientMessage,
    CreateRoom,
    Error,
    GameOver,
    GameStarted,
    JoinRoom,
    Ready,
    ReadyChanged,
    RoomPhase,
    RulesSpec,
    ServerMessage,
    SetAutoPlay,
    WaitingFor,
    WarDeclared,
    WatchRoom,
)
from server import engine
from server.core.room import Room
from tests.server.core._roomkit import Bench, Peer, error_codes


def expected_events(rules: engine.Rules, deal: int) -> list[tuple[Any, ...]]:
    """The engine's events for a whole game, as (type, step, fields…) tuples."""
    game = engine.Game(rules, deal)
    out: list[tuple[Any, ...]] = []
    while game.outcome is None:
        for event in game.step():
            out.append(_event_key(event, game, rules))
    return out


def _event_key(event: engine.Event, game: engine.Game, rules: engine.Rules) -> tuple[Any, ...]:
    step = game.steps
    if isinstance(event, engine.CardsTurned):
        labels = tuple((s, engine.card_label(c, rules)) for s, c in event.cards)
        return ("cards_turned", step, event.round, event.depth, labels)
    if isinstance(event, engine.CardsLaidDown):
        return ("cards_laid_down", step, event.round, event.depth, event.counts)
    if isinstance(event, engine.WarDeclared):
        return ("war_declared", step, event.round, event.depth, event.seats)
    if isinstance(event, engine.CardsTaken):
        return ("cards_taken", step, event.round, event.seat, event.count, event.counts)
    if isinstance(event, engine.CardsReturned):
        return ("cards_returned", step, event.round, event.counts)
    if isinstance(event, engine.PlayerOut):
        return ("player_out", step, event.round, event.seat, event.reason)
    assert isinstance(event, engine.GameOver)
    summary = event.summary
    figures = (summary.rounds, summary.wars, summary.longest_war, summary.biggest_haul)
    winner, why = event.outcome.winner, event.outcome.termination.value
    return ("game_over", step, winner, why, figures, summary.deal, game.counts)


def message_key(message: ServerMessage) -> tuple[Any, ...] | None:
    """The same tuple for a game event message, None for other messages."""
    m: Any = message
    match m.TYPE:
        case "cards_turned":
            return ("cards_turned", m.step, m.round, m.depth, m.cards)
        case "cards_laid_down":
            return ("cards_laid_down", m.step, m.round, m.depth, m.counts)
        case "war_declared":
            return ("war_declared", m.step, m.round, m.depth, m.seats)
        case "cards_taken":
            return ("cards_taken", m.step, m.round, m.seat, m.count, m.counts)
        case "cards_returned":
            return ("cards_returned", m.step, m.round, m.counts)
        case "player_out":
            return ("player_out", m.step, m.round, m.seat, m.reason.value)
        case "game_over":
            s = m.summary
            figures = (s.rounds, s.wars, s.longest_war, s.biggest_haul)
            return ("game_over", m.step, m.winner, m.termination.value, figures, s.deal, m.counts)
    return None


def game_events(peer: Peer) -> list[tuple[Any, ...]]:
    return [key for m in peer.inbox if (key := message_key(m)) is not None]


def seated(bench: Bench, players: int = 2, deal: int | None = 90210, **create: Any) -> list[Peer]:
    """A room of ``players`` humans, every seat taken: [creator, joiner, …]."""
    peers = [bench.connect() for _ in range(players)]
    rules = create.pop("rules", RulesSpec(players=players))
    bench.send(peers[0], CreateRoom(name="Ann", rules=rules, deal=deal, **create))
    code = peers[0].welcome.player_code
    assert code is not None
    for number, peer in enumerate(peers[1:], start=1):
        bench.send(peer, JoinRoom(code=code, name=f"P{number}"))
    return peers


def test_full_two_player_game_matches_the_engine_and_everyone_sees_it() -> None:
    bench = Bench()
    ann, ben = seated(bench, deal=90210)
    watcher = bench.connect()
    bench.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    started = ann.of(GameStarted)
    assert started == [GameStarted(seq=started[0].seq, game=1, counts=(26, 26), deal=90210)]
    bench.play_round_robin([ann, ben])
    room = bench.room(ann)
    assert room.phase is RoomPhase.OVER
    expected = expected_events(engine.Rules(), 90210)
    assert game_events(ann) == expected
    assert game_events(ben) == expected
    assert game_events(watcher) == expected
    # the same room messages, in the same order, from the watcher's welcome on
    since = watcher.welcome.seq
    tail = [m for m in ann.room_messages() if m.seq > since]
    assert watcher.room_messages() == tail
    assert ben.room_messages() == [m for m in ann.room_messages() if m.seq > ben.welcome.seq]
    for peer in (ann, ben, watcher):
        assert peer.gaps == []
        assert peer.errors() == []
    assert ann.inbox[-1] == WaitingFor(seq=room.seq, seats=())
    assert isinstance(ann.inbox[-2], GameOver)


def test_the_ready_sequence_of_the_protocol_document() -> None:
    bench = Bench()
    ann, ben = seated(bench)
    assert [m.TYPE for m in ann.take()[-3:]] == ["player_joined", "game_started", "waiting_for"]
    ben.take()
    bench.send(ann, Ready(step=0))
    seq = bench.room(ann).seq
    assert ann.take() == [
        ReadyChanged(seq=seq - 1, seat=0, ready=True),
        WaitingFor(seq=seq, seats=(1,)),
    ]
    ben.take()
    bench.send(ben, Ready(step=0))
    after = ben.take()
    assert isinstance(after[0], CardsTurned)
    assert after[0].step == 1
    assert not any(isinstance(m, ReadyChanged) for m in after)  # the last ready just steps
    assert isinstance(after[-1], WaitingFor)
    assert after[-1].seats == (0, 1)
    assert bench.room(ann).state(bench.now).seats[0].ready is False


def test_refused_readies_harm_nobody() -> None:
    bench = Bench()
    ann, ben = seated(bench)
    watcher = bench.connect()
    bench.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    room = bench.room(ann)
    bench.send(ann, Ready(step=0))
    for peer in (ann, ben, watcher):
        peer.take()
    before = room.state(bench.now)
    refused: list[tuple[Peer, ClientMessage, str]] = [
        (ann, Ready(step=0), "already_ready"),
        (ann, Ready(step=5), "stale"),
        (ben, Ready(step=1), "stale"),
        (watcher, Ready(step=0), "not_seated"),
        (watcher, SetAutoPlay(mode=AutoPlay.QUICK), "not_seated"),
    ]
    for peer, message, code in refused:
        actions = bench.send(peer, message)
        assert error_codes(actions) == [code]
        assert peer.closed is None
    assert room.state(bench.now) == before
    assert ann.errors() == ["already_ready", "stale"]
    assert ben.errors() == ["stale"]
    assert watcher.errors() == ["not_seated", "not_seated"]
    for peer in (ann, ben, watcher):  # each got its own error and nothing else
        assert all(isinstance(m, Error) for m in peer.inbox)
    # and the game goes on: a ready from a stale tap after the step is refused, never doubled
    bench.send(ben, Ready(step=0))
    assert room.game.steps == 1
    assert error_codes(bench.send(ben, Ready(step=0))) == ["stale"]
    assert room.game.steps == 1


def test_ready_before_the_seats_are_filled_and_after_game_over() -> None:
    bench = Bench()
    ann = bench.connect()
    bench.send(ann, CreateRoom(name="Ann", deal=3))
    assert error_codes(bench.send(ann, Ready(step=0))) == ["game_not_started"]
    ben = bench.connect()
    bench.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    bench.play_round_robin([ann, ben])
    room = bench.room(ann)
    assert error_codes(bench.send(ann, Ready(step=room.game.steps))) == ["game_over"]
    assert error_codes(bench.send(ann, SetAutoPlay(mode=AutoPlay.CALM))) == ["game_over"]


def _three_way_war_deal() -> int:
    """The first deal whose first flip ties three of four players (searched, bounded)."""
    for deal in range(20_000):
        events = engine.Game(engine.Rules(players=4), deal).step()
        if any(isinstance(e, engine.WarDeclared) and len(e.seats) == 3 for e in events):
            return deal
    raise AssertionError("no three-way war in the first 20,000 deals")


def test_four_players_with_a_three_way_war() -> None:
    deal = _three_way_war_deal()
    bench = Bench()
    peers = seated(bench, players=4, deal=deal)
    room = bench.room(peers[0])
    for peer in peers:
        bench.send(peer, Ready(step=0))
    war = [m for m in peers[0].inbox if isinstance(m, WarDeclared)]
    assert len(war) == 1
    assert len(war[0].seats) == 3
    (outside,) = set(range(4)) - set(war[0].seats)
    state = room.state(bench.now)
    assert (state.war_depth, state.war_seats) == (1, war[0].seats)
    assert state.waiting_for == war[0].seats
    assert error_codes(bench.send(peers[outside], Ready(step=1))) == ["not_needed"]
    for seat in war[0].seats:
        bench.send(peers[seat], Ready(step=1))
    assert room.game.steps == 2
    bench.play_round_robin(peers)
    assert game_events(peers[3]) == expected_events(engine.Rules(players=4), deal)
    for peer in peers:
        assert peer.gaps == []


def test_a_computer_opponent_readies_after_its_delay_and_plays_a_whole_game() -> None:
    bench = Bench()
    ann = bench.connect()
    bench.send(ann, CreateRoom(name="Ann", deal=11, computers=1))
    room = bench.room(ann)
    state = ann.welcome.state
    assert state.phase is RoomPhase.WAITING  # the welcome is before the start
    assert state.seats[1].computer and state.seats[1].name == "Computer"
    assert room.phase is RoomPhase.PLAYING
    start = bench.now
    assert bench.hub.next_deadline() == pytest.approx(start + 0.6)
    bench.advance(0.5)
    assert room.waiting_for() == (0, 1)
    bench.advance(0.1)
    assert room.waiting_for() == (0,)
    bench.send(ann, Ready(step=0))
    assert room.game.steps == 1
    bench.send(ann, SetAutoPlay(mode=AutoPlay.QUICK))
    bench.run_until(bench.now + 100_000, stop=lambda: room.phase is RoomPhase.OVER)
    assert game_events(ann) == expected_events(engine.Rules(), 11)
    assert ann.gaps == []


def test_auto_play_paces_calm_and_quick() -> None:
    bench = Bench()
    ann, ben = seated(bench, deal=5)
    room = bench.room(ann)
    bench.send(ann, SetAutoPlay(mode=AutoPlay.QUICK))
    bench.send(ben, SetAutoPlay(mode=AutoPlay.CALM))
    times = []
    for _ in range(4):
        _run_one_step(bench, room)
        times.append(bench.now)
    gaps = [round(b - a, 6) for a, b in pairwise(times)]
    assert gaps == [1.5, 1.5, 1.5]  # the calm seat sets the pace
    bench.send(ben, SetAutoPlay(mode=AutoPlay.QUICK))
    mark = bench.now
    _run_one_step(bench, room)
    assert bench.now - mark == pytest.approx(0.3)
    bench.send(ann, SetAutoPlay(mode=AutoPlay.OFF))
    step = room.game.steps
    bench.advance(60)
    assert room.game.steps == step  # the game waits for Ann now
    assert room.waiting_for() == (0,)


def _run_one_step(bench: Bench, room: Room) -> None:
    step = room.game.steps
    bench.run_until(bench.now + 10, stop=lambda: room.game.steps != step)
    assert room.game.steps == step + 1
