"""Engine values → protocol values: events as room messages, rules, results. Pure."""

from __future__ import annotations

from protocol import (
    Aces,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    GameOver,
    GameResult,
    OutReason,
    PlayerOut,
    RulesSpec,
    ServerMessage,
    ShortWar,
    Summary,
    Termination,
    TieBreak,
    WarDeclared,
    WonCards,
)
from server import engine

__all__ = ["event_message", "game_over_message", "game_result", "rules_spec", "summary"]


def rules_spec(rules: engine.Rules) -> RulesSpec:
    """The wire form of a 52-card game's rules."""
    return RulesSpec(
        players=rules.players,
        face_down=rules.face_down,
        aces=Aces(rules.aces.value),
        short_war=ShortWar(rules.short_war.value),
        won_cards=WonCards(rules.won_cards.value),
        round_limit=rules.round_limit,
        tie_break=TieBreak(rules.tie_break.value),
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
        termination=Termination(outcome.termination.value),
        summary=summary(game.summary),
    )


def game_over_message(game: engine.Game, seq: int) -> GameOver:
    """The ``game_over`` message of a finished ``game``. Raises ValueError if it is on."""
    outcome = game.outcome
    if outcome is None:
        raise ValueError(f"game {game.deal} is not over")
    return GameOver(
        seq=seq,
        step=game.steps,
        winner=outcome.winner,
        termination=Termination(outcome.termination.value),
        summary=summary(game.summary),
        counts=game.counts,
    )


def event_message(event: engine.Event, game: engine.Game, seq: int) -> ServerMessage:
    """The room message mirroring ``event``, just produced by ``game``'s latest step."""
    step = game.steps
    rules = game.rules
    match event:
        case engine.CardsTurned(round=round_no, depth=depth, cards=cards):
            return CardsTurned(
                seq=seq,
                step=step,
                round=round_no,
                depth=depth,
                cards=tuple((seat, engine.card_label(card, rules)) for seat, card in cards),
            )
        case engine.CardsLaidDown(round=round_no, depth=depth, counts=counts):
            return CardsLaidDown(seq=seq, step=step, round=round_no, depth=depth, counts=counts)
        case engine.WarDeclared(round=round_no, depth=depth, seats=seats):
            return WarDeclared(seq=seq, step=step, round=round_no, depth=depth, seats=seats)
        case engine.CardsTaken(round=round_no, seat=seat, count=count, counts=counts):
            return CardsTaken(
                seq=seq, step=step, round=round_no, seat=seat, count=count, counts=counts
            )
        case engine.CardsReturned(round=round_no, counts=counts):
            return CardsReturned(seq=seq, step=step, round=round_no, counts=counts)
        case engine.PlayerOut(round=round_no, seat=seat, reason=reason):
            return PlayerOut(
                seq=seq, step=step, round=round_no, seat=seat, reason=OutReason(reason)
            )
        case engine.GameOver():
            return game_over_message(game, seq)
    raise TypeError(f"not an engine event: {event!r}")
