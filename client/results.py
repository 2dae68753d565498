"""How a game ended, in words: the result for one viewpoint, the figures for everyone.

:func:`result_sentence` ("Game over: you have all 52 cards. You win!") is written for seat
``me`` (None for a spectator); :func:`summary_sentence` ("12 rounds, no wars, biggest
haul: 2 cards, deal 7.") is the same for everyone; :func:`standings_sentence` ("Standings:
1st Ben, 2nd you, 3rd Grandma and Sam.") says each place of a game of three or four, as the
server's ``standings`` give them (never worked out here).
"""

from __future__ import annotations

from client._words import cap, does, join_words, longest_name, plural, who, whose
from client.view import ViewState
from protocol import GameResult, PlayerOut, Termination

__all__ = ["PLACE_WORDS", "places", "result_sentence", "standings_sentence", "summary_sentence"]

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
        have = does(view, winner, me, "have", "has")
        reason = f"{have} all {sum(counts.values())} cards"
    elif why is Termination.OPPONENTS_SHORT and winner is not None:
        short = _ran_short(view, winner)
        named = join_words(who(view, s, me) for s in short)
        reason = f"{named if len(short) == 1 else 'one of ' + named} ran short of cards in a war"
    elif why is Termination.ROUND_LIMIT:
        limit = view.rules.round_limit or result.summary.rounds
        reason = f"the limit of {plural(limit, 'round')} is reached"
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
            return f"It's a draw: {plural(held[0], 'card')} each."
        return "It's a draw."
    win = "You win!" if winner == me else f"{cap(who(view, winner, me))} wins."
    if result.termination in (Termination.ALL_CARDS, Termination.OPPONENTS_SHORT):
        return win
    rest = [
        f"{whose(view, s, me)} {count}"
        for s, count in counts.items()
        if s != winner and not view.seats[s].out
    ]
    return f"{win[:-1]} with {counts[winner]} cards to {join_words(rest)}."


PLACE_WORDS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
"""A place in the standings, in words."""


def places(result: GameResult) -> list[tuple[int, list[int]]]:
    """The server's standings as ``[(place, [seat, ...]), ...]``, first place first (seats
    that share a place together, in seat order); empty when the server did not say."""
    grouped: dict[int, list[int]] = {}
    for seat, place in enumerate(result.standings):
        grouped.setdefault(place, []).append(seat)
    return sorted(grouped.items())


def standings_sentence(view: ViewState, result: GameResult, me: int | None) -> str | None:
    """Each place of a game of three or four: "Standings: 1st Ben, 2nd you, 3rd Grandma
    and Sam."; None for two players (the result says it all) or without standings."""
    if len(result.standings) < 3:
        return None
    parts = [
        f"{PLACE_WORDS.get(place, str(place))} {join_words(who(view, s, me) for s in seats)}"
        for place, seats in places(result)
    ]
    return f"Standings: {', '.join(parts)}."


def summary_sentence(result: GameResult) -> str:
    """The game's figures, the same for everyone: rounds, wars, longest war, biggest haul,
    deal. "12 rounds, no wars, biggest haul: 2 cards, deal 7."; a game that ended before
    any round was won says so: "No round was won. Deal 0." (the figures count the rounds
    somebody took: an unsettled war is in none of them)."""
    summary = result.summary
    if summary.rounds == 0:
        return f"No round was won. Deal {summary.deal}."
    parts = [plural(summary.rounds, "round")]
    if summary.wars:
        parts += [plural(summary.wars, "war"), f"longest war: {longest_name(summary.longest_war)}"]
    else:
        parts.append("no wars")
    parts += [f"biggest haul: {plural(summary.biggest_haul, 'card')}", f"deal {summary.deal}"]
    return ", ".join(parts) + "."
