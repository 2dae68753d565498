"""war-client's fair-deal seeds (client/fair/seeds.py): a commitment with every opening and
rematch, the seed revealed with the first ready only where the table shows its
commitment, kept in the state file so that a client restarted between the commitment and
the reveal still reveals it."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from client.fair.seeds import Seeds
from client.net.connection import Received
from client.net.statefile import StateFile
from client.state.view import ViewState, apply
from protocol import (
    AutoPlay,
    CloseCode,
    CreateRoom,
    JoinRoom,
    Ready,
    ReadyChanged,
    Rematch,
    RematchDeal,
    ResumeSeat,
    RoomPhase,
    SetAutoPlay,
    VoteFinish,
    WaitingFor,
    Welcome,
)
from protocol.fairness import commitment
from tests.client._fake import TIMEOUT
from tests.client.test_connection import CODE, Peer, collect, fast, scripted, state

T1, T2 = "tok-1111111111111111", "tok-2222222222222222"


def test_an_opening_carries_a_fresh_commitment_and_the_first_ready_reveals_its_seed() -> None:
    seeds = Seeds()
    first = seeds.opening(CreateRoom(name="Ann"))
    again = Seeds().opening(CreateRoom(name="Ann"))
    assert isinstance(first, CreateRoom) and first.seed_commitment is not None
    assert first.seed_commitment != getattr(again, "seed_commitment", None)
    seeds.seated(1)
    seed = seeds.mine(1)
    assert seed is not None and commitment(seed) == first.seed_commitment
    shown = first.seed_commitment
    assert seeds.outgoing(Ready(step=0), 1, 0, shown) == Ready(step=0, seed=seed.hex())
    assert seeds.outgoing(Ready(step=3), 1, 3, shown) == Ready(step=3)  # only the first
    other = commitment(bytes(32))
    assert seeds.outgoing(Ready(step=0), 1, 0, other) == Ready(step=0)  # not my commitment
    assert seeds.outgoing(Ready(step=0), 1, 0, None) == Ready(step=0)  # dropped, or none


def test_a_rematch_commits_to_the_next_games_seed_and_keeps_it() -> None:
    seeds = Seeds()
    seeds.opening(JoinRoom(code=CODE, name="Ben"))
    seeds.seated(1)
    vote = seeds.outgoing(Rematch(deal=RematchDeal.NEW), 1, 40)
    again = seeds.outgoing(Rematch(deal=RematchDeal.SAME), 1, 40)
    assert isinstance(vote, Rematch) and vote.seed_commitment is not None
    assert isinstance(again, Rematch) and again.seed_commitment == vote.seed_commitment
    second = seeds.mine(2)
    assert second is not None and commitment(second) == vote.seed_commitment
    assert seeds.latest() == (second.hex(), 2)
    restored = Seeds()
    restored.restore(second.hex(), 2)
    restored.restore("not hex", 3)
    assert restored.mine(2) == second and restored.mine(3) is None


def test_turning_auto_play_on_before_the_first_ready_reveals_first() -> None:
    seeds = Seeds()
    opening = seeds.opening(JoinRoom(code=CODE, name="Ben"))
    seeds.seated(1)
    assert isinstance(opening, JoinRoom)
    view = apply(ViewState(), _welcome(T1, opening.seed_commitment, AutoPlay.OFF))
    assert view.my_turn and view.step == 0
    shown = opening.seed_commitment
    assert seeds.auto_first(SetAutoPlay(mode=AutoPlay.QUICK), view, shown)
    assert not seeds.auto_first(SetAutoPlay(mode=AutoPlay.OFF), view, shown)
    assert not seeds.auto_first(SetAutoPlay(mode=AutoPlay.QUICK), view, None)  # not mine
    on_auto = apply(ViewState(), _welcome(T1, opening.seed_commitment, AutoPlay.QUICK))
    assert seeds.reveal_due(on_auto, opening.seed_commitment) == Ready(step=0)
    assert seeds.reveal_due(on_auto, opening.seed_commitment) is None  # once a game


def _welcome(token: str, committed: str | None, auto: AutoPlay) -> Welcome:
    base = state()
    seats = list(base.seats)
    seats[1] = dataclasses.replace(seats[1], seed_commitment=committed, auto=auto)
    room = dataclasses.replace(
        base, seats=tuple(seats), phase=RoomPhase.PLAYING, step=0, waiting_for=(0, 1)
    )
    return Welcome(seq=3, seat=1, token=token, player_code=CODE, watch_code="9HWT-2CBN", state=room)


async def test_a_client_restarted_between_commit_and_reveal_still_reveals(tmp_path: Path) -> None:
    seats = StateFile(tmp_path / "state.json")
    sent: list[str | None] = []

    async def first(peer: Peer) -> None:
        assert await peer.receive() == JoinRoom(code=CODE, name="Ben")
        sent.extend(peer.commitments)
        await peer.send(_welcome(T1, peer.commitments[0], AutoPlay.OFF))
        await peer.close(CloseCode.REPLACED)

    async def after_the_restart(peer: Peer) -> None:
        assert await peer.receive() == ResumeSeat(room="r8k2", token=T1)
        await peer.send(_welcome(T2, sent[0], AutoPlay.QUICK))
        ready = await peer.receive()
        assert isinstance(ready, Ready) and ready.step == 0 and ready.seed is not None
        assert commitment(bytes.fromhex(ready.seed)) == sent[0]
        await peer.close(CloseCode.ROOM_CLOSED)

    async with scripted(first, after_the_restart) as url:
        await collect(fast(url, JoinRoom(code=CODE, name="Ben"), seats=seats))
        stored = seats.get(url, CODE, "Ben")
        assert stored is not None and stored.seed is not None and stored.seed_game == 1
        await collect(fast(url, JoinRoom(code=CODE, name="Ben"), seats=seats))


def test_a_finish_vote_before_the_first_ready_reveals_first() -> None:
    """Issue 31: a finish plays the deal out, and the deal waits for every committed seed;
    a vote before this seat's first turn-over sends its seed first, with a ready."""
    seeds = Seeds()
    opening = seeds.opening(JoinRoom(code=CODE, name="Ben"))
    seeds.seated(1)
    assert isinstance(opening, JoinRoom)
    view = apply(ViewState(), _welcome(T1, opening.seed_commitment, AutoPlay.OFF))
    shown = opening.seed_commitment
    assert seeds.auto_first(VoteFinish(), view, shown)
    assert not seeds.auto_first(VoteFinish(), view, None)  # not my commitment: no seed
    readied = apply(view, ReadyChanged(seq=4, seat=1, ready=True))
    readied = apply(readied, WaitingFor(seq=5, seats=(0,)))
    assert not seeds.auto_first(VoteFinish(), readied, shown)  # revealed with its ready


async def test_war_client_sends_its_seed_with_its_finish_vote() -> None:
    """Through the connection: the vote goes after a ready that carries the seed."""
    got: list[object] = []

    async def server(peer: Peer) -> None:
        await peer.receive()
        await peer.send(_welcome(T1, peer.commitments[0], AutoPlay.OFF))
        got.extend([await peer.receive(), await peer.receive()])
        got.append(peer.commitments[0])
        await peer.close(CloseCode.ROOM_CLOSED)

    async with scripted(server) as url:
        link = fast(url, JoinRoom(code=CODE, name="Ben"))

        async def run() -> None:
            async for event in link.events():
                if isinstance(event, Received) and isinstance(event.message, Welcome):
                    assert await link.send(VoteFinish())

        await asyncio.wait_for(run(), TIMEOUT)
    ready, vote, committed = got
    assert isinstance(ready, Ready) and ready.step == 0 and ready.seed is not None
    assert commitment(bytes.fromhex(ready.seed)) == committed
    assert vote == VoteFinish()
