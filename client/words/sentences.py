"""Plain sentences about the room, from one participant's point of view.

Pure functions of the view state, the seat they are written for (``me``; None for a
spectator) and the viewer's catalog (``words``, :mod:`client.words.catalog`: every word is
there, in each language). Names come from the room and never carry a gender, so a player
other than ``me`` is always named: "Grandma's King beats your 7. Grandma takes 2 cards.";
a spectator reads "Ann's Queen beats Ben's 9. Ann takes 2 cards.". The one computer
opponent of a room (the seat the server names "Computer") is "the computer", and "it"
once named, as the full rule page says: "The computer's King beats your 7. It takes 2
cards.". Several computer seats ("Computer 1", "Computer 2") and a seat the computer
plays for a player who left keep their names.

- :func:`describe` tells what one server message changed (zero or more sentences).
- :func:`status` says where the game stands and what ``me`` may do now.
- :func:`result_sentence` and :func:`summary_sentence` say how a game ended.
- :func:`rules_sentence` says the rules in force, :func:`score` every player's count and
  the round, :func:`votes_sentence` who asked for what and who still has to vote.

Who is who is in :mod:`client.words.who`; :mod:`client.words.results` and
:mod:`client.words.standing`
hold the end and the standing, re-exported here so that ``client.words.sentences`` stays the one
place a renderer imports its words from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.state.view import ViewState
from client.words.catalog import YOU, Catalog, Count, Said, War, said
from client.words.countdown import clock_text
from client.words.results import longest_name, result_sentence, standings_sentence, summary_sentence
from client.words.seats import (
    ended_sentence,
    open_request_sentence,
    requested_sentence,
    waiting_sentence,
)
from client.words.standing import rules_sentence, score, seeds_awaited, status, votes_sentence
from client.words.talk import deal_text, evening_score, talk_line
from client.words.who import card_of, named, persons, who
from protocol import (
    AutoPlay,
    AutoPlayChanged,
    BothShort,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    ConnectionChanged,
    Error,
    FinishVoted,
    GameOver,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    Reacted,
    RematchVoted,
    RoomPhase,
    ServerMessage,
    ShortWar,
    Snapshot,
    SpectatorsChanged,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
    still_to_vote,
)
from protocol import Said as SaidMessage
from protocol.seat_requests import SeatRequested, SeatRequestEnded, SeatRequestWaiting

__all__ = [
    "closed_because",
    "describe",
    "describe_table",
    "error_reason",
    "longest_name",
    "result_sentence",
    "rules_sentence",
    "score",
    "standings_sentence",
    "status",
    "summary_sentence",
    "votes_sentence",
]

Lines = tuple[str, ...]
"""What a message is told as: zero or more sentences."""


# --- one message -----------------------------------------------------------------------------
def describe(
    before: ViewState, message: ServerMessage, after: ViewState, me: int | None, *, words: Catalog
) -> tuple[str, ...]:
    """Sentences telling what ``message`` changed, written for seat ``me`` in ``words``.

    ``before`` and ``after`` are the views around :func:`client.state.view.apply`; a message the
    reducer ignored (a repeat, or one held back for a resync) gives no sentence. Returns
    an empty tuple for messages only a table drawing shows (ready flags, turned cards).
    """
    if after is before:
        return ()
    if after.needs_resync and not before.needs_resync:
        return (words.text("said.resync"),)
    if isinstance(message, Welcome):
        return _welcome(after, me, words, table=False, first=not before.welcomed)
    teller = _TELLERS.get(type(message))
    return () if teller is None else teller(before, message, after, me, words)


def describe_table(
    before: ViewState, message: ServerMessage, after: ViewState, me: int | None, *, words: Catalog
) -> tuple[str, ...]:
    """:func:`describe` for a table, which leaves out of the welcome what it shows on its
    own: the room's codes, how many players it still waits for, and the rules (the first
    welcome of a connection says them in a line of its own: "Rules: Aces are high. …")."""
    told = after is not before and not (after.needs_resync and not before.needs_resync)
    if told and isinstance(message, Welcome):
        return _welcome(after, me, words, table=True, first=not before.welcomed)
    return describe(before, message, after, me, words=words)


# Each teller: (before, message, after, me, words) -> the sentences; a message type without
# one (ready flags, turned cards) is only drawn, never told.
def _error(
    before: ViewState, message: Error, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    if not after.welcomed:
        return ()  # a refused opening: the connection's end says why, once
    return (w.text("said.server_says", reason=error_reason(message)),)


def _joined(
    before: ViewState, message: PlayerJoined, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    seat = message.seat
    if seat == me:
        return ()
    return (w.text("said.joined", who=who(after, seat, me), seat=seat + 1),)


def _left(
    before: ViewState, message: PlayerLeft, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (w.text("said.left", who=who(before, message.seat, me)),)


def _connection(
    before: ViewState, message: ConnectionChanged, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    seat = message.seat
    if seat == me:
        return ()
    if message.rejoined:
        return (w.text("said.rejoined", who=named(after, seat)),)
    return (w.text("said.back" if message.connected else "said.away", who=named(after, seat)),)


def _waiting(
    before: ViewState, message: WaitingFor, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    away = [s for s in after.away_waited if s not in before.away_waited]
    if not away or after.phase is not RoomPhase.PLAYING:
        return ()
    return (w.text("said.waits_for_away", names=[named(after, s) for s in away]),)


def _auto(
    before: ViewState, message: AutoPlayChanged, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    seat, mode = message.seat, message.mode
    if message.away:
        key = "said.away_play" if mode is AutoPlay.CALM else "said.away_stop"
        return (w.text(key, who=YOU if seat == me else named(after, seat)),)
    if seat == me:
        return (w.text("said.auto_yours", mode=_mode(mode)),)
    if seat in after.left:
        if mode is AutoPlay.OFF:
            return ()
        return (w.text("said.computer_plays_for", who=named(after, seat)),)
    if after.seat(seat) is not None and after.seats[seat].computer:
        return ()  # the computer always plays at its own pace
    return (w.text("said.auto_other", who=named(after, seat), mode=_mode(mode)),)


def _mode(mode: AutoPlay) -> Said:
    return said("auto.mode", mode=mode.value)


def _finish_voted(
    before: ViewState, message: FinishVoted, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    said_ = w.text("said.finish_voted", who=who(after, message.seat, me))
    return (said_, *_still_to_vote(after, me, w))


def _rematch_voted(
    before: ViewState, message: RematchVoted, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    said_ = w.text("said.rematch_voted", who=who(after, message.seat, me), wish=message.deal.value)
    return (said_, *_still_to_vote(after, me, w))


def _watching(
    before: ViewState, message: SpectatorsChanged, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (w.text("said.watching", count=message.count),)


def _time_up(
    before: ViewState, message: TimeUp, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (w.text("said.time_up_war" if after.war_depth else "said.time_up"),)


def _returned(
    before: ViewState, message: CardsReturned, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    said_ = w.text("said.returned")
    if _played_again(before, after):
        return (said_, w.text("said.played_again"))
    return (said_,)


def _out(
    before: ViewState, message: PlayerOut, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (w.text("said.out", who=who(after, message.seat, me), why=message.reason.value),)


def _over(
    before: ViewState, message: GameOver, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    result = after.result
    if result is None:  # pragma: no cover - the reducer always sets it
        return ()
    lines: Lines = (result_sentence(after, result, me, words=w), summary_sentence(result, words=w))
    if (placed := standings_sentence(after, result, me, words=w)) is not None:
        lines += (placed,)
    if after.evening:
        score = evening_score(after.evening, words=w, view=after)
        lines += (w.text("talk.evening_so_far", score=score),)
    return lines


def _talked(
    before: ViewState, message: Reacted | SaidMessage, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (talk_line(after, after.talk[-1], me, words=w),) if after.talk else ()


def _played_again(before: ViewState, after: ViewState) -> bool:
    """Whether a round given back is played again: someone outside the war that ran out
    is still in, and the rules play on (``both_short``; 0.1's rooms end instead)."""
    if after.rules.both_short is not BothShort.PLAY_ON:
        return False
    return any(
        record.name is not None and not record.out and record.seat not in before.war_seats
        for record in after.seats
    )


def _still_to_vote(view: ViewState, me: int | None, w: Catalog) -> tuple[str, ...]:
    pending = still_to_vote(view.phase, view.seats)
    if pending:
        return (w.text("said.still_to_vote", names=persons(view, pending, me)),)
    seeds = seeds_awaited(view)  # a fair deal's finish waits for every committed seed
    if seeds:
        return (w.text("said.finish_waits", names=persons(view, seeds, me)),)
    return ()


def _welcome(
    view: ViewState, me: int | None, w: Catalog, *, table: bool, first: bool = True
) -> tuple[str, ...]:
    lines = [_here(view, me, w), *_the_game(view, me, w, table=table)]
    if view.watch_code is not None and me is not None and not table:
        lines.append(w.text("said.watch_code", code=view.watch_code))
    if first and not table:
        lines.append(w.text("said.rules", rules=rules_sentence(view.rules, view.minutes, words=w)))
    if (asked := open_request_sentence(view, me, words=w)) is not None:
        lines.append(asked)  # a request open as this viewpoint came in: it is asked too
    return tuple(lines)


def _snapshot(
    before: ViewState, message: Snapshot, after: ViewState, me: int | None, w: Catalog
) -> Lines:
    """A snapshot is only drawn, but a request it brings (its ``seat_requested`` was
    missed) is told as that message would have been."""
    if after.seat_request == before.seat_request:
        return ()
    asked = open_request_sentence(after, me, words=w)
    return () if asked is None else (asked,)


def _here(view: ViewState, me: int | None, w: Catalog) -> str:
    """Who the welcome is for: "You are Ann, at seat 1 of 2.", or who a spectator watches."""
    if me is not None:
        seat, players = me + 1, view.rules.players
        return w.text("said.you_are", name=view.name(me), seat=seat, players=players)
    seated = persons(view, (s.seat for s in view.seats if s.name is not None), me)
    return w.text("said.watching_table", seated=seated) if seated else w.text("said.watching_empty")


def _the_game(view: ViewState, me: int | None, w: Catalog, *, table: bool) -> list[str]:
    """Where the game stands at a welcome: on (and its clock), over, or waiting."""
    if view.phase is RoomPhase.PLAYING:
        round_ = view.round + 1
        if view.time_up:
            return [w.text("said.game_on_time_up", round=round_)]
        if view.seconds_left is not None:
            clock = clock_text(view.seconds_left)
            return [w.text("said.game_on_clock", round=round_, clock=clock)]
        return [w.text("said.game_on", round=round_)]
    if view.phase is RoomPhase.OVER and view.result is not None:
        return [result_sentence(view, view.result, me, words=w)]
    if not view.open_seats or table:
        return []
    lines = [w.text("said.waiting_players", missing=Count("player", len(view.open_seats)))]
    if view.player_code is not None:
        lines.append(w.text("said.player_code", code=view.player_code))
    return lines


def _game_started(
    before: ViewState, message: GameStarted, view: ViewState, me: int | None, w: Catalog
) -> Lines:
    counts = set(message.counts)
    cards: Said = (
        said("said.each", cards=Count("card", counts.pop()))
        if len(counts) == 1
        else said("said.dealt")
    )
    if sum(message.counts) == 51:
        cards = said("said.set_aside", cards=cards)
    deal = message.deal
    if message.game == 1:
        key = "said.begins" if deal is None else "said.begins_deal"
        lines = [w.text(key, cards=cards, deal=deal_text(deal) if deal is not None else "")]
    else:
        lines = []
        votes = {s.rematch_vote for s in before.seats if s.rematch_vote is not None}
        if len(votes) > 1:
            same = deal is not None and deal == before.deal
            lines.append(w.text("said.votes_split", won="same" if same else "new"))
        key = "said.rematch_begins" if deal is None else "said.rematch_begins_deal"
        game = message.game
        told = deal_text(deal) if deal is not None else ""
        lines.append(w.text(key, cards=cards, game=game, deal=told))
    if view.minutes:
        lines[-1] += " " + w.text("said.on_the_clock", time=Count("minute", view.minutes))
    return tuple(lines)


def _war(
    before: ViewState, message: WarDeclared, view: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (_war_line(view, message, me, w),)


def _war_line(view: ViewState, message: WarDeclared, me: int | None, w: Catalog) -> str:
    head = w.text("said.war_head", war=War(message.depth))
    flip = view.last_flip
    if flip is None:
        return f"{head} {w.text('said.go_to_war', seats=persons(view, message.seats, me))}"
    tied = [(s, c) for s, c in flip.cards if s in message.seats]
    # a seat already out of the game does not "sit this one out": it is not playing
    others = [s for s, _ in flip.cards if s not in message.seats and not _is_out(view, s)]
    if len(tied) == 2:
        (s1, c1), (s2, c2) = sorted(tied, key=lambda pair: pair[0] != me)
        first, second = card_of(view, s1, c1, me), card_of(view, s2, c2, me)
        text = f"{head} {w.text('said.ties', first=first, second=second)}"
    else:
        cards = [card_of(view, s, c, me) for s, c in tied]
        text = f"{head} {w.text('said.tie', tied=cards)}"
    if others:
        text += " " + w.text("said.sits_out", names=persons(view, others, me))
    return text


def _is_out(view: ViewState, seat: int) -> bool:
    record = view.seat(seat)
    return record is not None and record.out


def _laid_down(
    before: ViewState, message: CardsLaidDown, view: ViewState, me: int | None, w: Catalog
) -> Lines:
    """Only a short player is worth a sentence (``short_war: last_card``)."""
    if view.rules.short_war is not ShortWar.LAST_CARD:
        return ()
    wanted = view.rules.face_down
    lines = []
    for seat, count in message.counts:
        record = view.seat(seat)
        if count >= wanted or record is None:
            continue
        subject = who(view, seat, me)
        if count:
            lines.append(w.text("said.short_down", who=subject, count=count))
        elif record.count:
            lines.append(w.text("said.last_card_up", who=subject))
        elif record.face_up:
            standing = card_of(view, seat, record.face_up[-1], me, again=True)
            lines.append(w.text("said.card_stands", who=subject, card=standing))
    return tuple(lines)


def _taken(
    before: ViewState, message: CardsTaken, view: ViewState, me: int | None, w: Catalog
) -> Lines:
    return (_taken_line(view, message, me, w),)


def _taken_line(view: ViewState, message: CardsTaken, me: int | None, w: Catalog) -> str:
    winner = message.seat
    flip = view.last_flip
    haul = Count("card", message.count)
    if flip is None or flip.step != message.step or winner not in dict(flip.cards):
        return w.text("said.last_one_left", who=who(view, winner, me), cards=haul)
    cards = dict(flip.cards)
    beaten = [card_of(view, s, c, me) for s, c in flip.cards if s != winner]
    text = w.text("said.beats", card=card_of(view, winner, cards[winner], me), beaten=beaten)
    again = who(view, winner, me, again=True)
    if flip.depth:
        won = w.text("said.wins_war", who=again, war=War(flip.depth), cards=haul)
    else:
        won = w.text("said.takes", who=again, cards=haul)
    return f"{text} {won}"


_Teller = Callable[[ViewState, Any, ViewState, int | None, Catalog], Lines]
_TELLERS: dict[type[ServerMessage], _Teller] = {
    Error: _error,
    PlayerJoined: _joined,
    PlayerLeft: _left,
    ConnectionChanged: _connection,
    WaitingFor: _waiting,
    AutoPlayChanged: _auto,
    FinishVoted: _finish_voted,
    RematchVoted: _rematch_voted,
    SpectatorsChanged: _watching,
    GameStarted: _game_started,
    TimeUp: _time_up,
    WarDeclared: _war,
    CardsLaidDown: _laid_down,
    CardsTaken: _taken,
    CardsReturned: _returned,
    PlayerOut: _out,
    GameOver: _over,
    SeatRequestWaiting: lambda before, message, after, me, w: (
        waiting_sentence(after, message, words=w),
    ),
    SeatRequested: lambda before, message, after, me, w: (
        requested_sentence(after, message, me, words=w),
    ),
    SeatRequestEnded: lambda before, message, after, me, w: (
        ended_sentence(after, message, me, words=w),
    ),
    Reacted: _talked,
    SaidMessage: _talked,
    Snapshot: _snapshot,
}
"""Who tells which message (see :func:`describe`)."""


def closed_because(code: int | None, error: Error | None = None) -> Said:
    """Why the connection closed, as one lowercase line (the catalog's ``close.reason``
    and ``error.reason``): what the ``error`` that came just before means (its code; the
    server's own sentence for a code this client does not know), else what the close
    code means (none: the connection dropped, as 1006)."""
    if error is not None:
        return error_reason(error)
    return said("close.reason", code=1006 if code is None else code)


def error_reason(error: Error) -> Said:
    """What an ``error`` from the server means, by its code, as a lowercase line (the
    server's own sentence, in English, only for a code this client does not know)."""
    return said("error.reason", code=error.code, message=error.message or error.code)
