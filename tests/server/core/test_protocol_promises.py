"""What protocol/PROTOCOL.md promises client authors, checked against the room core.

Each test names the section it holds the server to: the seat records after
``player_joined`` and ``player_left``, a finish vote's silent play-out, zero counts in
``cards_laid_down``, a repeated last card in ``face_up``, ``seconds_left`` before the
start, and the order of the messages of one step.
"""

from __future__ import annotations

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    CreateRoom,
    FinishVoted,
    GameOver,
    JoinRoom,
    Leave,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    Ready,
    ReadyChanged,
    Resync,
    RulesSpec,
    ServerMessage,
    ShortWar,
    Snapshot,
    VoteFinish,
    WaitingFor,
    WarDeclared,
)
from tests.server.core._roomkit import GAME_EVENTS, Peer, RoomKit, seated


def _snapshot(kit: RoomKit, peer: Peer) -> Snapshot:
    kit.send(peer, Resync())
    return peer.of(Snapshot)[-1]


def test_player_joined_seats_a_connected_person_or_a_quick_computer() -> None:
    kit = RoomKit()
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3), computers=1))
    assert ann.welcome.seq == 2  # the player_joined of seat 0 and of the computer
    computer = ann.welcome.state.seats[2]
    assert (computer.connected, computer.auto, computer.computer) == (False, AutoPlay.QUICK, True)
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    (joined,) = [m for m in ann.of(PlayerJoined) if m.seat == 1]
    seat = _snapshot(kit, ann).state.seats[1]
    assert (joined.name, joined.computer) == ("Ben", False)
    assert (seat.connected, seat.auto, seat.ready, seat.finish_vote) == (
        True,
        AutoPlay.OFF,
        False,
        False,
    )


def test_player_left_hands_the_seat_to_the_computer_once_started() -> None:
    kit = RoomKit()
    ann, _ben, cy = seated(kit, players=3)
    kit.send(cy, Ready(step=0))
    kit.send(cy, VoteFinish())
    kit.send(cy, Leave())
    left = ann.room_messages()[-2:]
    assert left == [
        PlayerLeft(seq=left[0].seq, seat=2),
        AutoPlayChanged(seq=left[0].seq + 1, seat=2, mode=AutoPlay.QUICK),
    ]
    seat = _snapshot(kit, ann).state.seats[2]
    assert (seat.name, seat.computer, seat.connected, seat.auto) == (
        "P2",
        True,
        False,
        AutoPlay.QUICK,
    )
    assert (seat.finish_vote, seat.ready) == (False, True)  # its vote dropped, its flag kept


def test_a_finish_vote_plays_out_silently_and_game_over_says_the_rest() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=90210)
    kit.play_round_robin([ann, ben], max_steps=5)
    mark = len(ben.inbox)
    kit.send(ann, VoteFinish())
    kit.send(ben, VoteFinish())
    after = ben.inbox[mark:]
    assert [type(m) for m in after] == [FinishVoted, FinishVoted, GameOver, WaitingFor]
    over = ben.of(GameOver)[-1]
    assert over.step > 5  # it jumps: no event for the steps played out
    state = _snapshot(kit, ben).state
    assert state.step == over.step
    assert state.round == over.summary.rounds
    assert state.deal == over.summary.deal == 90210
    assert [seat.count for seat in state.seats] == list(over.counts)
    assert [seat.out for seat in state.seats] == [count == 0 for count in over.counts]


def _play_to(kit: RoomKit, peers: list[Peer], step: int) -> None:
    kit.play_round_robin(peers, max_steps=step)
    assert kit.room(peers[0]).game.steps == step


def test_cards_laid_down_lists_a_seat_that_lays_none_and_face_up_lists_a_repeat_once() -> None:
    # deal 460 with the last-card rule: at step 434 seat 1 is out of cards in a war and
    # turns its last card again, which ties: the table stays, a double war follows
    kit = RoomKit()
    rules = RulesSpec(short_war=ShortWar.LAST_CARD)
    ann, ben = seated(kit, deal=460, rules=rules)
    _play_to(kit, [ann, ben], 433)
    mark = len(ann.inbox)
    _play_to(kit, [ann, ben], 434)
    laid = [m for m in ann.inbox[mark:] if isinstance(m, CardsLaidDown)]
    turned = [m for m in ann.inbox[mark:] if isinstance(m, CardsTurned)]
    assert laid[-1].counts == ((0, 1), (1, 0))
    repeated = dict(turned[-1].cards)[1]
    seats = _snapshot(kit, ann).state.seats
    assert seats[1].face_up == (repeated,)  # turned twice, listed once
    assert seats[1].count == 0 and not seats[1].out


def test_seconds_left_is_nil_until_the_game_starts() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", minutes=5))
    assert ann.welcome.state.seconds_left is None
    ben = kit.connect()
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    assert ben.welcome.state.seconds_left is None  # the welcome comes before game_started
    assert _snapshot(kit, ben).state.seconds_left == 300


_FIRST_FLIP_ENDS = {WarDeclared, CardsTaken}
_AFTER_A_ROUND = {PlayerOut, GameOver}


def _check_step(messages: list[ServerMessage]) -> None:
    """One step's room messages, as PROTOCOL.md §5 "Order of messages" says."""
    assert isinstance(messages[-1], WaitingFor), messages
    events = messages[:-1]
    assert events and all(isinstance(m, GAME_EVENTS) for m in events), messages
    kinds = [type(m) for m in events]
    ends = [i for i, kind in enumerate(kinds) if kind in (CardsTaken, CardsReturned)]
    if ends:  # a round ended: only players out and the end may follow
        assert len(ends) == 1
        assert set(kinds[ends[0] + 1 :]) <= _AFTER_A_ROUND
        outs = [m.seat for m in events[ends[0] + 1 :] if isinstance(m, PlayerOut)]
        assert outs == sorted(outs)
        if GameOver in kinds:
            assert kinds[-1] is GameOver
        kinds = kinds[: ends[0] + 1]
    if kinds[0] is CardsTurned:  # a round's first flip
        assert len(kinds) == 2 and kinds[1] in _FIRST_FLIP_ENDS, kinds
        return
    short = [m.seat for m in events if isinstance(m, PlayerOut) and m.reason == "short_war"]
    assert short == sorted(short)
    rest = [kind for kind in kinds if kind is not PlayerOut]
    assert rest in (
        [CardsLaidDown, CardsTurned, WarDeclared],
        [CardsLaidDown, CardsTurned, CardsTaken],
        [CardsLaidDown, CardsTaken],
        [CardsReturned],
    ), kinds


def test_the_messages_of_every_step_come_in_the_documented_order() -> None:
    checked = 0
    for players, deal, short_war in ((2, 90210, ShortWar.LOSE), (3, 4, ShortWar.LOSE)):
        kit = RoomKit()
        rules = RulesSpec(players=players, face_down=3, short_war=short_war)
        peers = seated(kit, players=players, deal=deal, rules=rules)
        room = kit.room(peers[0])
        watcher = peers[0]
        while room.game.outcome is None:
            step = room.game.steps
            awaited = room.waiting_for()
            by_seat = {room.seat_of(p.conn): p for p in peers}
            for seat in awaited[:-1]:
                mark = len(watcher.inbox)
                kit.send(by_seat[seat], Ready(step=step))
                assert [type(m) for m in watcher.inbox[mark:]] == [ReadyChanged, WaitingFor]
            mark = len(watcher.inbox)
            kit.send(by_seat[awaited[-1]], Ready(step=step))
            _check_step(watcher.inbox[mark:])
            checked += 1
    assert checked > 100
