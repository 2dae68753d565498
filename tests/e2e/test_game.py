"""Whole games over loopback: real server, real Hub, real SQLite, real websockets clients.

Every game is checked against the engine replaying the same deal: the events each client
reads (seq aside) are exactly the engine's, in order.
"""

from __future__ import annotations

from pathlib import Path

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsTaken,
    Error,
    ErrorCode,
    FinishVoted,
    GameOver,
    GameStarted,
    Ready,
    Rematch,
    RematchDeal,
    RulesSpec,
    SecondPathReady,
    SetAutoPlay,
    SpectatorsChanged,
    Termination,
    TimeUp,
    VoteFinish,
    WaitingFor,
    WarDeclared,
    Welcome,
)
from server import engine
from server.core.room.wire import engine_rules
from tests.e2e._war import (
    game_events,
    play_step,
    play_steps,
    play_to_the_end,
    replay,
    start_war,
)


def short_deal(spec: RulesSpec, most_steps: int) -> int:
    """The first deal whose whole game takes at most ``most_steps`` steps."""
    for deal in range(10_000):
        game = engine.Game(engine_rules(spec), deal)
        game.finish()
        if game.steps <= most_steps:
            return deal
    raise AssertionError(f"no deal of {spec} ends within {most_steps} steps")


async def test_two_players_play_a_round_limited_game_to_the_end(tmp_path: Path) -> None:
    spec = RulesSpec(players=2, round_limit=12)
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(rules=spec, deal=4242)
        assert ann.player_code is not None
        watcher = await war.watch(ann.watch_code or "")
        for client in (ann, ben):
            await client.expect(SpectatorsChanged)
        over = await play_to_the_end([ann, ben], [watcher])
    expected = replay(spec, 4242)
    assert game_events(ann) == game_events(ben) == game_events(watcher) == expected
    assert over.termination is Termination.ROUND_LIMIT
    assert over.summary.rounds == 12
    assert over.summary.deal == 4242
    # seq: every room message is numbered one after the other, the same for everyone
    seqs = [m.seq for m in ann.log if not isinstance(m, Welcome | Error | SecondPathReady)]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


async def test_a_whole_game_on_quick_auto_play_to_its_natural_end(tmp_path: Path) -> None:
    spec = RulesSpec()
    deal = short_deal(spec, 80)
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(rules=spec, deal=deal)
        for client in (ann, ben):
            await client.send(SetAutoPlay(mode=AutoPlay.QUICK))
        over = await ann.expect(GameOver)
        await ben.expect(GameOver)
    assert over.termination in {Termination.ALL_CARDS, Termination.OPPONENTS_SHORT}
    assert game_events(ann) == game_events(ben) == replay(spec, deal)
    assert sorted(over.counts) == [0, 52]
    assert {m.mode for m in ann.of(AutoPlayChanged)} == {AutoPlay.QUICK}


async def test_four_players_and_a_three_way_war_from_a_chosen_deal(tmp_path: Path) -> None:
    spec = RulesSpec(players=4)
    rules = engine_rules(spec)
    deal = next(
        d
        for d in range(10_000)
        if any(
            isinstance(e, engine.WarDeclared) and len(e.seats) == 3
            for e in engine.Game(rules, d).step()
        )
    )
    async with start_war(tmp_path) as war:
        players = await war.table(rules=spec, deal=deal)
        await play_step(players)
        war_declared = players[0].of(WarDeclared)[-1]
        assert len(war_declared.seats) == 3
        (left_out,) = set(range(4)) - set(war_declared.seats)
        for client in players:
            assert client.waiting == war_declared.seats  # only those at war are awaited
        bystander = players[left_out]
        await bystander.send(Ready(step=bystander.step))
        await bystander.expect_error(ErrorCode.NOT_NEEDED)
        await play_steps(6, players)
    expected = replay(spec, deal, steps=players[0].step)
    for client in players:
        assert game_events(client) == expected


async def test_spectators_see_exactly_what_players_see(tmp_path: Path) -> None:
    spec = RulesSpec(round_limit=8)
    async with start_war(tmp_path) as war:
        ann = await war.create("Ann", rules=spec, deal=77)
        early = await war.watch(ann.watch_code or "")
        ben = await war.join(ann.player_code or "", "Ben")
        for client in (ann, early, ben):
            await client.expect(GameStarted)
            await client.expect(WaitingFor)
        await play_steps(3, [ann, ben], [early])
        late = await war.watch(ann.watch_code or "")
        assert late.step == ann.step and late.counts == ann.counts  # the snapshot is current
        for client in (ann, ben, early):
            await client.expect(SpectatorsChanged, where=lambda m: m.count == 2)
        await play_to_the_end([ann, ben], [early, late])
    assert game_events(early) == game_events(ann) == replay(spec, 77)
    assert game_events(late) == game_events(ann)[-len(game_events(late)) :]
    assert late.seat is None and late.token is None and late.player_code is None


async def test_against_the_computer(tmp_path: Path) -> None:
    spec = RulesSpec(round_limit=15)
    async with start_war(tmp_path) as war:
        ann = await war.create("Ann", rules=spec, deal=31337, computers=1)
        await ann.expect(GameStarted)
        await ann.expect(WaitingFor)
        assert ann.seat == 0
        over = await play_to_the_end([ann])
    assert game_events(ann) == replay(spec, 31337)
    assert over.termination is Termination.ROUND_LIMIT
    # the computer never keeps a person waiting: once Ann has readied, the step does not
    # wait for the computer alone (0.1 waited up to 0.6 s for it at every step)
    assert not any(isinstance(m, WaitingFor) and m.seats == (1,) for m in ann.log)


async def test_a_time_limit_ends_the_game_on_the_servers_clock(tmp_path: Path) -> None:
    spec = RulesSpec()
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(rules=spec, deal=2024, minutes=1)
        await play_steps(5, [ann, ben])
        while ann.waiting != (0, 1):  # stop outside a war: the game ends at once
            await play_step([ann, ben])
        steps = ann.step
        war.clock.offset += 59
        war.poke()
        await play_step([ann, ben])  # 59 s in: the game goes on
        assert not ann.of(TimeUp)
        war.clock.offset += 2
        war.poke()
        for client in (ann, ben):
            await client.expect(TimeUp)
            over = await client.expect(GameOver)
    assert over.termination is Termination.TIME_LIMIT
    game = engine.Game(engine_rules(spec), 2024)
    for _ in range(steps + 1):
        game.step()
    game.stop_by_time()
    assert game.outcome is not None
    assert over.winner == game.outcome.winner
    assert over.counts == game.counts


async def test_finish_vote_plays_the_rest_at_once(tmp_path: Path) -> None:
    spec = RulesSpec()
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(rules=spec, deal=9)
        await play_steps(10, [ann, ben])
        steps = ann.step
        await ann.send(VoteFinish())
        for client in (ann, ben):
            await client.expect(FinishVoted)
        assert not ann.of(GameOver)
        await ben.send(VoteFinish())
        over = await ann.expect(GameOver)
        await ben.expect(GameOver)
    assert game_events(ann) == replay(spec, 9, steps=steps, finish=True)
    assert over.summary.deal == 9


async def test_rematch_with_the_same_deal_replays_identically(tmp_path: Path) -> None:
    spec = RulesSpec(round_limit=10)
    async with start_war(tmp_path) as war:
        ann, ben = await war.table(rules=spec)  # the server picks a hidden deal
        first_start = ann.of(GameStarted)[-1]
        assert first_start.deal is None
        first = await play_to_the_end([ann, ben])
        await ann.send(Rematch(deal=RematchDeal.SAME))
        await ben.send(Rematch(deal=RematchDeal.SAME))
        for client in (ann, ben):
            second_start = await client.expect(GameStarted)
            await client.expect(WaitingFor)
        second = await play_to_the_end([ann, ben])
    assert second_start.game == 2
    assert second_start.deal == first.summary.deal  # revealed: the same deal
    assert game_events(ann, game=2) == game_events(ann, game=1)
    assert game_events(ann, 1) == replay(spec, first.summary.deal)
    assert (second.winner, second.counts) == (first.winner, first.counts)
    assert len(ann.of(CardsTaken)) == 20
