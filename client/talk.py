"""Table talk and the evening in words: what a reaction looks like, who said what, the
score of the evening by name and its list of games.

Pure functions of the view (no I/O). The words are here, each once, for both the TUI and
``--plain``; the browser's twins are ``client/web/js/talk.js``, pinned to these by the
shared vectors (``tests/vectors/``). A reaction is a name on the wire; `REACTIONS` is
how this client shows it: an emoji, or a short phrase.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from client._words import plural
from client.viewstate import ViewState
from protocol import MAX_SAY_CHARS, EveningGame, React, Reaction, Say, TalkLine, TalkSetting
from protocol.fields import unprintable

__all__ = [
    "REACTIONS",
    "SOMEONE_WATCHING",
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

REACTIONS: dict[Reaction, str] = {
    Reaction.CLAP: "👏",
    Reaction.WOW: "😮",
    Reaction.LAUGH: "😂",
    Reaction.SAD: "😢",
    Reaction.LOVE: "❤️",
    Reaction.PARTY: "🎉",
    Reaction.SCARED: "😱",
    Reaction.OOPS: "🙈",
    Reaction.GOOD_GAME: "Good game!",
    Reaction.WELL_PLAYED: "Well played!",
    Reaction.OH_NO: "Oh no!",
    Reaction.ONE_MORE: "One more?",
}
"""How each reaction is shown: the emojis first, then the phrases."""

_PHRASES = frozenset({Reaction.GOOD_GAME, Reaction.WELL_PLAYED, Reaction.OH_NO, Reaction.ONE_MORE})
SOMEONE_WATCHING = "Someone watching"
"""Who a spectator's message or reaction is from."""


def reaction_text(reaction: Reaction) -> str:
    """The reaction as this client shows it."""
    return REACTIONS[reaction]


def sender(view: ViewState, seat: int | None, me: int | None) -> str:
    """Who sent a talk line: a seat's name, "You", or someone watching."""
    if seat is None:
        return SOMEONE_WATCHING
    if seat == me:
        return "You"
    return view.name(seat)


def talk_line(view: ViewState, line: TalkLine, me: int | None) -> str:
    """One line of talk: "Ben: Good game!" (a message, or a phrase), "Ben reacts 👏"."""
    who = sender(view, line.seat, me)
    if line.text is not None:
        return f"{who}: {line.text}"
    assert line.reaction is not None
    if line.reaction in _PHRASES:
        return f"{who}: {reaction_text(line.reaction)}"
    verb = "react" if who == "You" else "reacts"
    return f"{who} {verb} {reaction_text(line.reaction)}"


def talk_refused(setting: TalkSetting, *, say: bool, seated: bool) -> str | None:
    """Why this room will not take a message (``say``) or a reaction from me, or None."""
    if setting is TalkSetting.OFF:
        return "Talk is off at this table."
    if not say:
        return None
    if setting is TalkSetting.REACTIONS:
        return "This table takes reactions only."
    if setting is TalkSetting.PLAYERS and not seated:
        return "Only the players write at this table; you may react."
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


def evening_score(evening: Sequence[EveningGame]) -> str:
    """The score of the evening by name: "Grandma 3 – Ben 2 – 1 draw" ("" before a game)."""
    if not evening:
        return ""
    ranked, draws = _wins(evening)
    parts = [f"{name} {count}" for name, count in ranked]
    if draws:
        parts.append(plural(draws, "draw"))
    return " – ".join(parts)


def evening_lines(evening: Sequence[EveningGame]) -> list[str]:
    """The evening's games, one line each: "Game 2: Ben won in 212 rounds (deal 90210).\""""
    lines = []
    for game in evening:
        winner = None if game.winner is None else _name(game, game.winner)
        rounds = plural(game.rounds, "round")
        outcome = "a draw" if winner is None else f"{winner} won"
        lines.append(f"Game {game.game}: {outcome} in {rounds} (deal {game.deal}).")
    return lines


def _name(game: EveningGame, seat: int) -> str:
    name = game.names[seat] if seat < len(game.names) else None
    return name if name is not None else f"seat {seat + 1}"


def say_intent(view: ViewState, text: str) -> Say | str:
    """The ``say`` for ``text`` (normalized as the server will), or why not."""
    refused = talk_refused(view.talk_setting, say=True, seated=view.my_seat is not None)
    if refused is not None:
        return refused
    clean = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(clean) <= MAX_SAY_CHARS or unprintable(clean):
        return f"A message is 1 to {MAX_SAY_CHARS} characters on one line."
    return Say(text=clean)


def react_intent(view: ViewState, name: str) -> React | str:
    """The ``react`` for a reaction's name (or its emoji or phrase), or why not."""
    refused = talk_refused(view.talk_setting, say=False, seated=view.my_seat is not None)
    if refused is not None:
        return refused
    wanted = name.strip()
    for reaction, shown in REACTIONS.items():
        if wanted.lower() in {reaction.value, shown.lower()} or wanted == shown:
            return React(reaction=reaction)
    names = ", ".join(reaction.value for reaction in Reaction)
    return f"No such reaction: {wanted!r} ({names})."


def typed_intent(view: ViewState, typed: str) -> Say | React | str:
    """What a line typed into the table's message box sends: ``/NAME`` a reaction (by its
    name, ``/clap``), anything else a message."""
    text = typed.strip()
    if text.startswith("/") and " " not in text:
        return react_intent(view, text[1:])
    return say_intent(view, text)


def talk_lines(view: ViewState, me: int | None, count: int) -> list[str]:
    """The room's last ``count`` lines of talk, oldest first, as :func:`talk_line` says them."""
    return [talk_line(view, line, me) for line in view.talk[-count:]]
