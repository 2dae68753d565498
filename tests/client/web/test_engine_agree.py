"""The browser's engine and the Python engine agree on every step, for random rules and
deals (hypothesis): each example is a batch of games played by both, the JavaScript in one
``node`` process (tests/client/web/_engine_driver.mjs). The shared vectors pin chosen games
(tests/vectors/engine/steps.json); this looks for the ones nobody chose."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from server.engine import (
    Aces,
    BothShort,
    FixedOrder,
    Rules,
    ShortWar,
    TakenBack,
    TieBreak,
    WonCards,
)
from tests.vectors.generate_engine import play

NODE = shutil.which("node")
DRIVER = Path(__file__).parent / "_engine_driver.mjs"
pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed (apt-get install nodejs)"
)


@st.composite
def rules(draw: st.DrawFn) -> dict[str, Any]:
    # Three or four players on small decks half the time: ties, wars and rounds given
    # back (the rarest rules) come often there.
    players = draw(st.sampled_from([2, 3, 3, 4, 4]))
    ranks = draw(st.integers(2, 5) | st.integers(1, 13))
    suits = draw(st.integers(-(-players // ranks), 4))  # a card for every player
    made = Rules(
        players=players,
        face_down=draw(st.sampled_from([1, 3])),
        aces=draw(st.sampled_from(list(Aces))),
        short_war=draw(st.sampled_from(list(ShortWar))),
        both_short=draw(st.sampled_from(list(BothShort))),
        won_cards=draw(st.sampled_from(list(WonCards))),
        fixed_order=draw(st.sampled_from(list(FixedOrder))),
        taken_back=draw(st.sampled_from(list(TakenBack))),
        # No limit only on small decks, so that every batch stays quick.
        round_limit=draw(
            st.integers(1, 200) | (st.none() if ranks * suits <= 20 else st.just(200))
        ),
        tie_break=draw(st.sampled_from(list(TieBreak))),
        ranks=ranks,
        suits=suits,
    )
    return made.to_dict()


CASES = st.fixed_dictionaries(
    {
        "rules": rules(),
        "deal": st.integers(0, 2**64 - 1).map(str),
        "stop_at": st.none() | st.integers(1, 120),
    }
)


def _javascript(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(DRIVER)],
        input=json.dumps(batch),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    results: list[dict[str, Any]] = json.loads(done.stdout)
    return results


# No shrinking: each attempt is a node process; a failure names its rules, deal and step.
@settings(
    max_examples=5,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(CASES, min_size=25, max_size=25))
def test_both_engines_play_every_step_alike(batch: list[dict[str, Any]]) -> None:
    for case, javascript in zip(batch, _javascript(batch), strict=True):
        steps, game = play(Rules.from_dict(case["rules"]), int(case["deal"]), case["stop_at"])
        for index, (ours, theirs) in enumerate(zip(steps, javascript["steps"], strict=False)):
            assert theirs == ours, (case, index + 1)
        assert len(javascript["steps"]) == len(steps), case
        assert javascript["standings"] == list(game.standings or ()), case
