"""Hypothesis strategies for every protocol message (valid values only).

Written by hand from PROTOCOL.md, not derived from the codec's own schema, so a
round-trip test compares two independent readings of the format.
"""

from __future__ import annotations

import string
import unicodedata
from typing import Any

from hypothesis import strategies as st

from protocol import (
    ALL_CARDS,
    Aces,
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Commit,
    ConnectionChanged,
    CreateRoom,
    DealVoided,
    Error,
    ErrorCode,
    EveningGame,
    FinishVoted,
    GameOver,
    GameResult,
    GameStarted,
    JoinRoom,
    Leave,
    LookUp,
    OutReason,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    React,
    Reacted,
    Reaction,
    Ready,
    ReadyChanged,
    Rematch,
    RematchDeal,
    RematchVoted,
    ResumeSeat,
    Resync,
    RoomInfo,
    RoomPhase,
    RoomState,
    RulesSpec,
    Said,
    Say,
    SeatState,
    SecondPath,
    SecondPathReady,
    SetAutoPlay,
    ShortWar,
    Snapshot,
    SpectatorsChanged,
    Summary,
    TalkLine,
    TalkSetting,
    Termination,
    TieBreak,
    TimeUp,
    VoteFinish,
    WaitingFor,
    WarDeclared,
    WatchRoom,
    Welcome,
    WonCards,
)
from protocol.seat_requests import (
    MAX_REQUEST_SECONDS,
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequest,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)

seqs = st.integers(0, 2**63 - 1)
steps = st.integers(0, 2**63 - 1)
seats = st.integers(0, 3)
card_counts = st.integers(0, 52)
depths = st.integers(0, 52)
deals = st.integers(0, 2**64 - 1)
cards = st.sampled_from(ALL_CARDS)
seat_lists = st.lists(seats, max_size=4).map(tuple)
count_lists = st.lists(card_counts, max_size=4).map(tuple)
place_lists = st.lists(st.integers(1, 4), max_size=4).map(tuple)
page_urls = st.from_regex(r"https?://[!-~]{1,60}", fullmatch=True)

_visible = st.characters(
    blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp"),
    blacklist_characters="\x85",
)
names = st.text(_visible, min_size=1, max_size=24).filter(lambda s: s.strip() != "")
passwords = st.text(_visible, min_size=1, max_size=128).filter(lambda s: s.strip() != "")
codes = st.text(string.ascii_letters + string.digits + "-", min_size=4, max_size=32)
room_ids = st.text(string.ascii_letters + string.digits + "-", min_size=1, max_size=32)
says = (
    st.text(_visible, min_size=1, max_size=130)
    .map(lambda s: unicodedata.normalize("NFC", s).strip())
    .filter(lambda s: 1 <= len(s) <= 120)
)
reactions = st.sampled_from(Reaction)
tokens = st.text(string.ascii_letters + string.digits + "-_", min_size=16, max_size=128)
path_keys = st.text(string.ascii_letters + string.digits + "-_", min_size=22, max_size=22)
path_afters = st.integers(0, 2**31 - 1)


@st.composite
def rules(draw: st.DrawFn, *, round_limit: bool = True) -> RulesSpec:
    return RulesSpec(
        players=draw(st.integers(2, 4)),
        face_down=draw(st.sampled_from([1, 3])),
        aces=draw(st.sampled_from(Aces)),
        short_war=draw(st.sampled_from(ShortWar)),
        won_cards=draw(st.sampled_from(WonCards)),
        round_limit=draw(st.none() | st.integers(1, 1_000_000)) if round_limit else None,
        tie_break=draw(st.sampled_from(TieBreak)),
    )


@st.composite
def create_rooms(draw: st.DrawFn) -> CreateRoom:
    minutes = draw(st.none() | st.integers(1, 1440))
    room_rules = draw(rules(round_limit=minutes is None))
    return CreateRoom(
        name=draw(names),
        rules=room_rules,
        deal=draw(st.none() | deals),
        computers=draw(st.integers(0, room_rules.players - 1)),
        minutes=minutes,
        password=draw(st.none() | passwords),
        talk=draw(st.sampled_from(TalkSetting)),
    )


def seat_state(seat: int) -> st.SearchStrategy[SeatState]:
    return st.builds(
        SeatState,
        seat=st.just(seat),
        name=st.none() | names,
        computer=st.booleans(),
        connected=st.booleans(),
        ready=st.booleans(),
        auto=st.sampled_from(AutoPlay),
        out=st.booleans(),
        count=card_counts,
        face_up=st.lists(cards, max_size=52).map(tuple),
        face_down=card_counts,
        finish_vote=st.booleans(),
        rematch_vote=st.none() | st.sampled_from(RematchDeal),
    )


summaries = st.builds(
    Summary,
    rounds=steps,
    wars=steps,
    longest_war=depths,
    biggest_haul=card_counts,
    deal=deals,
)


@st.composite
def _evening_game(draw: st.DrawFn) -> EveningGame:
    game_names = tuple(draw(st.lists(st.none() | names, min_size=2, max_size=4)))
    return EveningGame(
        game=draw(st.integers(1, 2**63 - 1)),
        deal=draw(deals),
        winner=draw(st.none() | st.integers(0, len(game_names) - 1)),
        termination=draw(st.sampled_from(Termination)),
        rounds=draw(steps),
        names=game_names,
    )


evenings = _evening_game()


@st.composite
def room_states(draw: st.DrawFn) -> RoomState:
    room_rules = draw(rules())
    players = room_rules.players
    in_room = st.integers(0, players - 1)
    talk_line = st.builds(TalkLine, seat=st.none() | in_room, text=says) | st.builds(
        TalkLine, seat=st.none() | in_room, reaction=reactions
    )
    return RoomState(
        room=draw(room_ids),
        phase=draw(st.sampled_from(RoomPhase)),
        rules=room_rules,
        seats=tuple(draw(seat_state(i)) for i in range(players)),
        game=draw(st.integers(1, 2**63 - 1)),
        step=draw(steps),
        round=draw(steps),
        war_depth=draw(depths),
        war_seats=tuple(draw(st.lists(in_room, max_size=4))),
        waiting_for=tuple(draw(st.lists(in_room, max_size=4))),
        spectators=draw(st.integers(0, 1_000_000)),
        minutes=draw(st.none() | st.integers(1, 1440)),
        seconds_left=draw(st.none() | st.integers(0, 1440 * 60)),
        deal=draw(st.none() | deals),
        result=draw(
            st.none()
            | st.builds(
                GameResult,
                winner=st.none() | in_room,
                termination=st.sampled_from(Termination),
                summary=summaries,
                standings=place_lists,
            )
        ),
        talk=tuple(draw(st.lists(talk_line, max_size=6))),
        talk_setting=draw(st.sampled_from(TalkSetting)),
        evening=tuple(draw(st.lists(evenings, max_size=4))),
        seat_request=draw(
            st.none()
            | st.builds(SeatRequest, seat=in_room, seconds=st.integers(0, MAX_REQUEST_SECONDS))
        ),
        voids=draw(st.just(()) | st.just(tuple(range(players)))),
        awaiting_commitments=draw(st.booleans()),
    )


def _event(cls: type[Any], **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.builds(cls, seq=seqs, step=steps, round=steps, **fields)


CLIENT_STRATEGIES: dict[type[Any], st.SearchStrategy[Any]] = {
    CreateRoom: create_rooms(),
    JoinRoom: st.builds(JoinRoom, code=codes, name=names),
    WatchRoom: st.builds(WatchRoom, code=codes),
    ResumeSeat: st.builds(ResumeSeat, room=room_ids, token=tokens),
    LookUp: st.builds(LookUp, code=codes),
    SecondPath: st.builds(SecondPath, key=path_keys, after=path_afters),
    Ready: st.builds(Ready, step=steps),
    Commit: st.builds(Commit, seed_commitment=st.just("ab" * 32)),
    SetAutoPlay: st.builds(SetAutoPlay, mode=st.sampled_from(AutoPlay)),
    VoteFinish: st.just(VoteFinish()),
    Rematch: st.builds(Rematch, deal=st.sampled_from(RematchDeal)),
    Leave: st.just(Leave()),
    AnswerSeatRequest: st.builds(AnswerSeatRequest, seat=seats, allow=st.booleans()),
    Resync: st.just(Resync()),
    React: st.builds(React, reaction=reactions),
    Say: st.builds(Say, text=says),
}

SERVER_STRATEGIES: dict[type[Any], st.SearchStrategy[Any]] = {
    Welcome: st.builds(
        Welcome,
        seq=seqs,
        seat=st.none() | seats,
        token=st.none() | tokens,
        player_code=st.none() | codes,
        watch_code=st.none() | codes,
        state=room_states(),
        addresses=st.none() | st.lists(page_urls, max_size=16).map(tuple),
        path_key=st.none() | path_keys,
    ),
    SecondPathReady: st.builds(SecondPathReady, after=path_afters),
    Snapshot: st.builds(Snapshot, seq=seqs, state=room_states()),
    Error: st.builds(
        Error,
        code=st.sampled_from(ErrorCode).map(str)
        | st.from_regex(r"[a-z][a-z0-9_]{0,39}", fullmatch=True),
        message=st.text(max_size=500),
    ),
    RoomInfo: st.builds(
        RoomInfo,
        seq=seqs,
        host=st.none() | names,
        players=st.integers(0, 4),
        free=st.integers(0, 4),
        away=st.integers(0, 4),
        phase=st.sampled_from(RoomPhase),
    ),
    PlayerJoined: st.builds(PlayerJoined, seq=seqs, seat=seats, name=names, computer=st.booleans()),
    PlayerLeft: st.builds(PlayerLeft, seq=seqs, seat=seats),
    ConnectionChanged: st.builds(ConnectionChanged, seq=seqs, seat=seats, connected=st.booleans()),
    ReadyChanged: st.builds(ReadyChanged, seq=seqs, seat=seats, ready=st.booleans()),
    WaitingFor: st.builds(WaitingFor, seq=seqs, seats=seat_lists),
    AutoPlayChanged: st.builds(
        AutoPlayChanged, seq=seqs, seat=seats, mode=st.sampled_from(AutoPlay)
    ),
    FinishVoted: st.builds(FinishVoted, seq=seqs, seat=seats),
    DealVoided: st.builds(DealVoided, seq=seqs, seat=seats, voids=st.integers(1, 1000)),
    RematchVoted: st.builds(RematchVoted, seq=seqs, seat=seats, deal=st.sampled_from(RematchDeal)),
    SpectatorsChanged: st.builds(SpectatorsChanged, seq=seqs, count=st.integers(0, 1_000_000)),
    SeatRequestWaiting: st.builds(
        SeatRequestWaiting, seq=seqs, seat=seats, seconds=st.integers(0, MAX_REQUEST_SECONDS)
    ),
    SeatRequested: st.builds(
        SeatRequested, seq=seqs, seat=seats, seconds=st.integers(0, MAX_REQUEST_SECONDS)
    ),
    SeatRequestEnded: st.builds(
        SeatRequestEnded,
        seq=seqs,
        seat=seats,
        outcome=st.sampled_from(RequestOutcome),
        by=st.none() | seats,
        reclaim=st.integers(0, MAX_REQUEST_SECONDS),
    ),
    GameStarted: st.builds(
        GameStarted,
        seq=seqs,
        game=st.integers(1, 2**63 - 1),
        counts=count_lists,
        deal=st.none() | deals,
    ),
    TimeUp: st.builds(TimeUp, seq=seqs),
    CardsTurned: _event(
        CardsTurned, depth=depths, cards=st.lists(st.tuples(seats, cards), max_size=4).map(tuple)
    ),
    CardsLaidDown: _event(
        CardsLaidDown,
        depth=depths,
        counts=st.lists(st.tuples(seats, card_counts), max_size=4).map(tuple),
    ),
    WarDeclared: _event(WarDeclared, depth=depths, seats=seat_lists),
    CardsTaken: _event(CardsTaken, seat=seats, count=card_counts, counts=count_lists),
    CardsReturned: _event(CardsReturned, counts=count_lists),
    PlayerOut: _event(PlayerOut, seat=seats, reason=st.sampled_from(OutReason)),
    GameOver: st.builds(
        GameOver,
        seq=seqs,
        step=steps,
        winner=st.none() | seats,
        termination=st.sampled_from(Termination),
        summary=summaries,
        counts=count_lists,
        standings=place_lists,
        evening=st.lists(evenings, max_size=3).map(tuple),
    ),
    Reacted: st.builds(Reacted, seq=seqs, seat=st.none() | seats, reaction=reactions),
    Said: st.builds(Said, seq=seqs, seat=st.none() | seats, text=says),
}

client_messages = st.one_of(*CLIENT_STRATEGIES.values())
server_messages = st.one_of(*SERVER_STRATEGIES.values())
