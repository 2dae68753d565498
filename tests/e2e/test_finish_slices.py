"""A stranger's long finish vote never holds up another room (real app, loopback).

The stranger plays one seat against three computers with cards returned in a fixed
order and a round limit of a million, deal 374: the finish vote has 20,525 steps to play
out. The server plays them a slice at a time and the event loop serves other rooms
between two slices: a family's flip sent after the vote is answered, and the stranger's
own ``resync`` after that shows the game still being played out. (Before, the whole
play-out ran inside the vote's message and every other room waited for it.) The test
looks at the order things happen in, never at the clock; slices are made small here so
that the order is far from a close call.
"""

from __future__ import annotations

from pathlib import Path

from protocol import (
    CardsTurned,
    FinishVoted,
    GameOver,
    Ready,
    Resync,
    RoomPhase,
    Snapshot,
    VoteFinish,
)
from server import engine
from tests._kit.games import LONG_DEAL, LONG_RULES, LONG_STEPS
from tests.e2e._war import start_war


async def test_a_family_plays_while_a_stranger_finishes_a_long_game(tmp_path: Path) -> None:
    async with start_war(tmp_path, play_out_slice=64 * engine.STEP_WORK) as war:
        eve = await war.create("Eve", rules=LONG_RULES, deal=LONG_DEAL, computers=3)
        ann, ben = await war.table()
        await eve.send(VoteFinish())
        await eve.expect(FinishVoted)
        for player in (ann, ben):
            await player.send(Ready(step=player.step))
        await ann.expect(CardsTurned)
        await eve.send(Resync())
        snapshot = await eve.expect(Snapshot)
        assert snapshot.state.phase is RoomPhase.PLAYING
        assert snapshot.state.result is None
        assert snapshot.state.waiting_for == ()
        assert eve.of(GameOver) == []
        over = await eve.expect(GameOver, within=60)
        assert over.step == LONG_STEPS
