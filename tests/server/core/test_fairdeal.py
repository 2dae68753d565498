"""The room's commit–reveal of a fair deal (PROTOCOL.md §10, server/core/room/fairdeal.py).

Every stage: the server's commitment from creation, each seat's commitment shown before
anyone can reveal, the seeds revealed with the first readies, a bad seed refused, a ready
without its seed refused, the first cards only once every committed seat revealed, a seat
that cannot reveal voiding the deal (the table told, a fresh deal committed anew),
the reveal at game over, checked by the Python client's own check (`client.fair.watch`);
a restart between commit and reveal; a chosen deal, and the same deal again, claim
nothing; a rematch with a new deal commits again.
"""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from client.fair.watch import FairVerdict, FairWatch, no_seed_line
from client.words.catalog import Person, catalog
from protocol import (
    AutoPlay,
    AutoPlayChanged,
    Commit,
    CreateRoom,
    DealVoided,
    ErrorCode,
    GameOver,
    GameStarted,
    JoinRoom,
    Leave,
    Ready,
    Rematch,
    RematchDeal,
    RulesSpec,
    SetAutoPlay,
    WaitingFor,
    decode_client_message,
)
from protocol.errors import ProtocolError
from protocol.fairness import commitment, derive_deal
from protocol.seat_requests import AnswerSeatRequest, SeatRequestEnded
from server.adapters.store.sqlite import SqliteStore
from server.core.settings import HubSettings
from tests._kit.stores import MemoryStore
from tests.server.core._roomkit import Peer, RoomKit, error_codes

ANN_SEED = bytes(range(32))
BEN_SEED = bytes(range(32, 64))


def _table(kit: RoomKit, *, ben: bytes | None = BEN_SEED, **create: object) -> list[Peer]:
    ann, ben_peer = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", seed_commitment=commitment(ANN_SEED), **create))  # type: ignore[arg-type]
    code = ann.welcome.player_code
    assert code is not None
    kit.send(
        ben_peer,
        JoinRoom(code=code, name="Ben", seed_commitment=None if ben is None else commitment(ben)),
    )
    return [ann, ben_peer]


def _verdict(peer: Peer, seed: bytes | None) -> FairVerdict | None:
    watch = FairWatch()
    verdict = None
    for message in peer.inbox:
        verdict = watch.follow(message, seed) or verdict
    return verdict


def _play_out(kit: RoomKit, peers: list[Peer], seeds: list[bytes | None]) -> None:
    """Each seat's first ready reveals its seed; then play round robin to the end."""
    room = kit.room(peers[0])
    for peer, seed in zip(peers, seeds, strict=True):
        kit.send(peer, Ready(step=0, seed=None if seed is None else seed.hex()))
    assert room.game.steps == 1
    kit.play_round_robin(peers)


def test_the_server_commits_first_and_every_seat_is_shown_before_anyone_reveals() -> None:
    kit = RoomKit()
    ann, ben = _table(kit)
    created = ann.welcome.state
    assert created.deal_commitment is not None and len(created.deal_commitment) == 64
    assert created.seats[0].seed_commitment == commitment(ANN_SEED)
    (started,) = ann.of(GameStarted)
    assert started.deal_commitment == created.deal_commitment
    assert started.seed_commitments == (commitment(ANN_SEED), commitment(BEN_SEED))
    assert started.deal is None
    assert ben.welcome.state.deal_commitment == created.deal_commitment


def test_the_first_cards_wait_for_every_seed_and_the_game_proves_itself() -> None:
    kit = RoomKit()
    ann, ben = _table(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    assert room.game.steps == 0  # Ben has not revealed
    kit.send(ben, Ready(step=0, seed=BEN_SEED.hex()))
    assert room.game.steps == 1
    kit.play_round_robin([ann, ben])
    (over,) = ann.of(GameOver)
    assert over.fairness is not None
    assert over.fairness.seeds == (ANN_SEED.hex(), BEN_SEED.hex())
    server_seed = bytes.fromhex(over.fairness.server_seed)
    assert commitment(server_seed) == ann.welcome.state.deal_commitment
    rules = room.rules.to_dict()
    assert over.summary.deal == derive_deal(server_seed, rules, [ANN_SEED, BEN_SEED])
    assert not ann.of(DealVoided)
    for peer, seed in ((ann, ANN_SEED), (ben, BEN_SEED)):
        verdict = _verdict(peer, seed)
        assert verdict is not None and verdict.ok, verdict
    # the reveal stays in the room's state after game over (a late reader, a reconnect)
    again = kit.come_back(ann)
    assert again.welcome.state.fairness == over.fairness


def test_a_seed_that_does_not_match_its_commitment_is_refused() -> None:
    kit = RoomKit()
    ann, _ben = _table(kit)
    room = kit.room(ann)
    done = kit.send(ann, Ready(step=0, seed=BEN_SEED.hex()))
    assert error_codes(done) == [ErrorCode.SEED_MISMATCH]
    assert ann.closed is None
    assert room.game_record.ready == ()  # nothing was done
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    assert list(room.game_record.ready) == [0]


def test_a_malformed_seed_is_a_bad_value() -> None:
    for seed in ("AB" * 32, "ab" * 31, "zz" * 32, 7):
        frame = msgpack.packb({"type": "ready", "step": 0, "seed": seed})
        with pytest.raises(ProtocolError) as caught:
            decode_client_message(frame)
        assert caught.value.code is ErrorCode.BAD_VALUE


def test_a_host_readying_without_his_seed_is_refused_and_no_card_turned() -> None:
    """The withholding attack: the host waits for the others' readies, then readies
    without his seed (hoping to be dropped). Refused: the first flip waits for his seed."""
    kit = RoomKit()
    ann, ben = _table(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    done = kit.send(ben, Ready(step=0))  # Ben hosts: he knows every seed but his own choice
    assert error_codes(done) == [ErrorCode.SEED_REQUIRED]
    assert ben.closed is None  # the connection stays open
    assert room.game.steps == 0 and room.game_record.ready == (0,)
    kit.send(ben, SetAutoPlay(mode=AutoPlay.QUICK))
    kit.advance(60)  # auto-play never readies a seat that owes its seed
    assert room.game.steps == 0
    kit.send(ben, Ready(step=0, seed=BEN_SEED.hex()))
    assert room.game.steps == 1


def test_a_seat_that_never_reveals_voids_the_deal_at_the_away_timeout() -> None:
    kit = RoomKit(HubSettings(away_timeout=120))
    ann, ben = _table(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    first = room.game_record.fair
    assert first is not None
    kit.drop(ben)  # Ben committed, and is gone before revealing
    kit.advance(100)
    assert room.game.steps == 0 and not ann.of(DealVoided)  # the first flip waits
    kit.advance(50)  # past the away timeout: Ben's seed can no longer come
    (voided,) = ann.of(DealVoided)
    assert (voided.seat, voided.voids) == (1, 1)
    assert room.game.steps == 0  # no card was turned without Ben's seed
    state = room.state(kit.now)
    assert state.awaiting_commitments and state.voids == (0, 1)
    assert state.deal_commitment is None
    fresh_seed = bytes([77]) * 32
    kit.send(ann, Commit(seed_commitment=commitment(fresh_seed)))
    started = ann.of(GameStarted)
    assert len(started) == 2 and started[1].game == started[0].game
    assert started[1].deal_commitment not in (None, first.deal_commitment)
    assert started[1].seed_commitments == (commitment(fresh_seed), None)  # Ben is away
    assert any(isinstance(m, AutoPlayChanged) and m.seat == 1 for m in ann.inbox)
    kit.send(ann, Ready(step=0, seed=fresh_seed.hex()))
    kit.advance(5)  # the server plays Ben's seat now: it owes no seed
    assert room.game.steps >= 1
    kit.play_round_robin([ann])
    (over,) = ann.of(GameOver)
    assert over.fairness is not None and over.fairness.seeds == (fresh_seed.hex(), None)
    verdict = _verdict(ann, fresh_seed)
    assert verdict is not None and verdict.ok, verdict
    assert room.state(kit.now).voids == (0, 1)  # the evening counts it, for everyone


def test_a_seat_that_leaves_before_revealing_voids_the_deal() -> None:
    kit = RoomKit()
    ann, ben = _table(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    kit.send(ben, Leave())
    (voided,) = ann.of(DealVoided)
    assert voided.seat == 1
    assert room.game.steps == 0
    kit.send(ann, Commit(seed_commitment=commitment(ANN_SEED[::-1])))
    assert len(ann.of(GameStarted)) == 2
    done = kit.send(ann, Commit(seed_commitment=commitment(ANN_SEED)))
    assert error_codes(done) == [ErrorCode.NOT_NEEDED]  # the fresh deal is fixed now


def test_a_ready_while_a_fresh_deal_waits_for_commitments_is_not_needed() -> None:
    kit = RoomKit(HubSettings(away_timeout=120))
    ann, ben = _table(kit)
    kit.drop(ben)
    kit.advance(200)
    assert ann.of(DealVoided)
    done = kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    assert error_codes(done) == [ErrorCode.NOT_NEEDED]


def test_a_computer_seat_and_a_client_that_never_committed_contribute_nothing() -> None:
    kit = RoomKit()
    ann, ben = _table(kit, ben=None, rules=RulesSpec(players=3), computers=1)
    (started,) = ann.of(GameStarted)
    assert started.seed_commitments == (commitment(ANN_SEED), None, None)
    watch = FairWatch()
    for message in ann.inbox:
        watch.follow(message)
    assert watch.no_seed() == [1, 2]  # what each client tells its player
    line = no_seed_line([Person("name", "Ben"), Person("name", "Computer")])
    assert catalog("en", strict=True).say(line).startswith("No seed from Ben and Computer:")
    _play_out(kit, [ann, ben], [ANN_SEED, None])
    (over,) = ann.of(GameOver)
    assert over.fairness is not None and over.fairness.seeds == (ANN_SEED.hex(), None, None)
    assert not ann.of(DealVoided)  # nobody committed and failed to reveal
    verdict = _verdict(ben, None)
    assert verdict is not None and verdict.ok, verdict


def test_a_restart_between_commit_and_reveal_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    first = RoomKit(store=SqliteStore(path))
    ann, ben = _table(first)
    room_id = ann.welcome.state.room
    committed = ann.welcome.state.deal_commitment
    first.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    first.store.close()
    second = RoomKit(store=SqliteStore(path), now=first.now + 5)
    ben_again = second.come_back(ben)
    ann_again = second.come_back(ann)
    state = ben_again.welcome.state
    assert state.deal_commitment == committed
    assert state.seats[0].ready and state.seats[1].seed_commitment == commitment(BEN_SEED)
    second.send(ben_again, Ready(step=0, seed=BEN_SEED.hex()))
    room = second.hub.room(room_id)
    assert room is not None and room.game.steps == 1
    second.play_round_robin([ann_again, ben_again])
    (over,) = ben_again.of(GameOver)
    assert over.fairness is not None
    assert over.fairness.seeds == (ANN_SEED.hex(), BEN_SEED.hex())
    assert commitment(bytes.fromhex(over.fairness.server_seed)) == committed
    second.store.close()


def test_a_chosen_deal_and_the_same_deal_again_claim_nothing_a_new_deal_commits_again() -> None:
    kit = RoomKit()
    ann, ben = _table(kit, deal=90210)
    assert ann.welcome.state.deal_commitment is None
    (started,) = ann.of(GameStarted)
    assert started.deal == 90210 and started.deal_commitment is None
    _play_out(kit, [ann, ben], [ANN_SEED, BEN_SEED])  # a seed is ignored: nothing to prove
    (over,) = ann.of(GameOver)
    assert over.fairness is None and over.summary.deal == 90210
    verdict = _verdict(ann, ANN_SEED)
    assert verdict is not None and verdict.ok and verdict.chosen
    for peer in (ann, ben):
        kit.send(peer, Rematch(deal=RematchDeal.SAME, seed_commitment=commitment(ANN_SEED)))
    second = ann.of(GameStarted)[-1]
    assert second.deal == 90210 and second.deal_commitment is None
    kit.play_round_robin([ann, ben])
    seeds = {ann.conn: bytes([1]) * 32, ben.conn: bytes([2]) * 32}
    for peer in (ann, ben):
        kit.send(peer, Rematch(deal=RematchDeal.NEW, seed_commitment=commitment(seeds[peer.conn])))
    third = ann.of(GameStarted)[-1]
    assert third.game == 3 and third.deal is None and third.deal_commitment is not None
    assert third.seed_commitments == tuple(commitment(s) for s in seeds.values())
    _play_out(kit, [ann, ben], list(seeds.values()))
    verdict = _verdict(ann, seeds[ann.conn])
    assert verdict is not None and verdict.ok and not verdict.chosen, verdict
    assert ann.of(WaitingFor)[-1].seats == ()


def test_a_ready_with_its_seed_is_still_one_write() -> None:
    kit = RoomKit()
    ann, ben = _table(kit)
    store = kit.store
    assert isinstance(store, MemoryStore)
    writes = store.writes
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    assert store.writes == writes + 1  # the ready flag and the seed, in one row
    kit.send(ben, Ready(step=0, seed=BEN_SEED.hex()))
    assert store.writes == writes + 2  # the last seed, the settled deal and the first flip
    record = store.load_all()[0]
    assert record.game.fair is not None and record.game.fair.settled
    assert record.game.fair.seeds == (ANN_SEED.hex(), BEN_SEED.hex())


def test_a_restart_while_a_fresh_deal_waits_for_commitments_loses_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.db"
    first = RoomKit(HubSettings(away_timeout=120), store=SqliteStore(path))
    ann, ben = _table(first)
    room_id = ann.welcome.state.room
    first.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    first.send(ben, Leave())  # Ben owed his seed: void
    assert ann.of(DealVoided)
    first.store.close()
    second = RoomKit(HubSettings(away_timeout=120), store=SqliteStore(path), now=first.now + 5)
    back = second.come_back(ann)
    state = back.welcome.state
    assert state.awaiting_commitments and state.voids == (0, 1)
    fresh = bytes([9]) * 32
    second.send(back, Commit(seed_commitment=commitment(fresh)))
    (started,) = back.of(GameStarted)
    assert started.seed_commitments == (commitment(fresh), None)
    second.send(back, Ready(step=0, seed=fresh.hex()))
    room = second.hub.room(room_id)
    assert room is not None
    second.advance(5)
    assert room.game.steps >= 1
    second.store.close()


def test_a_takeover_that_voids_the_deal_says_the_takeover_first() -> None:
    """A seat taken over on a device without its seed voids the deal: the table is told
    the request ended (who let the device in) before the void that follows from it, so
    every client's log reads the takeover, then the void."""
    kit = RoomKit()
    ann, ben = _table(kit)
    kit.send(ann, Ready(step=0, seed=ANN_SEED.hex()))
    kit.drop(ben)  # his seed stays on his phone
    stranger = kit.connect("10.0.0.9")
    kit.send(stranger, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    for peer in (ann, stranger):
        kinds = [type(message) for message in peer.inbox]
        assert DealVoided in kinds
        assert kinds.index(SeatRequestEnded) < kinds.index(DealVoided), kinds
        (ended,) = peer.of(SeatRequestEnded)
        (voided,) = peer.of(DealVoided)
        assert ended.seq < voided.seq
