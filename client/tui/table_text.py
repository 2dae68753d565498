"""The words of the terminal table's rows: the header, the codes line, the summary box.

Pure functions of the view (and the browser table's address, for the join link), in the
viewer's ``words``, drawn by :class:`client.tui.app.WarApp`; rich ``Text`` so the app can
style a part of them. The header's parts are the browser table's (``where.*``).
"""

from __future__ import annotations

from rich.text import Text

from client.state.view import ViewState
from client.words.catalog import Catalog, Count, Said, said
from client.words.links import local_warning, shared_page
from client.words.results import place_word, places
from client.words.sentences import longest_name, result_sentence, votes_sentence
from client.words.talk import deal_text, evening_score
from client.words.who import persons
from protocol import RoomPhase

__all__ = ["codes_line", "round_text", "summary_box", "top_line"]


def round_text(view: ViewState) -> Said | None:
    """The header's round: the one being played (``round 1`` from the first flip on,
    ``round 3 of 26`` with a limit), the rounds played once the game is over."""
    limit = view.rules.round_limit
    if view.phase is RoomPhase.OVER:
        return said("where.rounds", rounds=Count("round", view.round))
    if view.phase is not RoomPhase.PLAYING:
        return None if limit is None else said("where.round_game", limit=limit)
    playing = view.round + 1
    if limit is None:
        return said("where.round", round=playing)
    if playing > limit:
        return said("where.tie_break", round=playing)
    return said("where.round_of", round=playing, limit=limit)


def top_line(view: ViewState, words: Catalog) -> Text:
    """The header: ``Family War · game 2 · round 3 of 26 · 2 watching · Grandma: 1 · Ben: 0 ·
    deal 42`` (the evening's score once a game is over)."""
    parts: list[Said | str] = [said("app.title")]
    if view.welcomed:
        if view.game > 1:
            parts.append(said("where.game", game=view.game))
        if (playing := round_text(view)) is not None:
            parts.append(playing)
        if view.minutes is not None:
            parts.append(said("where.minute_game", minutes=view.minutes))
        if view.spectating:
            others = view.spectators - 1
            if others > 0:
                parts.append(said("where.you_watch_with", others=others))
            else:
                parts.append(said("where.you_watch"))
        elif view.spectators:
            parts.append(said("where.watching", count=view.spectators))
        if view.watch_code and not view.spectating:
            parts.append(said("where.watch_code", code=view.watch_code))
        if view.evening:
            parts.append(evening_score(view.evening, words=words, view=view))
        if view.deal is not None and view.phase is not RoomPhase.OVER:
            parts.append(said("where.deal", deal=deal_text(view.deal)))  # last: a long number
    return Text(" · ".join(part if isinstance(part, str) else words.say(part) for part in parts))


def codes_line(view: ViewState, page: str | None, words: Catalog) -> Text:
    """The room's codes to read aloud, and the join link when ``page`` is known."""
    parts: list[Said] = []
    if view.player_code:
        parts.append(said("tui.player_code", code=view.player_code))
    if view.watch_code:
        parts.append(said("tui.watch_code", code=view.watch_code))
    parts.append(said("tui.read_aloud"))
    if page is not None and view.player_code:
        link = f"{shared_page(page, view.addresses)}#join={view.player_code}"
        parts.append(said("tui.or_send", link=link))
        if (warning := local_warning(page, view.addresses)) is not None:
            parts.append(warning)
    return Text(" · ".join(words.say(part) for part in parts))


def summary_box(view: ViewState, words: Catalog) -> Text:
    """After game over: the result for this viewpoint, the figures, the votes."""
    result = view.result
    if result is None:
        return Text("")
    figures = result.summary
    rows = [
        ("figures.rounds", str(figures.rounds)),
        ("figures.wars", str(figures.wars)),
        ("figures.longest", words.say(longest_name(figures.longest_war))),
        ("figures.haul", words.word(Count("card", figures.biggest_haul))),
        ("figures.deal", deal_text(figures.deal)),
    ]
    labels = [words.text(key) for key, _ in rows]
    width = max(14, max(len(label) for label in labels) + 2)
    text = Text(result_sentence(view, result, view.my_seat, words=words), style="bold")
    text.append("\n")
    for label, (_, value) in zip(labels, rows, strict=True):
        text.append(f"\n{label:<{width}}{value}")
    if len(result.standings) > 2:  # the server's places, never worked out here
        text.append("\n")
        for place, seats in places(result):
            named = words.say(said("result.names", names=persons(view, seats, view.my_seat)))
            text.append(f"\n{words.say(place_word(place)):<4}{named}")
    if (votes := votes_sentence(view, view.my_seat, words=words)) is not None:
        text.append(f"\n\n{votes}", style="italic")
    return text
