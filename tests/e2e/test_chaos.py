"""Chaos: kill -9 the ``war-server`` process at random moments while rooms play.

Five rooms (2, 3 and 4 players, various rules, one spectator each) play at full speed; at
seeded random points of progress the server is killed with SIGKILL and started again on
the same ``--db`` and port, four times, whether or not every client has resumed from the
last kill (a kill between the store of a seat's new token and the client's reading of
its ``welcome`` must not lock the seat out). Every client resumes its seat with its
latest token (spectators watch again) and plays on.
`bench.chaos.run` then checks, per room:

- every game completes, and its ``game_over`` equals a fresh engine replay of its deal;
- what each client saw of each step is the replay's (a step cut short by the kill may
  show only its first events), steps in order, no event twice;
- the round results seen, deduplicated by round number, equal the replay's, and no more
  rounds went unseen by everyone than there were kills;
- at each resume the game is where the client left it: never behind (no round lost), at
  most one step ahead and only if that client's ready for it was sent (none played
  twice), with the piles the replay has at that step.

The long version: ``python -m bench.chaos --rooms 40 --kills 30``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.chaos import run

pytestmark = pytest.mark.slow

KILLS = 4


async def test_kill_9_during_play_loses_no_round_and_plays_none_twice(tmp_path: Path) -> None:
    report = await run(tmp_path / "war.sqlite3", rooms=5, kills=KILLS, seed=7, within=90)
    assert report["problems"] == []
    assert report["seats_locked_out"] == 0
    assert report["kills"] == KILLS
    assert report["resumes"] >= KILLS * 2, report
