"""A finish vote's play-out goes a slice at a time: other rooms are served in between.

A room of one player and three computers, cards returned in a fixed order and a round
limit of a million, deal 374: finishing it plays 20,525 steps (about 150 ms in one go,
long enough for a stranger to stall every other room by voting and rematching in a
loop). These tests count engine steps per hub call, never time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from protocol import (
    CardsTurned,
    CreateRoom,
    Error,
    GameOver,
    Ready,
    Rematch,
    RematchDeal,
    Resync,
    RoomPhase,
    Snapshot,
    VoteFinish,
    WaitingFor,
)
from server import engine
from server.adapters.store.sqlite import SqliteStore
from server.core.room.phases import Stage
from server.core.room.room import Room
from server.core.room.wire import engine_rules
from server.core.settings import HubSettings
from tests._kit.games import LONG_DEAL, LONG_RULES, LONG_STEPS
from tests.server.core._roomkit import Peer, RoomKit, error_codes, seated

SLICE = HubSettings().play_out_slice
MOST_STEPS_PER_CALL = SLICE + engine.STEP_WORK + 26
"""A slice's budget in steps (each step costs at least one unit), and its overspend."""


def _long_room(kit: RoomKit, address: str = "198.51.100.7") -> Peer:
    """A stranger's room: seat 0 and three computers, playing the long deal."""
    peer = kit.connect(address)
    kit.send(peer, CreateRoom(name="Eve", rules=LONG_RULES, deal=LONG_DEAL, computers=3))
    assert kit.room(peer).phase is RoomPhase.PLAYING
    return peer


def _play_out(kit: RoomKit, room: Room) -> None:
    """Wake the hub at each deadline (slices are due right away) until ``room``'s game
    is over."""
    kit.run_until(math.inf, stop=lambda: room.game.outcome is not None)


class _Meter:
    """The most engine steps any one hub call of ``kit`` played (all rooms together)."""

    def __init__(self, kit: RoomKit) -> None:
        self.kit = kit
        self.most = 0
        self.calls = 0
        hub = kit.hub
        for name in ("handle", "wake", "disconnect", "refuse"):
            setattr(hub, name, self._wrap(getattr(hub, name)))

    def _wrap(self, call: Callable[..., list[object]]) -> Callable[..., list[object]]:
        def measured(*args: object) -> list[object]:
            before = self._played()
            actions = call(*args)
            self.most = max(self.most, self._played() - before)
            self.calls += 1
            return actions

        return measured

    def _played(self) -> int:
        seen: dict[str, Room] = {}
        for peer in self.kit.peers.values():
            if peer.last_welcome is not None:
                room = self.kit.hub.room(peer.welcome.state.room)
                if room is not None:
                    seen[room.room_id] = room
        return sum(room.game.steps for room in seen.values())


def test_another_room_plays_while_a_long_finish_goes_on() -> None:
    kit = RoomKit()
    meter = _Meter(kit)
    eve = _long_room(kit)
    ann, ben = seated(kit)
    kit.send(eve, VoteFinish())
    long_room = kit.room(eve)
    assert long_room.stage is Stage.FINISHING
    assert long_room.phase is RoomPhase.PLAYING  # on the wire: still playing
    assert eve.of(GameOver) == []
    # the family's flip is answered while the long game is still being played out
    kit.send(ann, Ready(step=0))
    kit.send(ben, Ready(step=0))
    assert ann.of(CardsTurned) and ben.of(CardsTurned)
    assert long_room.game.outcome is None
    _play_out(kit, long_room)  # the hub is woken at once, slice after slice
    (over,) = eve.of(GameOver)
    whole = engine.Game(engine_rules(LONG_RULES), LONG_DEAL)
    whole.finish()
    assert (over.step, over.winner, over.termination) == (
        whole.steps,
        whole.outcome.winner if whole.outcome else None,
        whole.outcome.termination if whole.outcome else None,
    )
    assert over.step == LONG_STEPS
    assert long_room.game.outcome is not None and long_room.waiting_for() == ()
    assert 0 < meter.most <= MOST_STEPS_PER_CALL
    assert meter.calls >= LONG_STEPS // MOST_STEPS_PER_CALL


def test_finishing_rooms_take_turns_one_slice_per_hub_call() -> None:
    kit = RoomKit()
    meter = _Meter(kit)
    strangers = [_long_room(kit, f"198.51.100.{n}") for n in range(1, 4)]
    for eve in strangers:
        kit.send(eve, VoteFinish())
    rooms = [kit.room(eve) for eve in strangers]
    assert all(room.stage is Stage.FINISHING for room in rooms)
    progress: list[tuple[int, ...]] = []
    while any(room.stage is Stage.FINISHING for room in rooms):
        kit.now += 0.000_01  # as the app's clock moves on between two wakes
        kit.apply(kit.hub.wake(kit.now))
        progress.append(tuple(room.game.steps for room in rooms))
    assert meter.most <= MOST_STEPS_PER_CALL
    # round robin: no room waits for another to finish first
    halfway = progress[len(progress) // 2]
    assert all(steps > LONG_STEPS // 4 for steps in halfway)
    assert all(len(eve.of(GameOver)) == 1 for eve in strangers)


def test_while_finishing_only_leave_resync_and_opening_are_accepted() -> None:
    kit = RoomKit()
    eve = _long_room(kit)
    kit.send(eve, VoteFinish())
    room = kit.room(eve)
    assert room.stage is Stage.FINISHING
    assert eve.of(WaitingFor)[-1].seats == ()  # nobody's ready is awaited any more
    assert room.state(kit.now).waiting_for == ()
    step = room.game.steps
    assert error_codes(kit.send(eve, Ready(step=step))) == ["game_over"]
    assert error_codes(kit.send(eve, VoteFinish())) == ["game_over"]
    assert error_codes(kit.send(eve, Rematch(deal=RematchDeal.SAME))) == ["game_in_progress"]
    (error,) = [m for m in eve.inbox if isinstance(m, Error)][-1:]
    assert error.message.startswith("cannot rematch while finishing: ")
    kit.send(eve, Resync())
    assert eve.of(Snapshot)[-1].state.phase is RoomPhase.PLAYING
    assert room.game.steps == step  # none of these played anything
    _play_out(kit, room)
    assert room.phase is RoomPhase.OVER


def test_repeated_finishes_from_one_address_are_paced() -> None:
    settings = HubSettings()
    kit = RoomKit(settings)
    eve = _long_room(kit)
    start = kit.now
    rounds = 6
    for _ in range(rounds):
        kit.send(eve, VoteFinish())
        kit.run_until(math.inf, stop=lambda: kit.room(eve).phase is RoomPhase.OVER)
        kit.send(eve, Rematch(deal=RematchDeal.SAME))
    assert len(eve.of(GameOver)) == rounds
    spent = rounds * LONG_STEPS * engine.STEP_WORK
    # the address's budget: a burst, then its rate
    fastest = (spent - settings.play_out_burst - SLICE - 64) / settings.play_out_rate
    assert kit.now - start >= fastest > 0


def test_many_addresses_together_are_held_to_the_servers_budget() -> None:
    settings = HubSettings()
    kit = RoomKit(settings)
    strangers = [_long_room(kit, f"198.51.100.{n}") for n in range(1, 9)]
    start = kit.now
    for eve in strangers:
        kit.send(eve, VoteFinish())
    rooms = [kit.room(eve) for eve in strangers]
    kit.run_until(math.inf, stop=lambda: all(room.phase is RoomPhase.OVER for room in rooms))
    spent = len(strangers) * LONG_STEPS * engine.STEP_WORK
    # each address is within its own burst; together they are beyond the server's
    assert settings.play_out_server_burst < spent < 8 * settings.play_out_burst
    fastest = (spent - settings.play_out_server_burst - 8 * SLICE) / settings.play_out_server_rate
    assert kit.now - start >= fastest > 0


def test_every_wake_moves_the_deadline_on_or_sends_something() -> None:
    """The app takes a wake that sends nothing and leaves the same past deadline for a
    bug (it then waits a second): play-out slices send nothing, so a wake must always
    move the earliest deadline on, whichever room takes its turn."""
    kit = RoomKit()
    paced = _long_room(kit, "198.51.100.1")
    for _ in range(2):  # spend that address's budget
        kit.send(paced, VoteFinish())
        kit.run_until(math.inf, stop=lambda: kit.room(paced).phase is RoomPhase.OVER)
        kit.send(paced, Rematch(deal=RematchDeal.SAME))
    others = [_long_room(kit, f"198.51.100.{n}") for n in range(2, 5)]
    for eve in (paced, *others):
        kit.send(eve, VoteFinish())
    rooms = [kit.room(eve) for eve in (paced, *others)]
    wakes = 0
    while any(room.stage is Stage.FINISHING for room in rooms):
        due = kit.hub.next_deadline()
        assert due is not None
        kit.now = max(kit.now + 0.001, due)
        actions = kit.apply(kit.hub.wake(kit.now))
        assert actions or kit.hub.next_deadline() != due
        wakes += 1
    assert wakes > 4 * LONG_STEPS // MOST_STEPS_PER_CALL


def test_another_address_is_not_slowed_by_a_paced_one() -> None:
    kit = RoomKit()
    eve = _long_room(kit)
    for _ in range(3):  # use up the stranger's budget
        kit.send(eve, VoteFinish())
        kit.run_until(math.inf, stop=lambda: kit.room(eve).phase is RoomPhase.OVER)
        kit.send(eve, Rematch(deal=RematchDeal.SAME))
    kit.send(eve, VoteFinish())
    ann = _long_room(kit, "203.0.113.9")
    kit.send(ann, VoteFinish())
    start = kit.now
    _play_out(kit, kit.room(ann))
    assert kit.now - start < 0.001  # without waiting for its budget
    assert kit.room(eve).stage is Stage.FINISHING


def test_the_vote_is_stored_before_the_play_out_and_a_restart_finishes_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.db"
    first = RoomKit(store=SqliteStore(path))
    eve = _long_room(first)
    first.send(eve, VoteFinish())
    room_id = eve.welcome.state.room
    assert first.room(eve).stage is Stage.FINISHING
    # kill -9 mid-finish: the store is abandoned, never closed
    second = RoomKit(store=SqliteStore(path), now=first.now + 5)
    rebuilt = second.hub.room(room_id)
    assert rebuilt is not None
    assert rebuilt.stage is Stage.OVER
    assert rebuilt.game.steps == LONG_STEPS
    again = second.resume(room_id, eve.welcome.token or "")
    state = again.welcome.state
    assert state.phase is RoomPhase.OVER
    assert state.result is not None and state.deal == LONG_DEAL


def test_a_short_finish_still_ends_in_the_call_that_voted() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.send(ann, VoteFinish())
    kit.send(ben, VoteFinish())
    assert kit.room(ann).phase is RoomPhase.OVER
    assert [type(m).__name__ for m in ben.room_messages()[-3:]] == [
        "FinishVoted",
        "GameOver",
        "WaitingFor",
    ]
