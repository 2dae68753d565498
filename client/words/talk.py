"""Table talk and the evening in words: what a reaction looks like, who said what, the
score of the evening by name and its list of games.

Pure functions of the view (no I/O). The words are the catalogs' ``talk`` section, for
both the TUI and ``--plain``; the browser's twins are ``client/web/js/talk.js``, pinned to
these by the shared vectors (``tests/vectors/``). A reaction is a name on the wire; this
client shows it as an emoji (`EMOJIS`) or a short phrase in the viewer's words.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from client.state.viewstate import ViewState
from client.words.catalog import YOU, Catalog, Count, Person, Said, said
from client.words.who import label, named
from protocol import MAX_SAY_CHARS, EveningGame, React, Reaction, Say, TalkLine, TalkSetting
from protocol.fields import unprintable

__all__ = [
    "EMOJIS",
    "deal_text",
    "evening_lines",
    "evening_score",
    "react_intent",
    "reaction_text",
    "say_intent",
    "talk_line",
    "talk_lines",
    "talk_refused",
    "typed_intent",
]

EMOJIS: dict[Reaction, str] = {
    Reaction.CLAP: "👏",
    Reaction.WOW: "😮",
    Reaction.LAUGH: "😂",
    Reaction.SAD: "😢",
    Reaction.LOVE: "❤️",
    Reaction.PARTY: "🎉",
    Reaction.SCARED: "😱",
    Reaction.OOPS: "🙈",
}
"""How each emoji reaction is shown; the others are phrases (``talk.phrase``)."""


def reaction_text(reaction: Reaction, *, words: Catalog) -> str:
    """The reaction as this client shows it: an emoji, or a phrase in the viewer's words."""
    emoji = EMOJIS.get(reaction)
    return emoji if emoji is not None else words.text("talk.phrase", reaction=reaction.value)


def _sender(view: ViewState, seat: int | None, me: int | None) -> Person | None:
    """Who sent a talk line: you, a seat by its name, or None (someone watching)."""
    if seat is None:
        return None
    return YOU if seat == me else named(view, seat)


def talk_line(view: ViewState, line: TalkLine, me: int | None, *, words: Catalog) -> str:
    """One line of talk: "Ben: Good game!" (a message, or a phrase), "Ben reacts 👏"."""
    who = _sender(view, line.seat, me)
    if line.text is not None:
        text = line.text
        phrase = True
    else:
        assert line.reaction is not None
        text = reaction_text(line.reaction, words=words)
        phrase = line.reaction not in EMOJIS
    if who is None:
        key = "talk.watcher_says" if phrase else "talk.watcher_reacts"
        return words.text(key, text=text)
    return words.text("talk.says" if phrase else "talk.reacts", who=who, text=text)


def talk_refused(setting: TalkSetting, *, say: bool, seated: bool) -> Said | None:
    """Why this room will not take a message (``say``) or a reaction from me, or None."""
    if setting is TalkSetting.OFF:
        return said("talk.off")
    if not say:
        return None
    if setting is TalkSetting.REACTIONS:
        return said("talk.reactions_only")
    if setting is TalkSetting.PLAYERS and not seated:
        return said("talk.players_only")
    return None


def _wins(evening: Sequence[EveningGame]) -> tuple[list[tuple[str, int]], int]:
    """Each name's wins (most first, then in the order they first sat), and the draws."""
    wins: dict[str, int] = {}
    draws = 0
    for game in evening:
        for name in game.names:
            if name is not None:
                wins.setdefault(name, 0)
        if game.winner is None:
            draws += 1
        elif game.winner < len(game.names) and (name := game.names[game.winner]) is not None:
            wins[name] += 1
    order = {name: index for index, name in enumerate(wins)}
    ranked = sorted(wins.items(), key=lambda item: (-item[1], order[item[0]]))
    return ranked, draws


def deal_text(deal: int) -> str:
    """A deal number to read out, the same in every sentence and on the table (the page
    groups it alike): "18 446 744 073 709 551 615", groups of three past 4 digits; the
    page's deal field and ``war-client --deal`` take it back with its spaces."""
    digits = str(deal)
    return f"{deal:,}".replace(",", " ") if len(digits) > 4 else digits


def _seat_named(view: ViewState | None, name: str) -> int | None:
    """The seat ``view`` shows under ``name``: an evening's names are the seats' names in
    each game, and a computer seat keeps its seat and its name all evening."""
    if view is None:
        return None
    return next((s.seat for s in view.seats if s.name == name), None)


def evening_score(
    evening: Sequence[EveningGame], *, words: Catalog, view: ViewState | None = None
) -> str:
    """The score of the evening by name: "Grandma: 3 · Ben: 2 · 1 draw" (``talk.wins`` for
    each, so that "Computer 1: 0" is never read as "Computer 10"; "" before a game).
    ``view``: the table, whose computer seats are named in the viewer's words."""
    if not evening:
        return ""
    ranked, draws = _wins(evening)
    parts = []
    for name, count in ranked:
        seat = _seat_named(view, name)
        shown = name if view is None or seat is None else label(view, seat, words)
        parts.append(words.text("talk.wins", who=Person("name", shown), count=count))
    if draws:
        parts.append(words.text("talk.draws", count=draws))
    return " · ".join(parts)


def evening_lines(
    evening: Sequence[EveningGame], *, words: Catalog, view: ViewState | None = None
) -> list[str]:
    """The evening's games, one line each: "Game 2: Ben won in 212 rounds (deal 90 210).\""""
    lines = []
    for game in evening:
        rounds = Count("round", game.rounds)
        deal = deal_text(game.deal)
        if game.winner is None:
            line = words.text("talk.game_draw", game=game.game, rounds=rounds, deal=deal)
        else:
            who = _named(game, game.winner, view)
            line = words.text("talk.game_won", who=who, game=game.game, rounds=rounds, deal=deal)
        lines.append(line)
    return lines


def _named(game: EveningGame, seat: int, view: ViewState | None) -> Person:
    name = game.names[seat] if seat < len(game.names) else None
    if name is None:
        return Person("seat", seat=seat + 1)
    now = _seat_named(view, name)
    return Person("name", name) if view is None or now is None else named(view, now)


def say_intent(view: ViewState, text: str) -> Say | Said:
    """The ``say`` for ``text`` (normalized as the server will), or why not."""
    refused = talk_refused(view.talk_setting, say=True, seated=view.my_seat is not None)
    if refused is not None:
        return refused
    clean = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(clean) <= MAX_SAY_CHARS or unprintable(clean):
        return said("talk.too_long", most=MAX_SAY_CHARS)
    return Say(text=clean)


def react_intent(view: ViewState, name: str, *, words: Catalog) -> React | Said:
    """The ``react`` for a reaction's name (or its emoji or phrase), or why not."""
    refused = talk_refused(view.talk_setting, say=False, seated=view.my_seat is not None)
    if refused is not None:
        return refused
    wanted = name.strip()
    for reaction in Reaction:
        shown = reaction_text(reaction, words=words)
        if wanted.lower() in {reaction.value, shown.lower()} or wanted == shown:
            return React(reaction=reaction)
    names = ", ".join(reaction.value for reaction in Reaction)
    return said("talk.no_reaction", reaction=repr(wanted), options=names)


def typed_intent(view: ViewState, typed: str, *, words: Catalog) -> Say | React | Said:
    """What a line typed into the table's message box sends: ``/NAME`` a reaction (by its
    name, ``/clap``), anything else a message."""
    text = typed.strip()
    if text.startswith("/") and " " not in text:
        return react_intent(view, text[1:], words=words)
    return say_intent(view, text)


def talk_lines(view: ViewState, me: int | None, count: int, *, words: Catalog) -> list[str]:
    """The room's last ``count`` lines of talk, oldest first, as :func:`talk_line` says them."""
    return [talk_line(view, line, me, words=words) for line in view.talk[-count:]]
