"""Plain sentences about the room, from one participant's point of view.

Pure functions of the view state and the seat they are written for (``me``; None for a
spectator). Names come from the room and never carry a gender, so a player other than
``me`` is always named: "Grandma's King beats your 7. Grandma takes 2 cards."; a
spectator reads "Ann's Queen beats Ben's 9. Ann takes 2 cards.". The one computer
opponent of a room (the seat the server names "Computer") is "the computer", and "it"
once named, as the full rule page says: "The computer's King beats your 7. It takes 2
cards.". Several computer seats ("Computer 1", "Computer 2") and a seat the computer
plays for a player who left keep their names.

- :func:`describe` tells what one server message changed (zero or more sentences).
- :func:`status` says where the game stands and what ``me`` may do now.
- :func:`result_sentence` and :func:`summary_sentence` say how a game ended.
- :func:`rules_sentence` says the rules in force, :func:`score` every player's count and
  the round, :func:`votes_sentence` who asked for what and who still has to vote.

The small words are in :mod:`client._words`; :mod:`client.results` and :mod:`client.standing`
hold the end and the standing, re-exported here so that ``client.sentences`` stays the one
place a renderer imports its words from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client._words import (
    cap,
    card_of,
    does,
    does_again,
    full_stop,
    join_words,
    longest_name,
    plural,
    the_computer,
    war_name,
    who,
    whose,
)
from client.cards import rank_word
from client.countdown import clock_text
from client.results import result_sentence, standings_sentence, summary_sentence
from client.seat_words import ended_sentence, requested_sentence, waiting_sentence
from client.standing import rules_sentence, score, status, votes_sentence
from client.talk import evening_score, talk_line
from client.view import ViewState
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
    RematchDeal,
    RematchVoted,
    RoomPhase,
    ServerMessage,
    ShortWar,
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
    "describe",
    "join_words",
    "longest_name",
    "result_sentence",
    "rules_sentence",
    "score",
    "standings_sentence",
    "status",
    "summary_sentence",
    "votes_sentence",
    "war_name",
]

Said = tuple[str, ...]
"""What a message is told as: zero or more sentences."""


# --- one message -----------------------------------------------------------------------------
def describe(
    before: ViewState,
    message: ServerMessage,
    after: ViewState,
    me: int | None,
    *,
    table: bool = False,
) -> tuple[str, ...]:
    """Sentences telling what ``message`` changed, written for seat ``me``.

    ``before`` and ``after`` are the views around :func:`client.view.apply`; a message the
    reducer ignored (a repeat, or one held back for a resync) gives no sentence. Returns
    an empty tuple for messages only a table drawing shows (ready flags, turned cards).
    ``table=True`` leaves out of the welcome what a table shows on its own: the room's
    codes, how many players it still waits for, and the rules (the first welcome of a
    connection says them in a line of its own: "Rules: Aces are high. …").
    """
    if after is before:
        return ()
    if after.needs_resync and not before.needs_resync:
        return ("Some messages went missing; asking the server for the whole table.",)
    if isinstance(message, Welcome):
        return _welcome(after, me, table=table, first=not before.welcomed)
    teller = _TELLERS.get(type(message))
    return () if teller is None else teller(before, message, after, me)


# Each teller: (before, message, after, me) -> the sentences; a message type without one
# (ready flags, turned cards, snapshots) is only drawn, never told.
def _error(before: ViewState, message: Error, after: ViewState, me: int | None) -> Said:
    if not after.welcomed:
        return ()  # a refused opening: the connection's end says why, once
    return (f"The server says: {full_stop(message.message or message.code)}",)


def _joined(before: ViewState, message: PlayerJoined, after: ViewState, me: int | None) -> Said:
    seat = message.seat
    if seat == me:
        return ()
    if the_computer(after, seat):
        return (f"The computer takes seat {seat + 1}.",)
    joined = f"{message.name} (the computer)" if message.computer else message.name
    return (f"{joined} takes seat {seat + 1}.",)


def _left(before: ViewState, message: PlayerLeft, after: ViewState, me: int | None) -> Said:
    return (f"{cap(does(before, message.seat, me, 'leave', 'leaves'))} the table.",)


def _connection(
    before: ViewState, message: ConnectionChanged, after: ViewState, me: int | None
) -> Said:
    seat = message.seat
    if seat == me:
        return ()
    if message.rejoined:
        return (f"{after.name(seat)} is back, on another device (with the player code).",)
    return (f"{after.name(seat)} is {'back' if message.connected else 'away'}.",)


def _waiting(before: ViewState, message: WaitingFor, after: ViewState, me: int | None) -> Said:
    away = [s for s in after.away_waited if s not in before.away_waited]
    if not away or after.phase is not RoomPhase.PLAYING:
        return ()
    names = join_words(after.name(s) for s in away)
    return (f"The game waits for {names}, away for now.",)


def _auto(before: ViewState, message: AutoPlayChanged, after: ViewState, me: int | None) -> Said:
    seat, mode = message.seat, message.mode
    if message.away:
        return (_away_play(after, seat, me, playing=mode is AutoPlay.CALM),)
    if seat == me:
        return (f"Your auto-play is {mode.value}.",)
    if seat in after.left:
        return (
            ()
            if mode is AutoPlay.OFF
            else (f"The computer plays for {after.name(seat)} from now on.",)
        )
    if after.seat(seat) is not None and after.seats[seat].computer:
        return ()  # the computer always plays at its own pace
    return (f"{after.name(seat)} turns auto-play {mode.value}.",)


def _finish_voted(
    before: ViewState, message: FinishVoted, after: ViewState, me: int | None
) -> Said:
    said = f"{cap(does(after, message.seat, me, 'vote', 'votes'))} to finish the game."
    return (said, *_still_to_vote(after, me))


def _rematch_voted(
    before: ViewState, message: RematchVoted, after: ViewState, me: int | None
) -> Said:
    wish = "a rematch with a new deal" if message.deal is RematchDeal.NEW else "this deal again"
    said = f"{cap(does(after, message.seat, me, 'ask', 'asks'))} for {wish}."
    return (said, *_still_to_vote(after, me))


def _watching(
    before: ViewState, message: SpectatorsChanged, after: ViewState, me: int | None
) -> Said:
    if message.count == 0:
        return ("Nobody is watching now.",)
    if message.count == 1:
        return ("1 person is watching.",)
    return (f"{message.count} people are watching.",)


def _time_up(before: ViewState, message: TimeUp, after: ViewState, me: int | None) -> Said:
    if after.war_depth:
        return ("Time is up: the game ends once this war is settled.",)
    return ("Time is up.",)


def _returned(before: ViewState, message: CardsReturned, after: ViewState, me: int | None) -> Said:
    said = "Everyone in the war ran out of cards at once: each takes their own cards back."
    if _played_again(before, after):
        return (said, "Nobody takes this round: it is played again.")
    return (said,)


def _out(before: ViewState, message: PlayerOut, after: ViewState, me: int | None) -> Said:
    seat = message.seat
    why = (
        "too few cards to finish the war"
        if message.reason.value == "short_war"
        else "no cards left"
    )
    verb, out = ("have", "are") if seat == me else ("has", "is")
    return (f"{cap(who(after, seat, me))} {verb} {why} and {out} out.",)


def _over(before: ViewState, message: GameOver, after: ViewState, me: int | None) -> Said:
    result = after.result
    if result is None:  # pragma: no cover - the reducer always sets it
        return ()
    lines: Said = (result_sentence(after, result, me), summary_sentence(result))
    if (placed := standings_sentence(after, result, me)) is not None:
        lines += (placed,)
    if after.evening:
        lines += (f"The evening so far: {evening_score(after.evening)}.",)
    return lines


def _talked(
    before: ViewState, message: Reacted | SaidMessage, after: ViewState, me: int | None
) -> Said:
    return (talk_line(after, after.talk[-1], me),) if after.talk else ()


def _away_play(view: ViewState, seat: int, me: int | None, *, playing: bool) -> str:
    """The server starts (``playing``) or stops playing an away seat for its player."""
    if seat == me:
        if playing:
            return "You are away: the server plays for you calmly until you come back."
        return "While you were away the server played for you; now you play again."
    name = view.name(seat)
    if playing:
        return f"{name} is away: the server plays for them calmly until they come back."
    return f"The server no longer plays for {name}."


def _played_again(before: ViewState, after: ViewState) -> bool:
    """Whether a round given back is played again: someone outside the war that ran out
    is still in, and the rules play on (``both_short``; 0.1's rooms end instead)."""
    if after.rules.both_short is not BothShort.PLAY_ON:
        return False
    return any(
        record.name is not None and not record.out and record.seat not in before.war_seats
        for record in after.seats
    )


def _still_to_vote(view: ViewState, me: int | None) -> tuple[str, ...]:
    pending = still_to_vote(view.phase, view.seats)
    if not pending:
        return ()
    return (f"Still to vote: {join_words(who(view, s, me) for s in pending)}.",)


def _welcome(
    view: ViewState, me: int | None, *, table: bool, first: bool = True
) -> tuple[str, ...]:
    players = view.rules.players
    if me is None:
        seated = [who(view, s.seat, me) for s in view.seats if s.name is not None]
        lines = [f"You are watching {join_words(seated) or 'an empty table'}."]
    else:
        lines = [f"You are {view.name(me)}, at seat {me + 1} of {players}."]
    if view.phase is RoomPhase.PLAYING:
        on = f"The game is on: round {view.round + 1}"
        if view.time_up:
            lines.append(f"{on}; time is up.")
        elif view.seconds_left is not None:
            lines.append(f"{on}, {clock_text(view.seconds_left)} left.")
        else:
            lines.append(f"{on}.")
    elif view.phase is RoomPhase.OVER and view.result is not None:
        lines.append(result_sentence(view, view.result, me))
    elif view.open_seats and not table:
        lines.append(f"Waiting for {plural(len(view.open_seats), 'more player')}.")
        if view.player_code is not None:
            lines.append(f"Player code: {view.player_code}.")
    if view.watch_code is not None and me is not None and not table:
        lines.append(f"Watch code: {view.watch_code}.")
    if first and not table:
        lines.append(f"Rules: {rules_sentence(view.rules, view.minutes)}")
    return tuple(lines)


def _game_started(before: ViewState, message: GameStarted, view: ViewState, me: int | None) -> Said:
    counts = set(message.counts)
    each = f"{plural(counts.pop(), 'card')} each" if len(counts) == 1 else "cards dealt"
    aside = " (one card is set aside)" if sum(message.counts) == 51 else ""
    deal = f", deal {message.deal}" if message.deal is not None else ""
    clock = f" {plural(view.minutes, 'minute')} on the clock." if view.minutes else ""
    if message.game == 1:
        return (f"The game begins{deal}: {each}{aside}.{clock}",)
    lines = []
    votes = {s.rematch_vote for s in before.seats if s.rematch_vote is not None}
    if len(votes) > 1:
        same = message.deal is not None and message.deal == before.deal
        won = "this deal again" if same else "a new deal"
        lines.append(f"The votes were split between a new deal and this deal again: {won} won.")
    lines.append(f"Rematch: game {message.game} begins{deal}: {each}{aside}.{clock}")
    return tuple(lines)


def _war(before: ViewState, message: WarDeclared, view: ViewState, me: int | None) -> Said:
    return (_war_line(view, message, me),)


def _war_line(view: ViewState, message: WarDeclared, me: int | None) -> str:
    head = cap(war_name(message.depth)) + "!"
    flip = view.last_flip
    if flip is None:
        names = join_words(who(view, s, me) for s in message.seats)
        return f"{head} {cap(names)} go to war."
    tied = [(s, c) for s, c in flip.cards if s in message.seats]
    # a seat already out of the game does not "sit this one out": it is not playing
    others = [s for s, _ in flip.cards if s not in message.seats and not _is_out(view, s)]
    if len(tied) == 2:
        (s1, c1), (s2, c2) = sorted(tied, key=lambda pair: pair[0] != me)
        text = f"{head} {cap(card_of(view, s1, c1, me))} ties {card_of(view, s2, c2, me)}."
    else:
        cards = join_words(card_of(view, s, c, me) for s, c in tied)
        text = f"{head} {cap(cards)} tie."
    if others:
        text += f" {cap(join_words(who(view, s, me) for s in others))} "
        text += "sit this one out." if len(others) > 1 or others[0] == me else "sits this one out."
    return text


def _is_out(view: ViewState, seat: int) -> bool:
    record = view.seat(seat)
    return record is not None and record.out


def _laid_down(before: ViewState, message: CardsLaidDown, view: ViewState, me: int | None) -> Said:
    """Only a short player is worth a sentence (``short_war: last_card``)."""
    if view.rules.short_war is not ShortWar.LAST_CARD:
        return ()
    wanted = view.rules.face_down
    lines = []
    for seat, count in message.counts:
        record = view.seat(seat)
        if count >= wanted or record is None:
            continue
        if count:
            subject = cap(does(view, seat, me, "are", "is"))
            lines.append(f"{subject} short of cards: only {count} face down.")
        elif record.count:
            subject = cap(does(view, seat, me, "have", "has"))
            lines.append(f"{subject} one card left: it goes face up.")
        elif record.face_up:
            subject = cap(does(view, seat, me, "have", "has"))
            owner = "its" if seat != me and the_computer(view, seat) else whose(view, seat, me)
            standing = f"{owner} {rank_word(record.face_up[-1])}"
            lines.append(f"{subject} no cards left: {standing} stands again.")
    return tuple(lines)


def _taken(before: ViewState, message: CardsTaken, view: ViewState, me: int | None) -> Said:
    return (_taken_line(view, message, me),)


def _taken_line(view: ViewState, message: CardsTaken, me: int | None) -> str:
    winner = message.seat
    flip = view.last_flip
    haul = plural(message.count, "card")
    verb = "take" if winner == me else "takes"
    if flip is None or flip.step != message.step or winner not in dict(flip.cards):
        last = cap(does(view, winner, me, "are", "is"))
        return f"{last} the last one left in the war and {verb} {haul}."
    cards = dict(flip.cards)
    losers = [(s, c) for s, c in flip.cards if s != winner]
    beaten = join_words(card_of(view, s, c, me) for s, c in losers)
    text = f"{cap(card_of(view, winner, cards[winner], me))} beats {beaten}."
    if flip.depth:
        win = does_again(view, winner, me, "win", "wins")
        return f"{text} {cap(win)} the {war_name(flip.depth)} and {verb} {haul}."
    return f"{text} {cap(does_again(view, winner, me, 'take', 'takes'))} {haul}."


_TELLERS: dict[type[ServerMessage], Callable[[ViewState, Any, ViewState, int | None], Said]] = {
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
    SeatRequestWaiting: lambda before, message, after, me: (waiting_sentence(after, message),),
    SeatRequested: lambda before, message, after, me: (requested_sentence(after, message, me),),
    SeatRequestEnded: lambda before, message, after, me: (ended_sentence(after, message, me),),
    Reacted: _talked,
    SaidMessage: _talked,
}
"""Who tells which message (see :func:`describe`)."""
