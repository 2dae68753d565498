"""This client's fair-deal seeds: drawn, committed to, revealed, and kept with the seat.

For a deal the server picks (PROTOCOL.md §10), each seated client draws a 32-byte seed
(`secrets`), sends its SHA-256 as ``seed_commitment`` with ``create_room``, ``join_room``
and ``rematch``, and the seed itself with its first ``ready`` of that game (`Seeds.outgoing`
adds both to the messages the player's keys make). The seed is kept with the seat token
in the state file (`client.net.statefile`), so a client restarted between the commitment and
the reveal still reveals it; at game over `Seeds.mine` is what the check looks for in the
derivation.
"""

from __future__ import annotations

import dataclasses

from client.state.viewstate import ViewState
from protocol import (
    AutoPlay,
    ClientMessage,
    Commit,
    CreateRoom,
    DealVoided,
    JoinRoom,
    Ready,
    Rematch,
    ServerMessage,
    SetAutoPlay,
    Snapshot,
    VoteFinish,
    WatchRoom,
    Welcome,
)
from protocol.fairness import commitment, new_seed

__all__ = ["Seeds"]

_KEPT_GAMES = 2
"""Seeds kept: the game being played (or just over) and the next (a rematch's)."""


class Seeds:
    """The seeds of one seat, by game number (a new seat's first game: ``None`` until
    its ``welcome`` says which game it sat down in)."""

    def __init__(self) -> None:
        self._by_game: dict[int, bytes] = {}
        self._unplaced: bytes | None = None
        self._revealed: int | None = None

    def opening(
        self, message: CreateRoom | JoinRoom | WatchRoom
    ) -> CreateRoom | JoinRoom | WatchRoom:
        """``message`` (a ``create_room`` or ``join_room``) with a fresh seed's commitment."""
        if not isinstance(message, CreateRoom | JoinRoom):
            return message
        seed = self._unplaced = new_seed()
        return dataclasses.replace(message, seed_commitment=commitment(seed))

    def seated(self, game: int, *, opened: bool = True) -> None:
        """A ``welcome`` into ``game``: of the opening (``opened``: its commitment is the
        seat's now, a seed kept from an older seat gives way), or of a resume (a seed kept
        with the seat's token stays)."""
        if self._unplaced is not None and opened:
            self._by_game[game] = self._unplaced
            self._unplaced = None

    def outgoing(
        self, message: ClientMessage, game: int, step: int, committed: str | None = None
    ) -> ClientMessage:
        """``message`` as it should go now, in game ``game`` at ``step``: the first
        ``ready`` reveals this game's seed (if it is the one the table shows this seat
        ``committed`` to), a ``rematch`` commits to the next game's."""
        if isinstance(message, Ready) and step == 0 and message.seed is None:
            seed = self._by_game.get(game)
            if seed is None or committed != commitment(seed):
                return message
            return dataclasses.replace(message, seed=seed.hex())
        if isinstance(message, Rematch):
            seed = self._by_game.setdefault(game + 1, new_seed())
            for old in sorted(self._by_game)[:-_KEPT_GAMES]:
                del self._by_game[old]
            return dataclasses.replace(message, seed_commitment=commitment(seed))
        return message

    def reveal_due(self, view: ViewState, committed: str | None) -> Ready | None:
        """The ``ready`` that reveals this game's seed now, if the seat plays by itself
        (auto-play) and the game waits for its first ready: else the server's auto-play
        would turn the first cards without it (`outgoing` puts the seed in). Once a game."""
        me = view.me
        if me is None or me.auto is AutoPlay.OFF or view.step != 0 or not view.my_turn:
            return None
        seed = self._by_game.get(view.game)
        if seed is None or committed != commitment(seed) or self._revealed == view.game:
            return None
        self._revealed = view.game
        return Ready(step=0)

    def auto_first(
        self, message: ClientMessage, view: ViewState, committed: str | None = None
    ) -> bool:
        """Whether ``message`` turns auto-play on, or votes to finish, while the game waits
        for this seat's first ready, with a seed to reveal (the one the table shows it
        ``committed`` to): the seed goes first, with a ``ready`` (a finish plays the deal
        out, and the deal waits for every committed seed: PROTOCOL.md ``vote_finish``)."""
        seed = self._by_game.get(view.game)
        starts = isinstance(message, SetAutoPlay) and message.mode is not AutoPlay.OFF
        return (
            (starts or isinstance(message, VoteFinish))
            and view.step == 0
            and view.my_turn
            and seed is not None
            and committed == commitment(seed)
        )

    def commit_due(self, message: ServerMessage, view: ViewState) -> Commit | None:
        """The ``commit`` to send now, with a fresh seed for game ``view.game``, if this
        seat's table voided its deal (``deal_voided``) or waits for commitments (a state
        with ``awaiting_commitments``: a client that came back meanwhile); else None. The
        fresh seed replaces the voided one (keep it with the seat: `latest`)."""
        if view.my_seat is None:
            return None
        waiting = isinstance(message, Welcome | Snapshot) and message.state.awaiting_commitments
        if not (isinstance(message, DealVoided) or waiting):
            return None
        seed = self._by_game[view.game] = new_seed()
        self._revealed = None
        return Commit(seed_commitment=commitment(seed))

    def mine(self, game: int) -> bytes | None:
        """The seed this client committed to for ``game``, if it did."""
        return self._by_game.get(game)

    def latest(self) -> tuple[str, int] | None:
        """The newest seed (hex) and its game, to keep with the seat token."""
        if not self._by_game:
            return None
        game = max(self._by_game)
        return self._by_game[game].hex(), game

    def restore(self, seed: str | None, game: int | None) -> None:
        """A seed kept in the state file (from `latest`), if it is one."""
        if seed is None or game is None:
            return
        try:
            value = bytes.fromhex(seed)
        except ValueError:
            return
        if len(value) == len(new_seed()):
            self._by_game.setdefault(game, value)
