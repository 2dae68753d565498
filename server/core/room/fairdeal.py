"""A fair deal's commit–reveal in a room: the server's seed, each seat's commitment and seed.

For a game whose deal the server picks (PROTOCOL.md §10, docs/fairness.md), the room draws
a secret 32-byte seed when the game is set up (creation or rematch) and shows everyone its
commitment (``deal_commitment``) from the start. Each seat's ``seed_commitment`` comes with
its ``create_room``, ``join_room`` or ``rematch``; the seat reveals the seed with a
``ready``; a seed that does not match is refused (``seed_mismatch``), and so is a ready
without the seed a seat committed to (``seed_required``): the server never readies such
a seat, so the first cards wait for every committed seed. When the first cards are turned
the deal is *settled*: derived from the server's seed and every seat's seed. A seat that
cannot reveal (away past the away timeout, gone, taken over on a device without its seed)
*voids* the deal instead (`voided`): a fresh server seed, and the room waits for every
present player's new commitment (``commit``) before it shows the fresh deal. At game over
everything is revealed (``game_over.fairness``).

`FairRecord` is what a room stores of it (with its game: a restart between commit and
reveal loses nothing); the functions here are pure, and raise nothing for what a client
sends: a bad seed is a `Refusal`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from protocol import ErrorCode, Fairness
from protocol.fairness import SEED_BYTES, commitment, derive_deal, parse_commitment, parse_seed
from server.core.codes import RandomSource
from server.core.refusals import Refusal
from server.engine import Rules

__all__ = [
    "FairRecord",
    "collected",
    "dropped_seats",
    "fairness",
    "new_fair",
    "reveal",
    "settle",
    "unrevealed",
    "voided",
    "with_commitment",
]


@dataclass(frozen=True, slots=True)
class FairRecord:
    """A fair deal's values, as a room stores them (hex, lowercase).

    ``server_seed``: the server's secret seed (its SHA-256 is ``deal_commitment``);
    ``commitments``: each seat's ``seed_commitment`` for this game (None: it made none, or
    it was dropped when the deal was settled); ``seeds``: each seat's revealed seed;
    ``settled``: the deal was derived (the game's deal number is the derived one);
    ``collecting``: a fresh deal after a void, waiting for the players' commitments (they
    are shown with its ``game_started``).
    """

    server_seed: str
    commitments: tuple[str | None, ...]
    seeds: tuple[str | None, ...]
    settled: bool = False
    collecting: bool = False

    def __post_init__(self) -> None:
        parse_seed(self.server_seed, "the server seed")
        if len(self.commitments) != len(self.seeds):
            raise ValueError("a fair deal needs one commitment and one seed place per seat")
        for seat, (committed, seed) in enumerate(zip(self.commitments, self.seeds, strict=True)):
            if committed is not None:
                parse_commitment(committed, f"the commitment of seat {seat}")
            if seed is not None and (
                committed is None or commitment(parse_seed(seed)) != committed
            ):
                raise ValueError(f"the stored seed of seat {seat} does not match")

    @property
    def deal_commitment(self) -> str:
        """The commitment everyone is shown: SHA-256 of the server's seed."""
        return commitment(bytes.fromhex(self.server_seed))


def new_fair(random: RandomSource, commitments: Sequence[str | None]) -> FairRecord:
    """A game's fair deal, set up now: a fresh server seed (``random``, `secrets` in a
    server) and the seats' ``commitments`` (one per seat, None where a seat made none)."""
    seed = random.token_bytes(SEED_BYTES)
    return FairRecord(seed.hex(), tuple(commitments), (None,) * len(commitments))


def with_commitment(fair: FairRecord, seat: int, committed: str | None) -> FairRecord:
    """``fair`` with seat ``seat``'s commitment set (a seat taken or opened again before
    the start)."""
    commitments = list(fair.commitments)
    seeds = list(fair.seeds)
    commitments[seat], seeds[seat] = committed, None
    return dataclasses.replace(fair, commitments=tuple(commitments), seeds=tuple(seeds))


def reveal(fair: FairRecord, seat: int, seed: str) -> FairRecord | Refusal:
    """``fair`` with seat ``seat``'s ``seed`` (hex, checked by the codec) revealed, or the
    `Refusal` of a seed that does not match its commitment. A seed from a seat that made
    no commitment, or once the deal is settled, changes nothing."""
    committed = fair.commitments[seat]
    if fair.settled or committed is None or fair.seeds[seat] == seed:
        return fair
    if commitment(bytes.fromhex(seed)) != committed:
        text = f"the seed of seat {seat} does not match the seed_commitment it made"
        return Refusal(ErrorCode.SEED_MISMATCH, text)
    seeds = list(fair.seeds)
    seeds[seat] = seed
    return dataclasses.replace(fair, seeds=tuple(seeds))


def unrevealed(fair: FairRecord | None, seat: int) -> bool:
    """Whether ``seat`` committed to a seed for a deal not yet settled and has not revealed
    it: the server never readies it, and if it cannot reveal the deal is void."""
    if fair is None or fair.settled or fair.collecting:
        return False
    return fair.commitments[seat] is not None and fair.seeds[seat] is None


def voided(fair: FairRecord, random: RandomSource) -> FairRecord:
    """A fresh deal in place of ``fair`` (void before its first card): a new server seed,
    no commitment yet, collecting the players' new ones."""
    fresh = new_fair(random, (None,) * len(fair.commitments))
    return dataclasses.replace(fresh, collecting=True)


def collected(fair: FairRecord, present: Sequence[int]) -> FairRecord | None:
    """``fair`` with its commitments fixed, if every ``present`` seat (held by a connected
    person) has committed, and at least one is: the seats not present contribute none.
    None while some present seat has not."""
    if not fair.collecting or not present or any(fair.commitments[s] is None for s in present):
        return None
    kept = tuple(c if seat in present else None for seat, c in enumerate(fair.commitments))
    return dataclasses.replace(fair, commitments=kept, collecting=False)


def dropped_seats(fair: FairRecord) -> tuple[int, ...]:
    """The seats that committed but have not revealed (none when the first cards are
    turned: the server never readies them)."""
    return tuple(
        seat
        for seat, (committed, seed) in enumerate(zip(fair.commitments, fair.seeds, strict=True))
        if committed is not None and seed is None
    )


def settle(fair: FairRecord, rules: Rules) -> tuple[FairRecord, int]:
    """The settled ``fair`` (every unrevealed commitment dropped) and the deal it gives
    under ``rules`` (PROTOCOL.md §10, `protocol.fairness.derive_deal`)."""
    pairs = zip(fair.commitments, fair.seeds, strict=True)
    commitments = tuple(c if s is not None else None for c, s in pairs)
    seeds = [None if s is None else bytes.fromhex(s) for s in fair.seeds]
    deal = derive_deal(bytes.fromhex(fair.server_seed), rules.to_dict(), seeds)
    return dataclasses.replace(fair, commitments=commitments, settled=True), deal


def fairness(fair: FairRecord) -> Fairness:
    """What ``game_over`` reveals of a settled fair deal."""
    return Fairness(server_seed=fair.server_seed, seeds=fair.seeds)
