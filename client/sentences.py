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
"""

from __future__ import annotations

from collections.abc import Iterable

from client.cards import rank_word
from client.countdown import clock_text
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
    FixedOrder,
    GameOver,
    GameResult,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    RulesSpec,
    ServerMessage,
    ShortWar,
    SpectatorsChanged,
    Termination,
    TieBreak,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
    WonCards,
    still_to_vote,
)

__all__ = [
    "describe",
    "join_words",
    "longest_name",
    "result_sentence",
    "rules_sentence",
    "score",
    "status",
    "summary_sentence",
    "votes_sentence",
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


def _sentence(text: str) -> str:
    """``"step 3 is over"`` → ``"step 3 is over."`` (a full stop unless one is there)."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _the_computer(view: ViewState, seat: int) -> bool:
    """True for the room's one computer opponent (the server names it "Computer")."""
    record = view.seat(seat)
    return record is not None and record.computer and record.name == "Computer"


def _who(view: ViewState, seat: int, me: int | None) -> str:
    if seat == me:
        return "you"
    return "the computer" if _the_computer(view, seat) else view.name(seat)


def _whose(view: ViewState, seat: int, me: int | None) -> str:
    return "your" if seat == me else f"{_who(view, seat, me)}'s"


def _does(view: ViewState, seat: int, me: int | None, you_form: str, other_form: str) -> str:
    """ "you take" / "Ben takes": the subject and its verb."""
    return f"{_who(view, seat, me)} {you_form if seat == me else other_form}"


def _again(view: ViewState, seat: int, me: int | None, you_form: str, other_form: str) -> str:
    """Like :func:`_does` for a seat just named: "it takes" for the computer."""
    if seat != me and _the_computer(view, seat):
        return f"it {other_form}"
    return _does(view, seat, me, you_form, other_form)


def _card_of(view: ViewState, seat: int, card: str, me: int | None) -> str:
    return f"{_whose(view, seat, me)} {rank_word(card)}"


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
    match message:
        case Welcome():
            return _welcome(after, me, table=table, first=not before.welcomed)
        case Error(code=code, message=text):
            if not after.welcomed:
                return ()  # a refused opening: the connection's end says why, once
            return (f"The server says: {_sentence(text or code)}",)
        case PlayerJoined(seat=seat, name=name, computer=computer):
            if seat == me:
                return ()
            if _the_computer(after, seat):
                return (f"The computer takes seat {seat + 1}.",)
            who = f"{name} (the computer)" if computer else name
            return (f"{who} takes seat {seat + 1}.",)
        case PlayerLeft(seat=seat):
            return (f"{_cap(_does(before, seat, me, 'leave', 'leaves'))} the table.",)
        case ConnectionChanged(seat=seat, connected=connected, rejoined=rejoined):
            if seat == me:
                return ()
            if rejoined:
                return (f"{after.name(seat)} is back, on another device (with the player code).",)
            return (f"{after.name(seat)} is {'back' if connected else 'away'}.",)
        case WaitingFor():
            away = [s for s in after.away_waited if s not in before.away_waited]
            if not away or after.phase is not RoomPhase.PLAYING:
                return ()
            names = join_words(after.name(s) for s in away)
            return (f"The game waits for {names}, away for now.",)
        case AutoPlayChanged(seat=seat, mode=mode, away=True):
            return (_away_play(after, seat, me, playing=mode is AutoPlay.CALM),)
        case AutoPlayChanged(seat=seat, mode=mode):
            if seat == me:
                return (f"Your auto-play is {mode.value}.",)
            if seat in after.left:
                if mode is AutoPlay.OFF:
                    return ()
                return (f"The computer plays for {after.name(seat)} from now on.",)
            if after.seat(seat) is not None and after.seats[seat].computer:
                return ()  # the computer always plays at its own pace
            return (f"{after.name(seat)} turns auto-play {mode.value}.",)
        case FinishVoted(seat=seat):
            said = f"{_cap(_does(after, seat, me, 'vote', 'votes'))} to finish the game."
            return (said, *_still_to_vote(after, me))
        case RematchVoted(seat=seat, deal=deal):
            wish = "a rematch with a new deal" if deal is RematchDeal.NEW else "this deal again"
            said = f"{_cap(_does(after, seat, me, 'ask', 'asks'))} for {wish}."
            return (said, *_still_to_vote(after, me))
        case SpectatorsChanged(count=count):
            if count == 0:
                return ("Nobody is watching now.",)
            if count == 1:
                return ("1 person is watching.",)
            return (f"{count} people are watching.",)
        case GameStarted():
            return _game_started(before, after, message)
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
            said = "Everyone in the war ran out of cards at once: each takes their own cards back."
            if _played_again(before, after):
                return (said, "Nobody takes this round: it is played again.")
            return (said,)
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
    return (f"Still to vote: {join_words(_who(view, s, me) for s in pending)}.",)


def _welcome(
    view: ViewState, me: int | None, *, table: bool, first: bool = True
) -> tuple[str, ...]:
    players = view.rules.players
    if me is None:
        seated = [_who(view, s.seat, me) for s in view.seats if s.name is not None]
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
        lines.append(f"Waiting for {_plural(len(view.open_seats), 'more player')}.")
        if view.player_code is not None:
            lines.append(f"Player code: {view.player_code}.")
    if view.watch_code is not None and me is not None and not table:
        lines.append(f"Watch code: {view.watch_code}.")
    if first and not table:
        lines.append(f"Rules: {rules_sentence(view.rules, view.minutes)}")
    return tuple(lines)


def _game_started(before: ViewState, view: ViewState, message: GameStarted) -> tuple[str, ...]:
    counts = set(message.counts)
    each = f"{_plural(counts.pop(), 'card')} each" if len(counts) == 1 else "cards dealt"
    aside = " (one card is set aside)" if sum(message.counts) == 51 else ""
    deal = f", deal {message.deal}" if message.deal is not None else ""
    clock = f" {_plural(view.minutes, 'minute')} on the clock." if view.minutes else ""
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


def _war(view: ViewState, message: WarDeclared, me: int | None) -> str:
    head = _cap(war_name(message.depth)) + "!"
    flip = view.last_flip
    if flip is None:
        names = join_words(_who(view, s, me) for s in message.seats)
        return f"{head} {_cap(names)} go to war."
    tied = [(s, c) for s, c in flip.cards if s in message.seats]
    # a seat already out of the game does not "sit this one out": it is not playing
    others = [s for s, _ in flip.cards if s not in message.seats and not _is_out(view, s)]
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


def _is_out(view: ViewState, seat: int) -> bool:
    record = view.seat(seat)
    return record is not None and record.out


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
            owner = "its" if seat != me and _the_computer(view, seat) else _whose(view, seat, me)
            standing = f"{owner} {rank_word(record.face_up[-1])}"
            lines.append(f"{subject} no cards left: {standing} stands again.")
    return tuple(lines)


def _taken(view: ViewState, message: CardsTaken, me: int | None) -> str:
    winner = message.seat
    flip = view.last_flip
    haul = _plural(message.count, "card")
    verb = "take" if winner == me else "takes"
    if flip is None or flip.step != message.step or winner not in dict(flip.cards):
        last = _cap(_does(view, winner, me, "are", "is"))
        return f"{last} the last one left in the war and {verb} {haul}."
    cards = dict(flip.cards)
    losers = [(s, c) for s, c in flip.cards if s != winner]
    beaten = join_words(_card_of(view, s, c, me) for s, c in losers)
    text = f"{_cap(_card_of(view, winner, cards[winner], me))} beats {beaten}."
    if flip.depth:
        win = _again(view, winner, me, "win", "wins")
        return f"{text} {_cap(win)} the {war_name(flip.depth)} and {verb} {haul}."
    return f"{text} {_cap(_again(view, winner, me, 'take', 'takes'))} {haul}."


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
        short = _ran_short(view, winner)
        named = join_words(_who(view, s, me) for s in short)
        reason = f"{named if len(short) == 1 else 'one of ' + named} ran short of cards in a war"
    elif why is Termination.ROUND_LIMIT:
        limit = view.rules.round_limit or result.summary.rounds
        reason = f"the limit of {_plural(limit, 'round')} is reached"
    else:
        reason = _WHY.get(why, why.value.replace("_", " "))
    return f"Game over: {reason}. {_winner_clause(view, result, counts, me)}"


def _ran_short(view: ViewState, winner: int) -> list[int]:
    """Who went out short in the war that ended the game: the latest ``player_out`` for
    a short war if the view saw it; else the opponents not out before the end (a game
    finished at once); else, after a welcome into a finished game, every opponent."""
    said = [
        m.seat
        for m in view.recent
        if isinstance(m, PlayerOut) and m.step == view.step and m.reason.value == "short_war"
    ]
    if said:
        return said[-1:]
    opponents = [s.seat for s in view.seats if s.seat != winner and s.name is not None]
    still_in = [s for s in opponents if not view.seats[s].out]
    return still_in or opponents


def _winner_clause(
    view: ViewState, result: GameResult, counts: dict[int, int], me: int | None
) -> str:
    winner = result.winner
    if winner is None:
        held = sorted({c for s, c in counts.items() if not view.seats[s].out}, reverse=True)
        if len(held) == 1:
            return f"It's a draw: {_plural(held[0], 'card')} each."
        return "It's a draw."
    win = "You win!" if winner == me else f"{_cap(_who(view, winner, me))} wins."
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
    deal. "12 rounds, no wars, biggest haul: 2 cards, deal 7."; a game that ended before
    any round was won says so: "No round was won. Deal 0." (the figures count the rounds
    somebody took: an unsettled war is in none of them)."""
    summary = result.summary
    if summary.rounds == 0:
        return f"No round was won. Deal {summary.deal}."
    parts = [_plural(summary.rounds, "round")]
    if summary.wars:
        parts += [_plural(summary.wars, "war"), f"longest war: {longest_name(summary.longest_war)}"]
    else:
        parts.append("no wars")
    parts += [f"biggest haul: {_plural(summary.biggest_haul, 'card')}", f"deal {summary.deal}"]
    return ", ".join(parts) + "."


# --- where the game stands ------------------------------------------------------------------
def status(view: ViewState, me: int | None, *, plain: bool = False, touch: bool = False) -> str:
    """One sentence on what the game waits for and what ``me`` may do now; ``plain``
    names the typed commands of ``--plain`` (enter, a) instead of the table's keys,
    ``touch`` the buttons of a touch screen ("Tap Turn over.") instead of keys."""
    turn = "Press enter" if plain else "Tap Turn over" if touch else "Press space"
    if not view.welcomed:
        return "Connecting…"
    if view.needs_resync:
        return "Catching up with the table…"
    if view.phase is RoomPhase.WAITING:
        missing = len(view.open_seats)
        return f"Waiting for {_plural(missing, 'more player')} to join."
    if view.phase is RoomPhase.OVER:
        mine = view.seat(me)
        if mine is None or mine.seat in view.left:
            return "Game over."
        if mine.rematch_vote is not None:
            pending = still_to_vote(view.phase, view.seats)
            if pending:
                return f"Waiting for {join_words(_who(view, s, me) for s in pending)} to vote."
            return "Starting the rematch…"
        if touch:
            return "Game over. Tap a rematch button to play again."
        keys = "Type r" if plain else "Press r"
        return (
            f"Game over. {keys} for a rematch with a new deal, d to replay this deal, q to leave."
        )
    mine = view.me if me == view.my_seat else view.seat(me)
    waiting = [s for s in view.waiting_for if s != me]
    away = set(view.away_waited)
    names = join_words(_who(view, s, me) + (" (away)" if s in away else "") for s in waiting)
    if mine is not None and mine.out:
        return "You are out of this game; the others play on."
    if mine is not None and me in view.waiting_for and not mine.ready:
        if mine.auto is not AutoPlay.OFF:
            change = _change_auto(plain=plain, touch=touch)
            return f"Auto-play ({mine.auto.value}) turns over for you. {change}."
        if view.war_depth:
            down = view.rules.face_down
            if mine.count > down:
                lay = f"lay {_plural(down, 'card')} face down and turn one up"
            else:
                lay = "lay your cards down"
            return f"{_cap(war_name(view.war_depth))}! {turn} to {lay}."
        return "Tap Turn over." if touch else f"{turn} to turn over."
    if mine is not None and view.war_depth and me not in view.war_seats:
        fighters = join_words(_who(view, s, me) for s in view.war_seats)
        return f"{_cap(fighters)} are at war; you sit this one out."
    if names:
        return f"Waiting for {names}."
    return "Turning over…"


def _change_auto(*, plain: bool, touch: bool) -> str:
    """How to change auto-play: a typed command, a button, or a key."""
    if touch:
        return "Tap off under Auto-play to turn over yourself"
    return "Type a to change it" if plain else "Press a to change it"


# --- the rules, the score, the votes -----------------------------------------------------------
_NUMBER_WORDS = {1: "One", 3: "Three"}


def rules_sentence(rules: RulesSpec, minutes: int | None = None) -> str:
    """The rules in force in plain words, the same for everyone: "Aces are high. One card
    face down in a war. A player short of cards in a war loses. Won cards are shuffled
    before they go under the pile. No limit: the game ends when one player has every
    card." A limit (``rules.round_limit``, or ``minutes`` on the server's clock) also says
    what equal counts at the end mean."""
    lines = ["Aces are high." if rules.aces.value == "high" else "Aces are low, below the 2s."]
    down = _NUMBER_WORDS.get(rules.face_down, str(rules.face_down))
    lines.append(f"{down} card{'s' if rules.face_down != 1 else ''} face down in a war.")
    if rules.short_war is ShortWar.LAST_CARD:
        lines.append("A player short of cards in a war turns up their last card.")
    elif rules.players == 2:
        lines.append("A player short of cards in a war loses.")
    else:
        lines.append("A player short of cards in a war is out.")
    if rules.players > 2 and rules.both_short is BothShort.END:
        lines.append("If everyone in a war runs out at once, the game ends (the old rule).")
    if rules.won_cards is WonCards.FIXED and rules.fixed_order is FixedOrder.SEAT0:
        lines.append(
            "Won cards go under the pile in the order they were laid down, seat 1's first"
            " (the old rule)."
        )
    elif rules.won_cards is WonCards.FIXED:
        lines.append("Won cards go under the pile in the order they were laid down.")
    else:
        lines.append("Won cards are shuffled before they go under the pile.")
    if rules.round_limit is None and minutes is None:
        lines.append("No limit: the game ends when one player has every card.")
        return " ".join(lines)
    if rules.round_limit is not None:
        limit = _plural(rules.round_limit, "round")
    else:
        limit = _plural(minutes or 0, "minute")
    lines.append(f"The game ends after {limit}: most cards wins.")
    if rules.tie_break is TieBreak.BATTLE:
        lines.append("Equal counts then play on until one player has more.")
    else:
        lines.append("Equal counts then are a draw.")
    return " ".join(lines)


def score(view: ViewState, me: int | None) -> str:
    """Every player's count and the round: "Round 12 of 26: you have 30 cards, Ben has 22,
    Cy is out."; after the game: "After 377 rounds: …"; before it: "No cards dealt yet."."""
    if not view.welcomed or view.phase is RoomPhase.WAITING:
        return "No cards dealt yet."
    counts = []
    for record in view.seats:
        if record.name is None:
            continue
        if record.out and view.phase is RoomPhase.PLAYING:
            counts.append(f"{_does(view, record.seat, me, 'are', 'is')} out")
            continue
        held = _plural(record.count, "card")
        on_table = len(record.face_up) + record.face_down
        table = f" (and {on_table} on the table)" if on_table else ""
        counts.append(f"{_does(view, record.seat, me, 'have', 'has')} {held}{table}")
    if view.phase is RoomPhase.OVER:
        head = f"After {_plural(view.round, 'round')}"
    else:
        limit = view.rules.round_limit
        head = f"Round {view.round + 1}"
        if limit is not None and view.round < limit:
            head += f" of {limit}"
        if view.war_depth:
            head += f", {war_name(view.war_depth)}"
    return f"{head}: {join_words(counts)}."


def votes_sentence(view: ViewState, me: int | None) -> str | None:
    """Who voted to finish (while playing) or asked for which rematch (after the game),
    and who still has to vote (:func:`protocol.still_to_vote`, the server's own rule):
    "Ann votes to finish; still to vote: Ben.". None while nobody has voted."""
    if view.phase is RoomPhase.PLAYING:
        voted = [s.seat for s in view.seats if s.finish_vote]
        if not voted:
            return None
        names = _cap(join_words(_who(view, s, me) for s in voted))
        said = f"{names} voted to finish now (the rest is played out at once)"
    elif view.phase is RoomPhase.OVER:
        new = [s.seat for s in view.seats if s.rematch_vote is RematchDeal.NEW]
        same = [s.seat for s in view.seats if s.rematch_vote is RematchDeal.SAME]
        if not (new or same):
            return None
        asks = []
        if new:
            asks.append(f"{join_words(_who(view, s, me) for s in new)} asked for a new deal")
        if same:
            again = "for this deal again" if new else "asked for this deal again"
            asks.append(f"{join_words(_who(view, s, me) for s in same)} {again}")
        said = _cap(", ".join(asks))
    else:
        return None
    pending = still_to_vote(view.phase, view.seats)
    if not pending:
        return f"{said}."
    return f"{said}; still to vote: {join_words(_who(view, s, me) for s in pending)}."
