"""`bench.flipcpu` plays real flips: readies apart are stored one by one, together once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bench.flipcpu import ENCODERS, _Table, main, measure
from server.core.room.actions import Change


def test_a_flip_apart_stores_each_ready_and_together_stores_them_once(tmp_path: Path) -> None:
    table = _Table(2, tmp_path, ENCODERS["own"])
    applied: list[int] = []
    apply = table.store.apply

    def counted(changes: Sequence[Change]) -> None:
        applied.append(len(changes))
        apply(changes)

    table.store.apply = counted  # type: ignore[method-assign]
    room, _ = table.rooms[0]
    before, sent = room.game.steps, table.sent
    table.flip(together=False)
    assert room.game.steps == before + 1
    assert [n for n in applied if n] == [1, 1]  # the first ready, then the step
    assert table.sent > sent
    applied.clear()
    other, _ = table.rooms[1]
    table.flip(together=True)
    assert other.game.steps == 1
    assert [n for n in applied if n] == [1]  # both readies and the step: one write
    table.store.close()


@pytest.mark.parametrize("mode", ["apart", "together"])
def test_measure_gives_a_time_per_flip(mode: str) -> None:
    result = measure(flips=5, rounds=2, rooms=3, mode=mode, encoder=ENCODERS["checked"])
    assert result["mode"] == mode
    assert result["flips"] == 10
    assert result["cpu_us_per_flip"] > 0


def test_an_unknown_mode_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--modes", "sideways", "--flips", "1", "--rounds", "1", "--rooms", "1"])
    assert "unknown mode 'sideways'" in capsys.readouterr().err
