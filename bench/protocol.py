"""Protocol codec benchmark: encode and decode per message type, in microseconds.

Run from the repository root as a module (a file named ``protocol.py`` run directly
would shadow the ``protocol`` package)::

    .venv/bin/python -m bench.protocol [--repeat 5] [--number 2000] [--markdown]

For one realistic instance of every message type it reports the encoded size, the time
of ``encode`` and of the direction's ``decode`` (best of ``--repeat`` runs of ``--number``
calls each), and as a floor the time of bare ``msgpack.packb``/``unpackb`` on the same map
(no validation), so the cost of strict checking is visible as a ratio. For a server
message, also ``encode_own`` (what the server sends with: the same bytes, unchecked).
"""

from __future__ import annotations

import argparse
import platform
import timeit
from typing import Any

import msgpack

from protocol import (
    CLIENT_MESSAGE_TYPES,
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ConnectionChanged,
    CreateRoom,
    Direction,
    Error,
    ErrorCode,
    FinishVoted,
    GameOver,
    GameResult,
    GameStarted,
    JoinRoom,
    Leave,
    Message,
    OutReason,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    Ready,
    ReadyChanged,
    Rematch,
    RematchDeal,
    RematchVoted,
    ResumeSeat,
    Resync,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    SetAutoPlay,
    Snapshot,
    SpectatorsChanged,
    Summary,
    Termination,
    TimeUp,
    VoteFinish,
    WaitingFor,
    WarDeclared,
    WatchRoom,
    Welcome,
    decode,
    encode,
    encode_own,
)

SUMMARY = Summary(rounds=377, wars=21, longest_war=2, biggest_haul=14, deal=90210)
FOUR_PLAYERS = RulesSpec(players=4, face_down=3, round_limit=100)
STATE = RoomState(
    room="r8k2",
    phase=RoomPhase.OVER,
    rules=FOUR_PLAYERS,
    seats=tuple(
        SeatState(
            seat=i,
            name=("Grandma", "Ben", "Ann", "Computer")[i],
            computer=i == 3,
            connected=True,
            ready=i % 2 == 0,
            auto=AutoPlay.CALM if i == 3 else AutoPlay.OFF,
            count=13,
            face_up=("QH", "9S", "KD"),
            face_down=6,
            rematch_vote=RematchDeal.SAME if i < 2 else None,
        )
        for i in range(4)
    ),
    game=2,
    step=412,
    round=377,
    war_depth=2,
    war_seats=(0, 2),
    waiting_for=(0, 2),
    spectators=3,
    deal=90210,
    result=GameResult(winner=0, termination=Termination.ROUND_LIMIT, summary=SUMMARY),
)

SAMPLES: list[Message] = [
    CreateRoom(name="Grandma", rules=FOUR_PLAYERS, computers=1, password="family table"),
    JoinRoom(code="K7MX-QD4R", name="Ben"),
    WatchRoom(code="9HWT-2CBN"),
    ResumeSeat(room="r8k2", token="Zr0sHq3T8mKx1vB9yQe2Lw"),
    Ready(step=412),
    SetAutoPlay(mode=AutoPlay.QUICK),
    VoteFinish(),
    Rematch(deal=RematchDeal.SAME),
    Leave(),
    Resync(),
    Welcome(
        seq=806,
        seat=1,
        token="N3wTkn0sHq3T8mKx1vB9yQ",
        player_code="K7MX-QD4R",
        watch_code="9HWT-2CBN",
        state=STATE,
    ),
    Snapshot(seq=806, state=STATE),
    Error(code=ErrorCode.STALE, message="ready for step 411, the game is at step 412"),
    PlayerJoined(seq=2, seat=1, name="Ben"),
    PlayerLeft(seq=90, seat=1),
    ConnectionChanged(seq=40, seat=1, connected=False),
    ReadyChanged(seq=5, seat=0, ready=True),
    WaitingFor(seq=6, seats=(1, 2, 3)),
    AutoPlayChanged(seq=7, seat=3, mode=AutoPlay.CALM),
    FinishVoted(seq=803, seat=1),
    RematchVoted(seq=807, seat=0, deal=RematchDeal.NEW),
    SpectatorsChanged(seq=12, count=3),
    GameStarted(seq=3, game=1, counts=(13, 13, 13, 13)),
    TimeUp(seq=700),
    CardsTurned(
        seq=7, step=1, round=1, depth=0, cards=((0, "QH"), (1, "QS"), (2, "9D"), (3, "4C"))
    ),
    CardsLaidDown(seq=12, step=2, round=1, depth=1, counts=((0, 3), (1, 3))),
    WarDeclared(seq=8, step=1, round=1, depth=1, seats=(0, 1)),
    CardsTaken(seq=14, step=2, round=1, seat=0, count=12, counts=(21, 9, 11, 11)),
    CardsReturned(seq=15, step=3, round=2, counts=(26, 26)),
    PlayerOut(seq=16, step=3, round=2, seat=1, reason=OutReason.SHORT_WAR),
    GameOver(
        seq=805,
        step=412,
        winner=0,
        termination=Termination.ALL_CARDS,
        summary=SUMMARY,
        counts=(52, 0, 0, 0),
    ),
]


def best_us(call: Any, number: int, repeat: int) -> float:
    """Best time of one call in microseconds."""
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=2000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best is kept")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)

    client_types = set(CLIENT_MESSAGE_TYPES.values())
    rows = []
    for message in SAMPLES:
        direction = (
            Direction.FROM_CLIENT if type(message) in client_types else Direction.FROM_SERVER
        )
        data = encode(message)
        assert decode(data, direction=direction) == message
        raw = msgpack.unpackb(data)
        enc = best_us(lambda m=message: encode(m), args.number, args.repeat)
        dec = best_us(lambda d=data, r=direction: decode(d, direction=r), args.number, args.repeat)
        floor = best_us(
            lambda v=raw, d=data: msgpack.unpackb(msgpack.packb(v)), args.number, args.repeat
        )
        own = None
        if direction is Direction.FROM_SERVER:
            assert encode_own(message) == data
            own = best_us(lambda m=message: encode_own(m), args.number, args.repeat)
        rows.append((type(message).TYPE, len(data), enc, dec, floor, own))

    header: tuple[str, ...] = ("message", "bytes", "encode µs", "encode_own µs", "decode µs")
    header += ("raw msgpack µs", "ratio")
    lines: list[tuple[str, ...]] = [
        (
            tag,
            str(size),
            f"{enc:.2f}",
            "" if own is None else f"{own:.2f}",
            f"{dec:.2f}",
            f"{floor:.2f}",
            f"{(enc + dec) / floor:.1f}×",
        )
        for tag, size, enc, dec, floor, own in rows
    ]
    print(f"# protocol codec, Python {platform.python_version()}, msgpack {msgpack.version}")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
        for line in [header, *lines]:
            print(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(line, widths, strict=True))
                )
            )
    total_enc = sum(r[2] for r in rows) / len(rows)
    total_dec = sum(r[3] for r in rows) / len(rows)
    owns = [r[5] for r in rows if r[5] is not None]
    print(f"mean over {len(rows)} types: encode {total_enc:.2f} µs, decode {total_dec:.2f} µs")
    print(f"mean over {len(owns)} server types: encode_own {sum(owns) / len(owns):.2f} µs")


if __name__ == "__main__":
    main()
