"""The settings of the room core, declared once: name, default, bounds, meaning.

Each field of `HubSettings` is one setting with one name, from the flag to the variable
to the object the core reads: ``max_rooms_per_ip`` is ``--max-rooms-per-ip``,
``WAR_MAX_ROOMS_PER_IP`` and ``settings.max_rooms_per_ip``. Its declaration
(`setting`) holds its default (the field's), how a value given as text is read and
checked (`whole`, `seconds`, …: a lowercase sentence with the value when it does not
do), and the sentence ``war-server --help`` shows. `server.adapters.settings.config` builds the
flags and the variables from these declarations (and from its own, for the transport:
`server.adapters.settings.config.Settings` extends `HubSettings`); nothing maps names by hand.

Fields declared with ``flag=False`` have no flag or variable: they are fixed for
production and exist so that tests can shorten them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol.fields import (
    MAX_PASSWORD_CHARS,  # a longer password could never be sent
    TalkSetting,
    unprintable,
)
from server.engine import STEP_WORK

__all__ = [
    "PLAY_OUT_SLICE",
    "HubSettings",
    "Setting",
    "declared",
    "seconds",
    "setting",
    "whole",
]

PLAY_OUT_SLICE = 256 * STEP_WORK
"""The engine work one slice of a finish vote's play-out may spend: 256 steps of the
step path or 4,096 of the two-player fast path, under 2 ms either way on the machine of
docs/performance.md (a few on a small board computer)."""


def _no_text(text: str) -> Any:
    raise ValueError("this setting is not read from text")


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """How a setting is read and shown (the metadata of its field, `setting`).

    ``help``: what it does, for ``--help``. ``parse``: text → value, raising ValueError
    with a lowercase sentence (a setting with a flag needs one). ``metavar``: the
    placeholder of its value. ``shown``: its default as ``--help`` shows it, when the
    value itself will not do (None: the field's default, ``none`` for None). ``flag``:
    False for a setting that only tests change. ``switch``: a flag without a value (its
    variable takes yes or no). ``blank_is_unset``: a variable of only spaces counts as
    unset (never for a secret: it is refused).
    """

    help: str
    parse: Callable[[str], Any] = _no_text
    metavar: str = ""
    shown: str | None = None
    flag: bool = True
    switch: bool = False
    blank_is_unset: bool = True


def setting(default: Any, declaration: Setting) -> Any:
    """A dataclass field with ``default`` that declares a setting."""
    return dataclasses.field(default=default, metadata={"setting": declaration})


def declared(settings: type[Any]) -> list[tuple[dataclasses.Field[Any], Setting]]:
    """The fields of the dataclass ``settings`` that declare a setting, in order."""
    return [
        (field, field.metadata["setting"])
        for field in dataclasses.fields(settings)
        if "setting" in field.metadata
    ]


# ---------------------------------------------------------------------- readers of text
def whole(low: int, high: int) -> Callable[[str], int]:
    """A whole number in ``low .. high``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise ValueError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise ValueError(f"{value} is out of range {low}..{high}")
        return value

    return parse


def seconds(low: float, *, positive: bool) -> Callable[[str], float]:
    """A finite number of at least ``low`` (greater than 0 if ``positive``)."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or value < low or (positive and value <= 0):
            bound = "greater than 0" if positive else f"at least {low:g}"
            raise ValueError(f"{text.strip()} must be a finite number {bound}")
        return value

    return parse


def _password(text: str) -> str:
    if len(text) > MAX_PASSWORD_CHARS:
        raise ValueError(
            f"the password has {len(text)} characters, at most {MAX_PASSWORD_CHARS} are allowed"
        )
    if unprintable(text):
        raise ValueError("the password contains a control or format character")
    if not text.strip():
        raise ValueError("the password is only spaces")
    return text


def _talk(text: str) -> TalkSetting:
    try:
        return TalkSetting(text.strip().lower())
    except ValueError:
        names = ", ".join(setting.value for setting in TalkSetting)
        raise ValueError(f"{text.strip()!r} is not one of {names}") from None


_MINUTES_MAX = 525_600  # a year
_MANY = 1_000_000


@dataclass(frozen=True, slots=True, kw_only=True)
class HubSettings:
    """Limits and paces of the room core. Times are in seconds unless a name says
    minutes; ``--help`` shows each setting's sentence, here with its default."""

    password: str | None = setting(
        None,
        Setting(
            help="password needed to create rooms (joining needs only a code)",
            parse=_password,
            metavar="TEXT",
            blank_is_unset=False,
        ),
    )
    max_rooms: int = setting(
        500,
        Setting(
            help="rooms held at once (more: error too_many_rooms, close 1013)",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    max_rooms_per_ip: int = setting(
        20,
        Setting(
            help="rooms created from one address (an IPv6 /64) held at once (more: error "
            "too_many_rooms, close 1013)",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    max_spectators: int = setting(
        20,
        Setting(
            help="spectators per room, one address at most half of them (more: error "
            "spectators_full, close 1013)",
            parse=whole(0, 100_000),
            metavar="N",
        ),
    )
    max_failed_joins: int = setting(
        10,
        Setting(
            help="wrong codes, tokens or passwords per address per minute before that address "
            "is refused (error too_many_failures, close 1008)",
            parse=whole(1, _MANY),
            metavar="N",
        ),
    )
    idle_room_minutes: float = setting(
        1440,
        Setting(
            help="remove rooms nobody used for this long (a restart is no use; rooms loaded at "
            "start get 15 minutes' grace for their players to come back)",
            parse=whole(1, _MINUTES_MAX),
            metavar="MINUTES",
        ),
    )
    idle_waiting_room_minutes: float = setting(
        30,
        Setting(
            help="remove rooms still waiting for players that nobody is in or used for this long",
            parse=whole(1, _MINUTES_MAX),
            metavar="MINUTES",
        ),
    )
    idle_computer_room_minutes: float = setting(
        30,
        Setting(
            help="remove a game against the computer, or a two-player room where no card was "
            "turned, nobody has been in for this long (a room counts against its creator's "
            "--max-rooms-per-ip as long as it exists)",
            parse=whole(1, _MINUTES_MAX),
            metavar="MINUTES",
        ),
    )
    away_timeout: float = setting(
        120.0,
        Setting(
            help="seconds before the server plays an absent player's seat at the calm pace, until"
            " they return (0 = never: the game waits for them)",
            parse=seconds(0, positive=False),
            metavar="SECONDS",
        ),
    )
    talk: TalkSetting = setting(
        TalkSetting.ALL,
        Setting(
            help="the most table talk any room may allow: all (players and spectators write), "
            "players (spectators react only), reactions (nobody writes), off (no talk at all)"
            "; a room asking for more gets this",
            parse=_talk,
            metavar="WHO",
        ),
    )
    # --- no flag: fixed for production, shortened by tests --------------------------
    seat_request_seconds: float = setting(
        60.0,
        Setting(
            help="seconds the table has to answer a request for an away seat by its name",
            flag=False,
        ),
    )
    reclaim_seconds: float = setting(
        600.0,
        Setting(
            help="seconds the device a seat was taken from may still take it back with its token",
            flag=False,
        ),
    )
    say_rate: float = setting(
        0.5, Setting(help="messages (say) one connection may send a second", flag=False)
    )
    say_burst: float = setting(
        5.0, Setting(help="messages (say) one connection may send at once", flag=False)
    )
    react_rate: float = setting(
        1.0, Setting(help="reactions one connection may send a second", flag=False)
    )
    react_burst: float = setting(
        8.0, Setting(help="reactions one connection may send at once", flag=False)
    )
    calm_delay: float = setting(
        1.5, Setting(help="seconds calm auto-play takes to ready", flag=False)
    )
    quick_delay: float = setting(
        0.3, Setting(help="seconds quick auto-play takes to ready", flag=False)
    )
    computer_delay: float = setting(
        0.6,
        Setting(
            help="seconds a computer seat takes to ready at most (it keeps pace with a quicker "
            "person's auto-play)",
            flag=False,
        ),
    )
    play_out_slice: int = setting(
        PLAY_OUT_SLICE,
        Setting(
            help="engine work (units of server.engine.STEP_WORK) of one slice of a finish "
            "vote's play-out",
            flag=False,
        ),
    )
    play_out_rate: float = setting(
        2_048.0 * STEP_WORK,
        Setting(
            help="play-out work one address may have done a second (about 2,000 steps of a "
            "four-player game)",
            flag=False,
        ),
    )
    play_out_burst: float = setting(
        32_768.0 * STEP_WORK,
        Setting(
            help="play-out work one address may have done at once (about 32,000 steps: the longest "
            "games seen)",
            flag=False,
        ),
    )
    play_out_server_rate: float = setting(
        8_192.0 * STEP_WORK,
        Setting(
            help="play-out work every address together may have done a second (about 8,000 steps, "
            "some 5% of a core)",
            flag=False,
        ),
    )
    play_out_server_burst: float = setting(
        65_536.0 * STEP_WORK,
        Setting(help="play-out work every address together may have done at once", flag=False),
    )
