"""The one border between the engine and the wire: rules both ways, events, results. Pure.

Every engine value that reaches the wire, and the wire's rules on their way to the
engine, are converted here and nowhere else (the room, the hub and every test or bench
harness call these functions). The enums need no converting: the engine and the wire
share the `vocabulary` package's (`Aces`, `ShortWar`, `BothShort`, `WonCards`,
`FixedOrder`, `TieBreak`, `Termination`, `OutReason`); what changes form is the records
around them (cards become labels, events become messages with ``seq`` and ``step``).
"""

from __future__ import annotations

from protocol import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    EveningGame,
    GameOver,
    GameResult,
    PlayerOut,
    RulesSpec,
    ServerMessage,
    Summary,
    WarDeclared,
)
from server import engine

__all__ = [
    "card_labels",
    "engine_rules",
    "event_message",
    "game_over_message",
    "game_result",
    "rules_spec",
    "summary",
]


def engine_rules(spec: RulesSpec) -> engine.Rules:
    """The engine's rules for the wire's ``spec`` (a 52-card deck).

    Raises `engine.RulesError` (a ValueError) if the settings are invalid, with the same
    checks and messages as the codec's (`vocabulary`): a caller that skipped the codec is
    held to the same bounds.
    """
    return engine.Rules(
        players=spec.players,
        face_down=spec.face_down,
        aces=spec.aces,
        short_war=spec.short_war,
        both_short=spec.both_short,
        won_cards=spec.won_cards,
        fixed_order=spec.fixed_order,
        taken_back=spec.taken_back,
        round_limit=spec.round_limit,
        tie_break=spec.tie_break,
    )


def rules_spec(rules: engine.Rules) -> RulesSpec:
    """The wire form of a 52-card game's rules."""
    return RulesSpec(
        players=rules.players,
        face_down=rules.face_down,
        aces=rules.aces,
        short_war=rules.short_war,
        both_short=rules.both_short,
        won_cards=rules.won_cards,
        fixed_order=rules.fixed_order,
        taken_back=rules.taken_back,
        round_limit=rules.round_limit,
        tie_break=rules.tie_break,
    )


def summary(figures: engine.Summary) -> Summary:
    """The wire form of a game's summary."""
    return Summary(
        rounds=figures.rounds,
        wars=figures.wars,
        longest_war=figures.longest_war,
        biggest_haul=figures.biggest_haul,
        deal=figures.deal,
    )


def game_result(game: engine.Game) -> GameResult | None:
    """How ``game`` ended, or None while it is on."""
    outcome = game.outcome
    if outcome is None:
        return None
    return GameResult(
        winner=outcome.winner,
        termination=outcome.termination,
        summary=summary(game.summary),
        standings=game.standings or (),
    )


def game_over_message(
    game: engine.Game, seq: int, evening: tuple[EveningGame, ...] = ()
) -> GameOver:
    """The ``game_over`` message of a finished ``game``, with the room's ``evening``.
    Raises ValueError if it is on."""
    outcome = game.outcome
    if outcome is None:
        raise ValueError(f"game {game.deal} is not over")
    return GameOver(
        seq=seq,
        step=game.steps,
        winner=outcome.winner,
        termination=outcome.termination,
        summary=summary(game.summary),
        counts=game.counts,
        standings=game.standings or (),
        evening=evening,
    )


def card_labels(rules: engine.Rules) -> tuple[str, ...]:
    """Every card's label (`server.engine.card_label`) of a deck of ``rules``, by card
    number: a room keeps them, so a message that names cards looks each one up."""
    return tuple(engine.card_label(card, rules) for card in range(rules.ranks * rules.suits))


def event_message(
    event: engine.Event,
    game: engine.Game,
    seq: int,
    evening: tuple[EveningGame, ...] = (),
    labels: tuple[str, ...] | None = None,
) -> ServerMessage:
    """The room message mirroring ``event``, just produced by ``game``'s latest step
    (``evening``: the room's, for a ``game_over``; ``labels``: `card_labels` of its
    rules, if the caller keeps them)."""
    step = game.steps
    message: ServerMessage
    if labels is None:
        labels = card_labels(game.rules)
    match event:
        case engine.CardsTurned(round=round_no, depth=depth, cards=cards):
            message = CardsTurned(
                seq=seq,
                step=step,
                round=round_no,
                depth=depth,
                cards=tuple((seat, labels[card]) for seat, card in cards),
            )
        case engine.CardsLaidDown(round=round_no, depth=depth, counts=counts):
            message = CardsLaidDown(seq=seq, step=step, round=round_no, depth=depth, counts=counts)
        case engine.WarDeclared(round=round_no, depth=depth, seats=seats):
            message = WarDeclared(seq=seq, step=step, round=round_no, depth=depth, seats=seats)
        case engine.CardsTaken(round=round_no, seat=seat, count=count, counts=counts):
            message = CardsTaken(
                seq=seq, step=step, round=round_no, seat=seat, count=count, counts=counts
            )
        case engine.CardsReturned(round=round_no, counts=counts):
            message = CardsReturned(seq=seq, step=step, round=round_no, counts=counts)
        case engine.PlayerOut(round=round_no, seat=seat, reason=reason):
            message = PlayerOut(seq=seq, step=step, round=round_no, seat=seat, reason=reason)
        case engine.GameOver():
            message = game_over_message(game, seq, evening)
        case _:
            raise TypeError(f"not an engine event: {event!r}")
    return message
