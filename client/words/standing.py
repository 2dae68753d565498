"""Where the game stands, in words: what ``me`` may do now, the score, the votes, the rules.

- :func:`status`: one sentence on what the game waits for and what ``me`` may do now.
- :func:`score`: every player's count and the round.
- :func:`votes_sentence`: who asked for what, and who still has to vote.
- :func:`rules_sentence`: the rules in force, the same for everyone.

Each in the viewer's ``words`` (:mod:`client.words.catalog`). ``input`` in the catalog's
messages is how the viewer plays: ``keys`` (the table's keys), ``typed`` (the commands of
``--plain``) or ``touch`` (the page's buttons on a touch screen).
"""

from __future__ import annotations

from client.state.view import ViewState
from client.words.catalog import Catalog, Count, Said, War, said
from client.words.who import persons, who
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
    WonCards,
    still_to_vote,
)

__all__ = ["rules_sentence", "score", "seeds_awaited", "status", "votes_sentence"]


def status(
    view: ViewState,
    me: int | None,
    *,
    words: Catalog,
    plain: bool = False,
    touch: bool = False,
) -> str:
    """One sentence on what the game waits for and what ``me`` may do now; ``plain``
    names the typed commands of ``--plain`` (enter, a) instead of the table's keys,
    ``touch`` the buttons of a touch screen ("Tap Turn over.") instead of keys."""
    if not view.welcomed:
        return words.text("status.connecting")
    if view.needs_resync:
        return words.text("status.catching_up")
    if view.phase is RoomPhase.WAITING:
        if not view.open_seats:  # the last one just sat down: the deal is next
            return words.text("status.starting")
        missing = Count("player", len(view.open_seats))
        return words.text("status.waiting_players", missing=missing)
    how = "touch" if touch else "typed" if plain else "keys"
    if view.phase is RoomPhase.OVER:
        return words.say(_after_the_game(view, me, how))
    return words.say(_in_the_game(view, me, how))


def _after_the_game(view: ViewState, me: int | None, how: str) -> Said:
    mine = view.seat(me)
    if mine is None or mine.seat in view.left:
        return said("status.over")
    if mine.rematch_vote is not None:
        pending = still_to_vote(view.phase, view.seats)
        if pending:
            return said("status.waiting_votes", names=persons(view, pending, me))
        return said("status.starting_rematch")
    return said("status.over_rematch", input=how)


def _in_the_game(view: ViewState, me: int | None, how: str) -> Said:
    mine = view.me if me == view.my_seat else view.seat(me)
    if mine is not None and mine.out:
        return said("status.out")
    if mine is not None and me in view.waiting_for and not mine.ready:
        return _your_turn(view, mine, how)
    if mine is not None and view.war_depth and me not in view.war_seats:
        return said("status.sit_out", names=persons(view, view.war_seats, me))
    away = set(view.away_waited)
    waiting = [
        said("status.away", who=who(view, s, me)) if s in away else who(view, s, me)
        for s in view.waiting_for
        if s != me
    ]
    if waiting:
        return said("status.waiting_for", names=waiting)
    return said("status.turning")


def _your_turn(view: ViewState, mine: SeatState, how: str) -> Said:
    if mine.auto is not AutoPlay.OFF:
        return said("status.auto", input=how, mode=said("auto.mode", mode=mine.auto.value))
    if not view.war_depth:
        return said("status.turn", input=how)
    down = view.rules.face_down
    lay = "down" if mine.count > down else "all"
    war = War(view.war_depth)
    return said("status.war_turn", input=how, lay=lay, war=war, cards=Count("card", down))


def _shuffled(rules: RulesSpec) -> bool:
    return rules.won_cards is WonCards.SHUFFLE


# --- the rules, the score, the votes -----------------------------------------------------------
def rules_sentence(rules: RulesSpec, minutes: int | None = None, *, words: Catalog) -> str:
    """The rules in force in plain words, the same for everyone: "Aces are high. One card
    face down in a war. A player short of cards in a war loses. Won cards are shuffled
    before they go under the pile. No limit: the game ends when one player has every
    card." A limit (``rules.round_limit``, or ``minutes`` on the server's clock) also says
    what equal counts at the end mean."""
    lines = [said("rules.aces", aces=rules.aces.value), said("rules.face_down", n=rules.face_down)]
    lines.append(said("rules.short_war", short=_short(rules)))
    if rules.players > 2 and rules.both_short is BothShort.END:
        lines.append(said("rules.all_short_end"))
    elif rules.players > 2 and rules.taken_back is TakenBack.AS_LAID and _shuffled(rules):
        lines.append(said("rules.taken_back_old"))
    lines.append(said("rules.won_cards", won=_won(rules)))
    if rules.round_limit is None and minutes is None:
        lines.append(said("rules.no_limit"))
    else:
        lines.append(said("rules.limit", length=_limit(rules, minutes)))
        lines.append(said("rules.tie_break", tie=rules.tie_break.value))
    return " ".join(words.say(line) for line in lines)


def _short(rules: RulesSpec) -> str:
    """How a player short of cards in a war fares: ``last_card``, ``loses`` or ``out``."""
    if rules.short_war is ShortWar.LAST_CARD:
        return "last_card"
    return "loses" if rules.players == 2 else "out"


def _won(rules: RulesSpec) -> str:
    """Where won cards go: ``shuffle``, ``fixed`` or ``seat0`` (fixed, seat 1's first)."""
    if rules.won_cards is WonCards.FIXED and rules.fixed_order is FixedOrder.SEAT0:
        return "seat0"
    return rules.won_cards.value


def _limit(rules: RulesSpec, minutes: int | None) -> Count:
    if rules.round_limit is not None:
        return Count("round", rules.round_limit)
    return Count("minute", minutes or 0)


def score(view: ViewState, me: int | None, *, words: Catalog) -> str:
    """Every player's count and the round: "Round 12 of 26: you have 30 cards, Ben has 22,
    Cy is out."; after the game: "After 377 rounds: …"; before it: "No cards dealt yet."."""
    if not view.welcomed or view.phase is RoomPhase.WAITING:
        return words.text("score.none")
    counts: list[Said] = []
    for record in view.seats:
        if record.name is None:
            continue
        subject = who(view, record.seat, me)
        if record.out and view.phase is RoomPhase.PLAYING:
            counts.append(said("score.out", who=subject))
            continue
        held = Count("card", record.count)
        on_table = len(record.face_up) + record.face_down
        if on_table:
            counts.append(said("score.holds_table", who=subject, cards=held, table=on_table))
        else:
            counts.append(said("score.holds", who=subject, cards=held))
    return words.text("score.line", head=_head(view), counts=counts)


def _head(view: ViewState) -> Said:
    if view.phase is RoomPhase.OVER:
        return said("score.after", rounds=Count("round", view.round))
    limit = view.rules.round_limit
    playing = view.round + 1
    if limit is not None and view.round < limit:
        head = said("score.round_of", round=playing, limit=limit)
    else:
        head = said("score.round", round=playing)
    if view.war_depth:
        return said("score.round_war", head=head, war=War(view.war_depth))
    return head


def seeds_awaited(view: ViewState) -> list[int]:
    """The seats whose first turn-over a finish waits for: before the first cards of a
    deal the server picks, each seat that committed to a seed and has not readied (its
    first ``ready`` reveals it; PROTOCOL.md ``vote_finish``)."""
    if view.phase is not RoomPhase.PLAYING or view.step != 0:
        return []
    return [s.seat for s in view.seats if s.seed_commitment is not None and not s.ready]


def votes_sentence(view: ViewState, me: int | None, *, words: Catalog) -> str | None:
    """Who voted to finish (while playing) or asked for which rematch (after the game),
    and who still has to vote (:func:`protocol.still_to_vote`, the server's own rule):
    "Ann votes to finish; still to vote: Ben.". None while nobody has voted."""
    votes: Said
    if view.phase is RoomPhase.PLAYING:
        voted = [s.seat for s in view.seats if s.finish_vote]
        if not voted:
            return None
        votes = said("votes.finish", names=persons(view, voted, me))
    elif view.phase is RoomPhase.OVER:
        new = persons(view, (s.seat for s in view.seats if s.rematch_vote is RematchDeal.NEW), me)
        same = persons(view, (s.seat for s in view.seats if s.rematch_vote is RematchDeal.SAME), me)
        if new and same:
            votes = said("votes.both", new=new, same=same)
        elif new or same:
            votes = said("votes.new", names=new) if new else said("votes.same", names=same)
        else:
            return None
    else:
        return None
    pending = still_to_vote(view.phase, view.seats)
    seeds = seeds_awaited(view)
    if not pending and seeds:  # a fair deal's finish waits for every committed seed
        return words.text("votes.seeds", votes=votes, names=persons(view, seeds, me))
    if not pending:
        return words.text("votes.done", votes=votes)
    return words.text("votes.pending", votes=votes, names=persons(view, pending, me))
