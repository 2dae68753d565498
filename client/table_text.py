"""The words of the terminal table's rows: the header, the codes line, the summary box.

Pure functions of the view (and the browser table's address, for the join link), drawn
by :class:`client.tui.WarApp`; rich ``Text`` so the app can style a part of them.
"""

from __future__ import annotations

from rich.text import Text

from client._words import join_words, who
from client.links import local_warning, shared_page
from client.results import PLACE_WORDS, places
from client.sentences import longest_name, result_sentence, votes_sentence
from client.talk import evening_score
from client.view import ViewState
from protocol import RoomPhase

__all__ = ["codes_line", "round_text", "summary_box", "top_line"]


def round_text(view: ViewState) -> str | None:
    """The header's round: the one being played (``round 1`` from the first flip on,
    ``round 3 of 26`` with a limit), the rounds played once the game is over."""
    limit = view.rules.round_limit
    if view.phase is RoomPhase.OVER:
        return "1 round" if view.round == 1 else f"{view.round} rounds"
    if view.phase is not RoomPhase.PLAYING:
        return None if limit is None else f"{limit}-round game"
    playing = view.round + 1
    if limit is None:
        return f"round {playing}"
    if playing > limit:
        return f"round {playing}, tie-break"
    return f"round {playing} of {limit}"


def top_line(view: ViewState) -> Text:
    """The header: ``Family War · game 2 · round 3 of 26 · 2 watching · Grandma 1 – Ben 0 ·
    deal 42`` (the evening's score once a game is over)."""
    parts = ["Family War"]
    if view.welcomed:
        if view.game > 1:
            parts.append(f"game {view.game}")
        if (playing := round_text(view)) is not None:
            parts.append(playing)
        if view.minutes is not None:
            parts.append(f"{view.minutes}-minute game")
        if view.spectating:
            others = view.spectators - 1
            parts.append("you are watching" + (f" with {others} more" if others > 0 else ""))
        elif view.spectators:
            parts.append(f"{view.spectators} watching")
        if view.watch_code and not view.spectating:
            parts.append(f"watch code {view.watch_code}")
        if view.evening:
            parts.append(evening_score(view.evening))
        if view.deal is not None and view.phase is not RoomPhase.OVER:
            parts.append(f"deal {view.deal}")  # last: a long number may not fit
    return Text(" · ".join(parts))


def codes_line(view: ViewState, page: str | None) -> Text:
    """The room's codes to read aloud, and the join link when ``page`` is known."""
    parts = []
    if view.player_code:
        parts.append(f"Player code: {view.player_code}")
    if view.watch_code:
        parts.append(f"Watch code: {view.watch_code}")
    parts.append("read them aloud")
    if page is not None and view.player_code:
        parts.append(f"or send {shared_page(page, view.addresses)}#join={view.player_code}")
        if (warning := local_warning(page, view.addresses)) is not None:
            parts.append(warning)
    return Text(" · ".join(parts))


def summary_box(view: ViewState) -> Text:
    """After game over: the result for this viewpoint, the figures, the votes."""
    result = view.result
    if result is None:
        return Text("")
    figures = result.summary
    rows = [
        ("Rounds", str(figures.rounds)),
        ("Wars", str(figures.wars)),
        ("Longest war", longest_name(figures.longest_war)),
        ("Biggest haul", f"{figures.biggest_haul} cards"),
        ("Deal", str(figures.deal)),
    ]
    text = Text(result_sentence(view, result, view.my_seat), style="bold")
    text.append("\n")
    for label, value in rows:
        text.append(f"\n{label:<14}{value}")
    if len(result.standings) > 2:  # the server's places, never worked out here
        text.append("\n")
        for place, seats in places(result):
            named = join_words(who(view, s, view.my_seat) for s in seats)
            text.append(f"\n{PLACE_WORDS.get(place, str(place)):<4}{named}")
    if (votes := votes_sentence(view, view.my_seat)) is not None:
        text.append(f"\n\n{votes}", style="italic")
    return text
