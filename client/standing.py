"""Where the game stands, in words: what ``me`` may do now, the score, the votes, the rules.

- :func:`status`: one sentence on what the game waits for and what ``me`` may do now.
- :func:`score`: every player's count and the round.
- :func:`votes_sentence`: who asked for what, and who still has to vote.
- :func:`rules_sentence`: the rules in force, the same for everyone.
"""

from __future__ import annotations

from client._words import cap, does, join_words, plural, war_name, who
from client.view import ViewState
from protocol import (
    AutoPlay,
    BothShort,
    FixedOrder,
    RematchDeal,
    RoomPhase,
    RulesSpec,
    SeatState,
    ShortWar,
    TakenBack,
    TieBreak,
    WonCards,
    still_to_vote,
)

__all__ = ["rules_sentence", "score", "status", "votes_sentence"]


def status(view: ViewState, me: int | None, *, plain: bool = False, touch: bool = False) -> str:
    """One sentence on what the game waits for and what ``me`` may do now; ``plain``
    names the typed commands of ``--plain`` (enter, a) instead of the table's keys,
    ``touch`` the buttons of a touch screen ("Tap Turn over.") instead of keys."""
    if not view.welcomed:
        return "Connecting…"
    if view.needs_resync:
        return "Catching up with the table…"
    if view.phase is RoomPhase.WAITING:
        missing = len(view.open_seats)
        return f"Waiting for {plural(missing, 'more player')} to join."
    if view.phase is RoomPhase.OVER:
        return _after_the_game(view, me, plain=plain, touch=touch)
    return _in_the_game(view, me, plain=plain, touch=touch)


def _after_the_game(view: ViewState, me: int | None, *, plain: bool, touch: bool) -> str:
    mine = view.seat(me)
    if mine is None or mine.seat in view.left:
        return "Game over."
    if mine.rematch_vote is not None:
        pending = still_to_vote(view.phase, view.seats)
        if pending:
            return f"Waiting for {join_words(who(view, s, me) for s in pending)} to vote."
        return "Starting the rematch…"
    if touch:
        return "Game over. Tap a rematch button to play again."
    keys = "Type r" if plain else "Press r"
    return f"Game over. {keys} for a rematch with a new deal, d to replay this deal, q to leave."


def _in_the_game(view: ViewState, me: int | None, *, plain: bool, touch: bool) -> str:
    mine = view.me if me == view.my_seat else view.seat(me)
    if mine is not None and mine.out:
        return "You are out of this game; the others play on."
    if mine is not None and me in view.waiting_for and not mine.ready:
        return _your_turn(view, mine, plain=plain, touch=touch)
    if mine is not None and view.war_depth and me not in view.war_seats:
        fighters = join_words(who(view, s, me) for s in view.war_seats)
        return f"{cap(fighters)} are at war; you sit this one out."
    away = set(view.away_waited)
    waiting = [
        who(view, s, me) + (" (away)" if s in away else "") for s in view.waiting_for if s != me
    ]
    if waiting:
        return f"Waiting for {join_words(waiting)}."
    return "Turning over…"


def _your_turn(view: ViewState, mine: SeatState, *, plain: bool, touch: bool) -> str:
    turn = "Press enter" if plain else "Tap Turn over" if touch else "Press space"
    if mine.auto is not AutoPlay.OFF:
        change = _change_auto(plain=plain, touch=touch)
        return f"Auto-play ({mine.auto.value}) turns over for you. {change}."
    if not view.war_depth:
        return "Tap Turn over." if touch else f"{turn} to turn over."
    down = view.rules.face_down
    if mine.count > down:
        lay = f"lay {plural(down, 'card')} face down and turn one up"
    else:
        lay = "lay your cards down"
    return f"{cap(war_name(view.war_depth))}! {turn} to {lay}."


def _change_auto(*, plain: bool, touch: bool) -> str:
    """How to change auto-play: a typed command, a button, or a key."""
    if touch:
        return "Tap off under Auto-play to turn over yourself"
    return "Type a to change it" if plain else "Press a to change it"


def _shuffled(rules: RulesSpec) -> bool:
    return rules.won_cards is WonCards.SHUFFLE


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
    lines.append(_short_sentence(rules))
    lines.extend(_old_rule_sentences(rules))
    lines.append(_won_cards_sentence(rules))
    if rules.round_limit is None and minutes is None:
        lines.append("No limit: the game ends when one player has every card.")
        return " ".join(lines)
    if rules.round_limit is not None:
        limit = plural(rules.round_limit, "round")
    else:
        limit = plural(minutes or 0, "minute")
    lines.append(f"The game ends after {limit}: most cards wins.")
    if rules.tie_break is TieBreak.BATTLE:
        lines.append("Equal counts then play on until one player has more.")
    else:
        lines.append("Equal counts then are a draw.")
    return " ".join(lines)


def _short_sentence(rules: RulesSpec) -> str:
    if rules.short_war is ShortWar.LAST_CARD:
        return "A player short of cards in a war turns up their last card."
    if rules.players == 2:
        return "A player short of cards in a war loses."
    return "A player short of cards in a war is out."


def _old_rule_sentences(rules: RulesSpec) -> list[str]:
    """What a room made before 0.3 still plays by, when everyone in a war runs out."""
    if rules.players <= 2:
        return []
    if rules.both_short is BothShort.END:
        return ["If everyone in a war runs out at once, the game ends (the old rule)."]
    if rules.taken_back is TakenBack.AS_LAID and _shuffled(rules):
        return [
            "If everyone in a war runs out at once, their cards go back unshuffled (the old rule)."
        ]
    return []


def _won_cards_sentence(rules: RulesSpec) -> str:
    if rules.won_cards is WonCards.FIXED and rules.fixed_order is FixedOrder.SEAT0:
        return (
            "Won cards go under the pile in the order they were laid down, seat 1's first"
            " (the old rule)."
        )
    if rules.won_cards is WonCards.FIXED:
        return "Won cards go under the pile in the order they were laid down."
    return "Won cards are shuffled before they go under the pile."


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
            counts.append(f"{does(view, record.seat, me, 'are', 'is')} out")
            continue
        held = plural(record.count, "card")
        on_table = len(record.face_up) + record.face_down
        table = f" (and {on_table} on the table)" if on_table else ""
        counts.append(f"{does(view, record.seat, me, 'have', 'has')} {held}{table}")
    if view.phase is RoomPhase.OVER:
        head = f"After {plural(view.round, 'round')}"
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
        names = cap(join_words(who(view, s, me) for s in voted))
        said = f"{names} voted to finish now (the rest is played out at once)"
    elif view.phase is RoomPhase.OVER:
        new = [s.seat for s in view.seats if s.rematch_vote is RematchDeal.NEW]
        same = [s.seat for s in view.seats if s.rematch_vote is RematchDeal.SAME]
        if not (new or same):
            return None
        asks = []
        if new:
            asks.append(f"{join_words(who(view, s, me) for s in new)} asked for a new deal")
        if same:
            again = "for this deal again" if new else "asked for this deal again"
            asks.append(f"{join_words(who(view, s, me) for s in same)} {again}")
        said = cap(", ".join(asks))
    else:
        return None
    pending = still_to_vote(view.phase, view.seats)
    if not pending:
        return f"{said}."
    return f"{said}; still to vote: {join_words(who(view, s, me) for s in pending)}."
