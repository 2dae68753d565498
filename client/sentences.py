"""Plain sentences about the room, from one participant's point of view.

Pure functions of the view state and the seat they are written for (``me``; None for a
spectator). Names come from the room and never carry a gender, so a player other than
``me`` is always named: "Grandma's King beats your 7. Grandma takes 2 cards."; a
spectator reads "Ann's Queen beats Ben's 9. Ann takes 2 cards.".

- :func:`describe` tells what one server message changed (zero or more sentences).
- :func:`status` says where the game stands and what ``me`` may do now.
- :func:`result_sentence` and :func:`summary_sentence` say how a game ended.
"""

from __future__ import annotations

from collections.abc import Iterable

from client.cards import rank_word
from client.countdown import clock_text
from client.view import ViewState
from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    ConnectionChanged,
    Error,
    FinishVoted,
    GameOver,
    GameResult,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    ServerMessage,
    ShortWar,
    SpectatorsChanged,
    Termination,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
)

__all__ = [
    "describe",
    "join_words",
    "longest_name",
    "result_sentence",
    "status",
    "summary_sentence",
    "war_name",
]

_WAR_NAMES = {1: "war", 2: "double war", 3: "triple war", 4: "quadruple war"}
_LONGEST = {0: "none", 1: "single", 2: "double", 3: "triple", 4: "quadruple"}


# --- small words ---------------------------------------------------------------------------
def join_words(items: Iterable[str]) -> str:
    """``["a"]`` → ``"a"``, ``["a", "b"]`` → ``"a and b"``, three → ``"a, b and c"``."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def war_name(depth: int) -> str:
    """``1`` → ``"war"``, ``2`` → ``"double war"`` … ``5`` → ``"war 5 deep"``."""
    return _WAR_NAMES.get(depth, f"war {depth} deep")


def longest_name(depth: int) -> str:
    """The longest war of a game in a word: ``0`` → ``"none"``, ``2`` → ``"double"``."""
    return _LONGEST.get(depth, f"{depth} deep")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _who(view: ViewState, seat: int, me: int | None) -> str:
    return "you" if seat == me else view.name(seat)


def _whose(view: ViewState, seat: int, me: int | None) -> str:
    return "your" if seat == me else f"{view.name(seat)}'s"


def _does(view: ViewState, seat: int, me: int | None, you_form: str, other_form: str) -> str:
    """ "you take" / "Ben takes": the subject and its verb."""
    return f"{_who(view, seat, me)} {you_form if seat == me else other_form}"


def _card_of(view: ViewState, seat: int, card: str, me: int | None) -> str:
    return f"{_whose(view, seat, me)} {rank_word(card)}"


# --- one message -----------------------------------------------------------------------------
def describe(
    before: ViewState,
    message: ServerMessage,
    after: ViewState,
    me: int | None,
    *,
    codes: bool = True,
) -> tuple[str, ...]:
    """Sentences telling what ``message`` changed, written for seat ``me``.

    ``before`` and ``after`` are the views around :func:`client.view.apply`; a message the
    reducer ignored (a repeat, or one held back for a resync) gives no sentence. Returns
    an empty tuple for messages only a table drawing shows (ready flags, turned cards).
    ``codes=False`` leaves the room's codes out of the welcome (a table shows them).
    """
    if after is before:
        return ()
    if after.needs_resync and not before.needs_resync:
        return ("Some messages went missing; asking the server for the whole table.",)
    match message:
        case Welcome():
            return _welcome(after, me, codes=codes)
        case Error(code=code, message=text):
            if not after.welcomed:
                return ()  # a refused opening: the connection's end says why, once
            return (f"The server says: {text or code} ({code}).",)
        case PlayerJoined(seat=seat, name=name, computer=computer):
            if seat == me:
                return ()
            who = f"{name} (the computer)" if computer else name
            return (f"{who} takes seat {seat + 1}.",)
        case PlayerLeft(seat=seat):
            return (f"{_cap(_does(after, seat, me, 'leave', 'leaves'))} the table.",)
        case ConnectionChanged(seat=seat, connected=connected):
            if seat == me:
                return ()
            return (f"{after.name(seat)} is {'back' if connected else 'away'}.",)
        case WaitingFor():
            away = [s for s in after.away_waited if s not in before.away_waited]
            if not away or after.phase is not RoomPhase.PLAYING:
                return ()
            names = join_words(after.name(s) for s in away)
            return (f"The game waits for {names}, away for now.",)
        case AutoPlayChanged(seat=seat, mode=mode):
            if seat == me:
                return (f"Your auto-play is {mode.value}.",)
            return (f"{after.name(seat)} turns auto-play {mode.value}.",)
        case FinishVoted(seat=seat):
            return (f"{_cap(_does(after, seat, me, 'vote', 'votes'))} to finish the game.",)
        case RematchVoted(seat=seat, deal=deal):
            wish = "a rematch with a new deal" if deal is RematchDeal.NEW else "this deal again"
            return (f"{_cap(_does(after, seat, me, 'ask', 'asks'))} for {wish}.",)
        case SpectatorsChanged(count=count):
            if count == 0:
                return ("Nobody is watching now.",)
            if count == 1:
                return ("1 person is watching.",)
            return (f"{count} people are watching.",)
        case GameStarted():
            return (_game_started(after, message),)
        case TimeUp():
            if after.war_depth:
                return ("Time is up: the game ends once this war is settled.",)
            return ("Time is up.",)
        case WarDeclared():
            return (_war(after, message, me),)
        case CardsLaidDown():
            return _laid_down(after, message, me)
        case CardsTaken():
            return (_taken(after, message, me),)
        case CardsReturned():
            return (
                "Everyone in the war ran out of cards at once: each takes their own cards back.",
            )
        case PlayerOut(seat=seat, reason=reason):
            if reason.value == "short_war":
                why = "too few cards to finish the war"
            else:
                why = "no cards left"
            verb, out = ("have", "are") if seat == me else ("has", "is")
            return (f"{_cap(_who(after, seat, me))} {verb} {why} and {out} out.",)
        case GameOver():
            result = after.result
            if result is None:  # pragma: no cover - the reducer always sets it
                return ()
            return (result_sentence(after, result, me), summary_sentence(result))
    return ()


def _welcome(view: ViewState, me: int | None, *, codes: bool) -> tuple[str, ...]:
    players = view.rules.players
    if me is None:
        seated = [s.name for s in view.seats if s.name is not None]
        lines = [f"You are watching {join_words(seated) or 'an empty table'}."]
    else:
        lines = [f"You are {view.name(me)}, at seat {me + 1} of {players}."]
    if view.phase is RoomPhase.PLAYING:
        played = f"The game is on: {_plural(view.round, 'round')} played"
        if view.time_up:
            lines.append(f"{played}; time is up.")
        elif view.seconds_left is not None:
            lines.append(f"{played}, {clock_text(view.seconds_left)} left.")
        else:
            lines.append(f"{played}.")
    elif view.phase is RoomPhase.OVER and view.result is not None:
        lines.append(result_sentence(view, view.result, me))
    elif missing := len(view.open_seats):
        lines.append(f"Waiting for {_plural(missing, 'more player')}.")
        if view.player_code is not None and codes:
            lines.append(f"Player code: {view.player_code}.")
    if view.watch_code is not None and me is not None and codes:
        lines.append(f"Watch code: {view.watch_code}.")
    return tuple(lines)


def _game_started(view: ViewState, message: GameStarted) -> str:
    counts = set(message.counts)
    each = f"{_plural(counts.pop(), 'card')} each" if len(counts) == 1 else "cards dealt"
    aside = " (one card is set aside)" if sum(message.counts) == 51 else ""
    start = "The game begins" if message.game == 1 else f"Rematch: game {message.game} begins"
    deal = f", deal {message.deal}" if message.deal is not None else ""
    clock = f" {_plural(view.minutes, 'minute')} on the clock." if view.minutes else ""
    return f"{start}{deal}: {each}{aside}.{clock}"


def _war(view: ViewState, message: WarDeclared, me: int | None) -> str:
    head = _cap(war_name(message.depth)) + "!"
    flip = view.last_flip
    if flip is None:
        names = join_words(_who(view, s, me) for s in message.seats)
        return f"{head} {_cap(names)} go to war."
    tied = [(s, c) for s, c in flip.cards if s in message.seats]
    others = [s for s, _ in flip.cards if s not in message.seats]
    if len(tied) == 2:
        (s1, c1), (s2, c2) = sorted(tied, key=lambda pair: pair[0] != me)
        text = f"{head} {_cap(_card_of(view, s1, c1, me))} ties {_card_of(view, s2, c2, me)}."
    else:
        cards = join_words(_card_of(view, s, c, me) for s, c in tied)
        text = f"{head} {_cap(cards)} tie."
    if others:
        text += f" {_cap(join_words(_who(view, s, me) for s in others))} "
        text += "sit this one out." if len(others) > 1 or others[0] == me else "sits this one out."
    return text


def _laid_down(view: ViewState, message: CardsLaidDown, me: int | None) -> tuple[str, ...]:
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
            subject = _cap(_does(view, seat, me, "are", "is"))
            lines.append(f"{subject} short of cards: only {count} face down.")
        elif record.count:
            subject = _cap(_does(view, seat, me, "have", "has"))
            lines.append(f"{subject} one card left: it goes face up.")
        elif record.face_up:
            subject = _cap(_does(view, seat, me, "have", "has"))
            standing = _card_of(view, seat, record.face_up[-1], me)
            lines.append(f"{subject} no cards left: {standing} stands again.")
    return tuple(lines)


def _taken(view: ViewState, message: CardsTaken, me: int | None) -> str:
    winner = message.seat
    flip = view.last_flip
    take = _does(view, winner, me, "take", "takes")
    haul = _plural(message.count, "card")
    if flip is None or flip.step != message.step or winner not in dict(flip.cards):
        last = _cap(_does(view, winner, me, "are", "is"))
        verb = "take" if winner == me else "takes"
        return f"{last} the last one left in the war and {verb} {haul}."
    cards = dict(flip.cards)
    losers = [(s, c) for s, c in flip.cards if s != winner]
    if winner == me and len(losers) == 1:
        beaten = f"the {rank_word(losers[0][1])}"
    else:
        beaten = join_words(_card_of(view, s, c, me) for s, c in losers)
    text = f"{_cap(_card_of(view, winner, cards[winner], me))} beats {beaten}."
    if flip.depth:
        win = _does(view, winner, me, "win", "wins")
        verb = "take" if winner == me else "takes"
        return f"{text} {_cap(win)} the {war_name(flip.depth)} and {verb} {haul}."
    return f"{text} {_cap(take)} {haul}."


# --- the end ---------------------------------------------------------------------------------
_WHY = {
    Termination.BOTH_SHORT: "everyone in a war ran out of cards at once",
    Termination.TIME_LIMIT: "time is up",
    Termination.ENDLESS: "the same position came round again, so the game would never end",
}


def result_sentence(view: ViewState, result: GameResult, me: int | None) -> str:
    """How the game ended, for seat ``me``: "Game over: you have all 52 cards. You win!"."""
    counts = {s.seat: s.count for s in view.seats}
    winner = result.winner
    why = result.termination
    if why is Termination.ALL_CARDS and winner is not None:
        have = _does(view, winner, me, "have", "has")
        reason = f"{have} all {sum(counts.values())} cards"
    elif why is Termination.OPPONENTS_SHORT and winner is not None:
        losers = [s.seat for s in view.seats if s.seat != winner and s.out]
        short = join_words(_who(view, s, me) for s in losers[-1:]) or "the last opponent"
        reason = f"{short} ran short of cards in a war"
    elif why is Termination.ROUND_LIMIT:
        limit = view.rules.round_limit or result.summary.rounds
        reason = f"the limit of {_plural(limit, 'round')} is reached"
    else:
        reason = _WHY.get(why, why.value.replace("_", " "))
    return f"Game over: {reason}. {_winner_clause(view, result, counts, me)}"


def _winner_clause(
    view: ViewState, result: GameResult, counts: dict[int, int], me: int | None
) -> str:
    winner = result.winner
    if winner is None:
        held = sorted({c for s, c in counts.items() if not view.seats[s].out}, reverse=True)
        if len(held) == 1:
            return f"It's a draw: {_plural(held[0], 'card')} each."
        return "It's a draw."
    win = "You win!" if winner == me else f"{view.name(winner)} wins."
    if result.termination in (Termination.ALL_CARDS, Termination.OPPONENTS_SHORT):
        return win
    rest = [
        f"{_whose(view, s, me)} {count}"
        for s, count in counts.items()
        if s != winner and not view.seats[s].out
    ]
    return f"{win[:-1]} with {counts[winner]} cards to {join_words(rest)}."


def summary_sentence(result: GameResult) -> str:
    """The game's figures, the same for everyone: rounds, wars, longest war, biggest haul,
    deal."""
    summary = result.summary
    longest = longest_name(summary.longest_war)
    return (
        f"{_plural(summary.rounds, 'round')}, {_plural(summary.wars, 'war')}, "
        f"longest war: {longest}, biggest haul: {_plural(summary.biggest_haul, 'card')}, "
        f"deal {summary.deal}."
    )


# --- where the game stands ------------------------------------------------------------------
def status(view: ViewState, me: int | None, *, plain: bool = False) -> str:
    """One sentence on what the game waits for and what ``me`` may do now; ``plain``
    names the typed commands of ``--plain`` (enter, a) instead of the table's keys."""
    turn = "Press enter" if plain else "Press space"
    if not view.welcomed:
        return "Connecting…"
    if view.needs_resync:
        return "Catching up with the table…"
    if view.phase is RoomPhase.WAITING:
        missing = len(view.open_seats)
        return f"Waiting for {_plural(missing, 'more player')} to join."
    if view.phase is RoomPhase.OVER:
        if me is None:
            return "Game over."
        return "Game over. Press r for a rematch, d to replay this deal, q to leave."
    mine = view.me if me == view.my_seat else view.seat(me)
    waiting = [s for s in view.waiting_for if s != me]
    away = set(view.away_waited)
    names = join_words(view.name(s) + (" (away)" if s in away else "") for s in waiting)
    if mine is not None and mine.out:
        return "You are out of this game; the others play on."
    if mine is not None and me in view.waiting_for and not mine.ready:
        if mine.auto is not AutoPlay.OFF:
            change = "Type a to change it" if plain else "Press a to change it"
            return f"Auto-play ({mine.auto.value}) turns over for you. {change}."
        if view.war_depth:
            down = view.rules.face_down
            if mine.count > down:
                lay = f"lay {_plural(down, 'card')} face down and turn one up"
            else:
                lay = "lay your cards down"
            return f"{_cap(war_name(view.war_depth))}! {turn} to {lay}."
        return f"{turn} to turn over."
    if mine is not None and view.war_depth and me not in view.war_seats:
        fighters = join_words(view.name(s) for s in view.war_seats)
        return f"{fighters} are at war; you sit this one out."
    if names:
        return f"Waiting for {names}."
    return "Turning over…"
