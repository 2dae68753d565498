"""Issue 31: what a client pins at the start of a fair game holds against a server changed
by its host, in both clients (war-client's `client.fairwatch.FairWatch`, the page's
``client/web/js/fair.js`` in node) and in ``war-sim verify`` on the record.

The host's attack, as an independent review played it: his server waits for the reveals,
tries seeds for his own seat until the deal makes him win, shows the new seed's commitment
in an ordinary ``snapshot`` and plays that deal. The stream here is an honest game played
by the room core with the host's chosen seed, with the commitment his client sent at the
start put back into what the table was shown then: every card is the deal's, every seed
matches the commitment shown *last*. Before issue 31 all three checkers said "checked".
"""

from __future__ import annotations

import dataclasses
import io
import shutil
from collections.abc import Callable

import pytest

from client.fair.watch import FairVerdict, FairWatch
from client.lines import message_json
from client.state.view import ViewState, apply
from client.words.catalog import catalog
from protocol import (
    CardsTurned,
    Commit,
    CreateRoom,
    DealVoided,
    GameOver,
    GameStarted,
    JoinRoom,
    Ready,
    ReadyChanged,
    RoomPhase,
    RulesSpec,
    ServerMessage,
    Snapshot,
    TimeUp,
    Welcome,
)
from protocol.fairness import commitment
from server.core.settings import HubSettings
from server.sim import verify
from tests.client.test_fair_tamper import ANN, BEN, page_checks
from tests.server.core._roomkit import RoomKit

NODE = shutil.which("node")
CHOSEN = bytes([11]) * 32
"""The seed the host's server chose for his seat (Ben's) after seeing the reveals."""


def played(
    ben_seed: bytes, rules: RulesSpec | None = None, minutes: int | None = None
) -> list[ServerMessage]:
    """Ann's messages of a whole fair game where Ben revealed ``ben_seed``."""
    kit = RoomKit(seed=3)
    ann, ben = kit.connect(), kit.connect()
    rules = rules or RulesSpec(players=2, round_limit=40)
    create = CreateRoom(name="Ann", rules=rules, seed_commitment=commitment(ANN), minutes=minutes)
    kit.send(ann, create)
    code = ann.welcome.player_code
    assert code is not None
    kit.send(ben, JoinRoom(code=code, name="Ben", seed_commitment=commitment(ben_seed)))
    kit.send(ann, Ready(step=0, seed=ANN.hex()))
    kit.send(ben, Ready(step=0, seed=ben_seed.hex()))
    kit.play_round_robin([ann, ben])
    return list(ann.inbox)


def swapped() -> list[ServerMessage]:
    """The attack: Ben's commitment at the start, the chosen seed's after the reveals."""
    out: list[ServerMessage] = []
    first_flip = True
    for honest in played(CHOSEN):
        message = honest
        if isinstance(honest, GameStarted):
            seats = (honest.seed_commitments[0], commitment(BEN))
            message = dataclasses.replace(honest, seed_commitments=seats)
        if isinstance(message, CardsTurned) and first_flip:
            first_flip = False
            welcome = out[0]
            assert isinstance(welcome, Welcome)
            state = welcome.state
            ann_seat, ben_seat = state.seats
            seats_now = (
                dataclasses.replace(ann_seat, seed_commitment=commitment(ANN)),
                dataclasses.replace(
                    ben_seat, name="Ben", connected=True, seed_commitment=commitment(CHOSEN)
                ),
            )
            shown = dataclasses.replace(state, phase=RoomPhase.PLAYING, seats=seats_now)
            out.append(Snapshot(seq=message.seq - 1, state=shown))
        out.append(message)
    return out


def python_check(
    messages: list[ServerMessage], clock: Callable[[], float] | None = None
) -> list[FairVerdict]:
    watch = FairWatch(clock) if clock is not None else FairWatch()
    found: list[FairVerdict] = []
    view = ViewState()
    for message in messages:
        view = apply(view, message)
        verdict = watch.follow(message, ANN, [seat.name for seat in view.seats])
        if verdict is not None:
            found.append(verdict)
    return found


def english(verdict: FairVerdict) -> str:
    assert verdict.problem is not None
    return catalog("en", strict=True).say(verdict.problem)


def test_the_honest_game_with_the_chosen_seed_is_checked() -> None:
    """The stream is honest but for the swap: its cards are the chosen seed's deal."""
    (verdict,) = python_check(played(CHOSEN))
    assert verdict.ok, verdict


def test_war_client_fails_a_seat_commitment_swapped_after_the_reveals_at_once() -> None:
    stream = swapped()
    verdicts = python_check(stream)
    assert verdicts and all(v.ok is False for v in verdicts), verdicts
    assert english(verdicts[0]) == "the commitment shown for Ben changed after the game started"
    assert len(verdicts) == 2  # at once, and again at game over


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_page_fails_a_seat_commitment_swapped_after_the_reveals() -> None:
    (page,) = page_checks([swapped()])
    assert page["ok"] is False, page
    assert page["problem"] == "the commitment shown for Ben changed after the game started"


def test_war_sim_verify_fails_the_record_of_the_swap(capsys: pytest.CaptureFixture[str]) -> None:
    record = "\n".join(message_json(m) for m in swapped()) + "\n"
    status = verify.main(["-"], io.StringIO(record))
    out = capsys.readouterr().out
    assert status == 1, out
    assert "FAILED: the commitment shown for seat 1 changed after the game started" in out


def _seq(message: ServerMessage) -> int:
    seq = getattr(message, "seq", None)
    assert isinstance(seq, int)
    return seq


def test_my_seat_said_to_void_after_my_seed_was_accepted_fails_war_client() -> None:
    """``deal_voided`` naming this client's seat once its seed-bearing ready was taken: a
    claim that its seed was not used, which it knows is false."""
    stream = played(BEN)
    at = next(i for i, m in enumerate(stream) if isinstance(m, ReadyChanged) and m.seat == 0)
    void = DealVoided(seq=_seq(stream[at]) + 1, seat=0, voids=1)
    verdicts = python_check([*stream[: at + 1], void])
    assert verdicts and verdicts[0].ok is False
    assert english(verdicts[0]) == (
        "the server says Ann's seed was not used, but this client sent it and it was accepted"
    )


def test_my_seed_left_out_at_game_over_fails_war_client() -> None:
    """The reveal says my seat had no seed: no excuse any more (no seat is dropped)."""
    stream = played(BEN)
    over = stream.index(next(m for m in stream if isinstance(m, GameOver)))
    end = stream[over]
    assert isinstance(end, GameOver) and end.fairness is not None
    hidden = dataclasses.replace(end.fairness, seeds=(None, end.fairness.seeds[1]))
    verdicts = python_check([*stream[:over], dataclasses.replace(end, fairness=hidden)])
    assert verdicts[-1].ok is False
    assert english(verdicts[-1]) == "Ann committed to a seed, but none was used"


def test_an_early_time_up_fails_war_client() -> None:
    now = [0.0]
    stream = played(BEN, RulesSpec(players=2), minutes=5)
    at = next(i for i, m in enumerate(stream) if isinstance(m, CardsTurned))
    early = TimeUp(seq=_seq(stream[at]))

    def clock() -> float:
        now[0] += 0.01  # a hundredth of a second a message: the limit is far away
        return now[0]

    verdicts = python_check([*stream[:at], early], clock)
    assert verdicts and verdicts[0].ok is False
    assert english(verdicts[0]).startswith("the time limit was said to run out ")


def test_a_void_missed_while_away_is_no_failure_and_the_fresh_deal_is_checked() -> None:
    """Ann reveals, then both go away; Ben's away timeout voids the deal while Ann is gone
    too. Ann comes back: her welcome shows the voids and the room awaiting commitments;
    she commits afresh and the fresh deal is pinned and checked."""
    kit = RoomKit(HubSettings(away_timeout=120))
    ann, ben = kit.connect(), kit.connect()
    kit.send(
        ann,
        CreateRoom(name="Ann", rules=RulesSpec(round_limit=30), seed_commitment=commitment(ANN)),
    )
    code = ann.welcome.player_code
    assert code is not None
    kit.send(ben, JoinRoom(code=code, name="Ben", seed_commitment=commitment(BEN)))
    kit.send(ann, Ready(step=0, seed=ANN.hex()))
    kit.drop(ben)
    kit.drop(ann)
    kit.advance(200)  # Ben's seed can no longer come: void, with nobody there to see it
    back = kit.come_back(ann)
    assert back.welcome.state.awaiting_commitments and back.welcome.state.voids == (0, 1)
    fresh = bytes([21]) * 32
    kit.send(back, Commit(seed_commitment=commitment(fresh)))
    kit.send(back, Ready(step=0, seed=fresh.hex()))
    kit.advance(5)
    kit.play_round_robin([back])
    watch, view, found = FairWatch(), ViewState(), []
    stream = [(m, ANN) for m in ann.inbox] + [(m, fresh) for m in back.inbox]
    for message, seed in stream:  # the seed this client holds for the game at each point
        view = apply(view, message)
        verdict = watch.follow(message, seed, [s.name for s in view.seats])
        if verdict is not None:
            found.append(verdict)
    assert len(found) == 1 and found[0].ok, found
