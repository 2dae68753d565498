"""How a game ended, in words: the result for one viewpoint, the figures for everyone.

:func:`result_sentence` ("Game over: you have all 52 cards. You win!") is written for seat
``me`` (None for a spectator); :func:`summary_sentence` ("12 rounds, no wars, biggest
haul: 2 cards, deal 7.") is the same for everyone; :func:`standings_sentence` ("Standings:
1st Ben, 2nd you, 3rd Grandma and Sam.") says each place of a game of three or four, as the
server's ``standings`` give them (never worked out here). All in the viewer's ``words``.
"""

from __future__ import annotations

from client.state.view import ViewState
from client.words.catalog import Catalog, Count, Said, said
from client.words.talk import deal_text
from client.words.who import persons, who
from protocol import GameResult, PlayerOut, Termination

__all__ = [
    "longest_name",
    "place_word",
    "places",
    "result_sentence",
    "standings_sentence",
    "summary_sentence",
]


def result_sentence(view: ViewState, result: GameResult, me: int | None, *, words: Catalog) -> str:
    """How the game ended, for seat ``me``: "Game over: you have all 52 cards. You win!"."""
    counts = {s.seat: s.count for s in view.seats}
    winner = result.winner
    why = result.termination
    reason: Said
    if why is Termination.ALL_CARDS and winner is not None:
        reason = said("result.all_cards", who=who(view, winner, me), count=sum(counts.values()))
    elif why is Termination.OPPONENTS_SHORT and winner is not None:
        short = _ran_short(view, winner, result.standings)
        reason = said("result.short", names=persons(view, short, me))
    elif why is Termination.ROUND_LIMIT:
        limit = view.rules.round_limit or result.summary.rounds
        reason = said("result.round_limit", rounds=Count("round", limit))
    else:
        reason = said("result.why", why=why.value)
    clause = _winner_clause(view, result, counts, me)
    return words.text("result.over", reason=reason, winner=clause)


def _ran_short(view: ViewState, winner: int, standings: tuple[int, ...]) -> list[int]:
    """Who went out short in the war that ended the game: the latest ``player_out`` for
    a short war if the view saw it; else, from the game's ``standings`` (a game finished
    at once: its last rounds were not shown), the opponents placed best, who went out
    last; else the opponents not out before the end; else, after a welcome into a
    finished game, every opponent."""
    said_ = [
        m.seat
        for m in view.recent
        if isinstance(m, PlayerOut) and m.step == view.step and m.reason.value == "short_war"
    ]
    if said_:
        return said_[-1:]
    opponents = [s.seat for s in view.seats if s.seat != winner and s.name is not None]
    placed = [s for s in opponents if s < len(standings)]
    if placed:
        best = min(standings[s] for s in placed)
        return [s for s in placed if standings[s] == best]
    still_in = [s for s in opponents if not view.seats[s].out]
    return still_in or opponents


def _winner_clause(
    view: ViewState, result: GameResult, counts: dict[int, int], me: int | None
) -> Said:
    winner = result.winner
    if winner is None:
        held = sorted({c for s, c in counts.items() if not view.seats[s].out}, reverse=True)
        if len(held) == 1:
            return said("result.draw_each", cards=Count("card", held[0]))
        return said("result.draw")
    if result.termination in (Termination.ALL_CARDS, Termination.OPPONENTS_SHORT):
        return said("result.wins", who=who(view, winner, me))
    rest = [
        said("result.holding", who=who(view, s, me), count=count)
        for s, count in counts.items()
        if s != winner and not view.seats[s].out
    ]
    cards = Count("card", counts[winner])
    return said("result.wins_with", who=who(view, winner, me), cards=cards, rest=rest)


def longest_name(depth: int) -> Said:
    """The longest war of a game in a word: ``0`` → "none", ``2`` → "double"."""
    return said("summary.longest", depth=depth)


def place_word(place: int) -> Said:
    """A place in the standings in words ("1st"; ``result.place``)."""
    return said("result.place", place=str(place) if 1 <= place <= 4 else "other", n=place)


def places(result: GameResult) -> list[tuple[int, list[int]]]:
    """The server's standings as ``[(place, [seat, ...]), ...]``, first place first (seats
    that share a place together, in seat order); empty when the server did not say."""
    grouped: dict[int, list[int]] = {}
    for seat, place in enumerate(result.standings):
        grouped.setdefault(place, []).append(seat)
    return sorted(grouped.items())


def standings_sentence(
    view: ViewState, result: GameResult, me: int | None, *, words: Catalog
) -> str | None:
    """Each place of a game of three or four: "Standings: 1st Ben, 2nd you, 3rd Grandma
    and Sam."; None for two players (the result says it all) or without standings."""
    if len(result.standings) < 3:
        return None
    parts = [
        said("result.standing", place=place_word(place), names=[who(view, s, me) for s in seats])
        for place, seats in places(result)
    ]
    return words.text("result.standings", places=", ".join(words.say(part) for part in parts))


def summary_sentence(result: GameResult, *, words: Catalog) -> str:
    """The game's figures, the same for everyone: rounds, wars, longest war, biggest haul,
    deal. "12 rounds, no wars, biggest haul: 2 cards, deal 7."; a game that ended before
    any round was won says so: "No round was won. Deal 0." (the figures count the rounds
    somebody took: an unsettled war is in none of them)."""
    summary = result.summary
    if summary.rounds == 0:
        return words.text("summary.none", deal=deal_text(summary.deal))
    return words.text(
        "summary.figures",
        rounds=Count("round", summary.rounds),
        wars=Count("war", summary.wars),
        longest=longest_name(summary.longest_war),
        haul=Count("card", summary.biggest_haul),
        deal=deal_text(summary.deal),
    )
