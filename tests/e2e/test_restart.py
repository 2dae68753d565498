"""Durability with the real `war-server` process: kill -9 mid-game, and SIGTERM.

A game is its rules + deal + steps played, stored before each step is broadcast, so after
any restart every client resumes exactly where it was, and the game still ends as the
engine says it must.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol import (
    CloseCode,
    CreateRoom,
    GameOver,
    GameStarted,
    JoinRoom,
    ResumeSeat,
    RulesSpec,
    VoteFinish,
    WaitingFor,
    WatchRoom,
    Welcome,
)
from protocol.seat_requests import AnswerSeatRequest, SeatRequested, SeatRequestWaiting
from server import engine
from server.core.room.wire import engine_rules
from tests.e2e._client import Client
from tests.e2e._process import server_process
from tests.e2e._war import game_events, play_steps, replay

pytestmark = pytest.mark.slow

SPEC = RulesSpec(players=2)
DEAL = 123456789


async def start_game(url: str) -> tuple[Client, Client]:
    ann = await Client.connect(url)
    await ann.send(CreateRoom(name="Ann", rules=SPEC, deal=DEAL))
    await ann.expect(Welcome)
    ben = await Client.connect(url)
    await ben.send(JoinRoom(code=ann.player_code or "", name="Ben"))
    await ben.expect(Welcome)
    for client in (ann, ben):
        await client.expect(GameStarted)
        await client.expect(WaitingFor)
    return ann, ben


async def resume(url: str, old: Client) -> Client:
    """Resume ``old``'s seat on a new connection, keeping its log for comparisons."""
    client = await Client.connect(url)
    client.log = [*old.log]
    await client.send(ResumeSeat(room=old.room or "", token=old.token or ""))
    await client.expect(Welcome)
    return client


def engine_at(steps: int) -> engine.Game:
    game = engine.Game(engine_rules(SPEC), DEAL)
    for _ in range(steps):
        game.step()
    return game


async def test_kill_9_mid_game_then_resume_with_nothing_lost(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    async with server_process(db) as first:
        ann, ben = await start_game(first.url)
        watcher = await Client.connect(first.url)
        await watcher.send(WatchRoom(code=ann.watch_code or ""))
        await watcher.expect(Welcome)
        await play_steps(15, [ann, ben])
        before = ann.step
        assert await first.kill() == -9
        for client in (ann, ben, watcher):
            code, _ = await client.expect_close()
            assert code in (None, 1006)  # no close frame: the process died
    async with server_process(db) as second:
        assert second.events("listening")[0]["rooms"] == 1
        ann2 = await resume(second.url, ann)
        ben2 = await resume(second.url, ben)
        welcome = ann2.of(Welcome)[-1]
        game = engine_at(before)
        assert welcome.state.step == before
        assert welcome.state.round == game.round
        assert tuple(s.count for s in welcome.state.seats) == game.counts
        assert welcome.state.deal == DEAL
        assert ann2.token != ann.token
        # spectators watch again with the same code
        watcher2 = await Client.connect(second.url)
        await watcher2.send(WatchRoom(code=ann.watch_code or ""))
        assert (await watcher2.expect(Welcome)).state.step == before
        assert ann2.waiting == ben2.waiting == welcome.state.waiting_for == (0, 1)
        await play_steps(10, [ann2, ben2])
        # Ann has played on with her new token: the one used before the crash is spent
        stale = await Client.connect(second.url)
        await stale.send(ResumeSeat(room=ann.room or "", token=ann.token or ""))
        await stale.expect_error("bad_token")
        assert (await stale.expect_close())[0] == CloseCode.REFUSED
        after = ann2.step
        assert game_events(ann2) == replay(SPEC, DEAL, steps=after)
        await ann2.send(VoteFinish())
        await ben2.send(VoteFinish())
        over = await ann2.expect(GameOver)
        assert game_events(ann2) == replay(SPEC, DEAL, steps=after, finish=True)
        finished = engine_at(after)
        finished.finish()
        assert finished.outcome is not None
        assert (over.winner, over.termination.value, over.counts) == (
            finished.outcome.winner,
            finished.outcome.termination.value,
            finished.counts,
        )
        assert await second.stop() == 0


async def test_sigterm_closes_clients_1012_exits_0_and_games_resume(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    async with server_process(db) as first:
        ann, ben = await start_game(first.url)
        await play_steps(5, [ann, ben])
        status = await first.stop()
        for client in (ann, ben):
            code, _ = await client.expect_close()
            assert code == CloseCode.SERVICE_RESTART
    assert status == 0
    assert first.events("signal_received")[0]["signal"] == "SIGTERM"
    assert first.events("server_stopped")
    secrets = {ann.token, ben.token, ann.player_code, ann.watch_code}
    assert not [line for line in first.lines if any(s and s in line for s in secrets)]
    async with server_process(db) as second:
        ann2 = await resume(second.url, ann)
        assert ann2.of(Welcome)[-1].state.step == ann.step
        assert await second.stop() == 0


async def test_a_kill_9_keeps_the_way_back_of_a_seat_taken_on_another_device(
    tmp_path: Path,
) -> None:
    db = tmp_path / "war.sqlite3"
    async with server_process(db) as first:
        ann, ben = await start_game(first.url)
        await ben.close()  # Ben's laptop closes
        phone = await Client.connect(first.url, source="127.0.0.2")  # another household's
        await phone.send(JoinRoom(code=ann.player_code or "", name="Ben"))
        await phone.expect(SeatRequestWaiting)
        await ann.expect(SeatRequested)
        await ann.send(AnswerSeatRequest(seat=1, allow=True))
        assert (await phone.expect(Welcome)).seat == 1
        assert await first.kill() == -9
    async with server_process(db) as second:
        taker = await resume(second.url, phone)
        laptop = await resume(second.url, ben)  # within the ten minutes, across the restart
        assert laptop.of(Welcome)[-1].seat == 1
        await taker.expect_error("seat_taken_back")
        assert (await taker.expect_close())[0] == CloseCode.REPLACED
        assert await second.stop() == 0
