"""Disconnect and come back: the seat's token, the old token refused, a replaced connection,
the game waiting for an away player, and the away-timeout putting a seat on auto-play."""

from __future__ import annotations

from pathlib import Path

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CloseCode,
    ConnectionChanged,
    ErrorCode,
    GameOver,
    Ready,
    ResumeSeat,
    RulesSpec,
    WaitingFor,
    Welcome,
)
from tests.e2e._client import Client
from tests.e2e._war import game_events, play_steps, replay, start_war


async def resume(url: str, token: str, room: str) -> Client:
    client = await Client.connect(url)
    await client.send(ResumeSeat(room=room, token=token))
    await client.expect(Welcome)
    return client


async def test_resume_with_the_token_and_the_old_one_is_refused(tmp_path: Path) -> None:
    spec = RulesSpec(round_limit=20)
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(rules=spec, deal=555)
        await play_steps(4, [ann, ben])
        old_token, room, step = ben.token or "", ben.room or "", ben.step
        await ben.close()
        gone = await ann.expect(ConnectionChanged)
        assert (gone.seat, gone.connected) == (1, False)
        assert 1 in ann.waiting  # the game waits for Ben, who is away
        # Ann's ready alone does not flip: the game now waits for Ben alone
        await ann.send(Ready(step=ann.step))
        await ann.expect(WaitingFor, where=lambda m: m.seats == (1,))
        assert ann.step == step
        ben2 = await resume(war.url, old_token, room)
        back = await ann.expect(ConnectionChanged)
        assert (back.seat, back.connected) == (1, True)
        welcome = ben2.of(Welcome)[-1]
        assert welcome.seat == 1
        assert welcome.token and welcome.token != old_token
        assert welcome.state.step == step
        assert welcome.state.seats[0].ready  # Ann's ready was kept while Ben was away
        await play_steps(1, [ann, ben2])  # Ben's ready completes the waiting step
        # Ben has spoken with the new token: the old one is spent
        thief = await war.client()
        await thief.send(ResumeSeat(room=room, token=old_token))
        await thief.expect_error(ErrorCode.BAD_TOKEN)
        assert (await thief.expect_close())[0] == CloseCode.REFUSED
        await play_steps(30, [ann, ben2])
    assert ann.of(GameOver)
    assert game_events(ann) == replay(spec, 555)


async def test_a_welcome_never_read_leaves_the_token_working(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(deal=555)
        token, room = ben.token or "", ben.room or ""
        await ben.close()
        await ann.expect(ConnectionChanged, where=lambda m: not m.connected)
        lost = await war.client()
        await lost.send(ResumeSeat(room=room, token=token))
        await ann.expect(ConnectionChanged, where=lambda m: m.connected)  # resumed (stored)
        await lost.close()  # gone before reading the welcome and its new token
        await ann.expect(ConnectionChanged, where=lambda m: not m.connected)
        ben2 = await resume(war.url, token, room)  # the token Ben still has
        welcome = ben2.of(Welcome)[-1]
        assert welcome.seat == 1
        assert welcome.token and welcome.token != token
        await play_steps(3, [ann, ben2])
        assert ben2.step == ann.step == 3


async def test_resuming_a_connected_seat_replaces_the_old_connection(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann, ben = await war.table()
        other_tab = await resume(war.url, ben.token or "", ben.room or "")
        code, _ = await ben.expect_close()
        assert code == CloseCode.REPLACED
        assert not ann.of(ConnectionChanged)  # Ben never looked away
        await play_steps(3, [ann, other_tab])
        assert other_tab.step == ann.step == 3


async def test_an_away_seat_goes_on_calm_auto_play_after_the_timeout(tmp_path: Path) -> None:
    async with start_war(tmp_path, away_timeout=120.0) as war:
        ann, ben = await war.table(deal=8)
        await ben.close()
        await ann.expect(ConnectionChanged)
        war.clock.offset += 121
        war.poke()
        auto = await ann.expect(AutoPlayChanged)
        assert (auto.seat, auto.mode) == (1, AutoPlay.CALM)
        await play_steps(5, [ann])  # Ben's seat readies by itself
        assert ann.step >= 5
