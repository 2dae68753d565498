"""Soak: several rooms play whole games at once against a real ``war-server`` process.

Three rooms play on the server's quick auto-play (both seats), three rooms have players
readying as fast as the server lets them, for several games each (rematch, new deal),
each room with a spectator. Every game every participant saw must equal a fresh engine
replay of its deal, event by event; the server's resident memory between the end of
the warm-up and the end must not grow beyond a generous bound. (The long version is
``bench/soak.py``.)
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bench._play import GameLog, Participant, check_game, open_room, replay, verify_room
from bench._server import ServerProcess, war_server_spec
from protocol import Aces, AutoPlay, RulesSpec, WonCards

pytestmark = pytest.mark.slow

SEED = 20261130
GAMES = 4  # per fast room
RSS_GROWTH_BOUND_KIB = 12 * 1024  # generous: a leak of ~4 KiB per step would break it
AUTO_RULES = RulesSpec(players=2, round_limit=20)
FAST_RULES = (
    RulesSpec(players=2, round_limit=150),
    RulesSpec(players=3, face_down=3, round_limit=120),
    RulesSpec(players=2, aces=Aces.LOW, won_cards=WonCards.FIXED, round_limit=150),
)


async def test_rooms_play_whole_games_equal_to_replays_without_memory_growth(
    tmp_path: Path,
) -> None:
    rng = random.Random(SEED)
    extra = ["--rate-limit", "100000", "--max-connections-per-ip", "200"]
    server = ServerProcess(war_server_spec(tmp_path / "war.sqlite3", extra=extra))
    await server.start()
    try:
        url = f"ws://127.0.0.1:{server.port}/"

        def at() -> str:
            return url

        auto_rooms = [
            await open_room(at, AUTO_RULES, rng.getrandbits(63), f"auto{i}", auto=AutoPlay.QUICK)
            for i in range(3)
        ]
        fast_rooms = [
            await open_room(at, spec, rng.getrandbits(63), f"fast{i}")
            for i, spec in enumerate(FAST_RULES)
        ]
        warm = asyncio.Event()
        reached: set[int] = set()

        def note(player: Participant, step: int) -> None:
            if player.game >= 2:
                reached.add(id(player))
                if len(reached) == len(fast_rooms):
                    warm.set()

        for room in fast_rooms:
            room[0].on_step = note

        plays = [p.play(1) for room in auto_rooms for p in room]
        plays += [p.play(GAMES) for room in fast_rooms for p in room]
        playing = asyncio.gather(*plays)
        await asyncio.wait_for(warm.wait(), 60)
        rss_warm = server.rss_kib()
        await asyncio.wait_for(playing, 90)
        rss_end = server.rss_kib()

        for room in auto_rooms:
            assert verify_room(room, AUTO_RULES, games=1) == []
        for spec, room in zip(FAST_RULES, fast_rooms, strict=True):
            assert verify_room(room, spec, games=GAMES) == []
        growth = rss_end - rss_warm
        assert growth < RSS_GROWTH_BOUND_KIB, f"RSS grew {growth} KiB ({rss_warm} → {rss_end})"
        for room in auto_rooms + fast_rooms:
            for participant in room:
                await participant.close()
        assert await server.stop() == 0, server.tail()
    finally:
        await server.kill()


def _seen_as_replayed(spec: RulesSpec, deal: int) -> GameLog:
    by_step, _ = replay(spec, deal)
    log = GameLog(1, [event for step in sorted(by_step) for event in by_step[step]])
    log.over = log.events[-1]
    return log


def test_the_replay_check_catches_a_wrong_card_a_repeated_step_and_a_lost_round() -> None:
    spec = RulesSpec(players=2, round_limit=60)
    good = _seen_as_replayed(spec, 4242)
    assert check_game(good, spec) == []

    wrong_card = GameLog(1, list(good.events), good.over)
    turned = next(i for i, e in enumerate(wrong_card.events) if e[0] == "cards_turned")
    event = wrong_card.events[turned]
    wrong_card.events[turned] = (*event[:4], ((0, "2C"), (1, "2D")))
    assert check_game(wrong_card, spec) != []

    step_two = [e for e in good.events if e[1] == 2]
    twice = GameLog(1, [*good.events[:-1], *step_two, good.events[-1]], good.over)
    assert check_game(twice, spec, complete=False) != []

    lost = GameLog(1, [e for e in good.events if e[1] != 5], good.over)
    assert check_game(lost, spec) != []
    assert check_game(lost, spec, complete=False) == []  # a missing step is allowed then

    assert good.over is not None
    over = good.over
    other_end = GameLog(1, list(good.events), (*over[:2], 1 - over[2], *over[3:]))
    assert check_game(other_end, spec, complete=False) != []
