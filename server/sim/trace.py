"""One game told round by round in plain words (``war-sim --deal D --trace``)."""

from __future__ import annotations

from collections.abc import Iterator

from server.engine import (
    BothShort,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    FixedOrder,
    Game,
    GameOver,
    Outcome,
    OutReason,
    Phase,
    PlayerOut,
    Rules,
    Summary,
    TakenBack,
    Termination,
    WarDeclared,
    WonCards,
    card_rank,
    card_suit,
)

__all__ = ["card_words", "describe_rules", "trace"]

RANK_WORDS = {
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
    "A": "ace",
}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
WAR_WORDS = {1: "War", 2: "Double war", 3: "Triple war", 4: "Quadruple war"}
LONGEST_WORDS = {1: "single war", 2: "double war", 3: "triple war", 4: "quadruple war"}
ENDINGS = {
    Termination.ALL_CARDS: "holds every card in play",
    Termination.OPPONENTS_SHORT: "the last opponent ran short in a war",
    Termination.BOTH_SHORT: "everyone in a war ran out at once; most cards counted",
    Termination.ROUND_LIMIT: "the round limit was reached; most cards counted",
    Termination.TIME_LIMIT: "time ran out; most cards counted",
    Termination.ENDLESS: "the same position came back, so it would never end; most cards counted",
}


def card_words(card: int, rules: Rules) -> str:
    """``"the queen of hearts"``."""
    return f"the {RANK_WORDS[card_rank(card, rules)]} of {SUIT_WORDS[card_suit(card, rules)]}"


def _seats(seats: tuple[int, ...]) -> str:
    numbers = [str(s) for s in seats]
    if len(numbers) == 1:
        return f"seat {numbers[0]}"
    return "seats " + ", ".join(numbers[:-1]) + " and " + numbers[-1]


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def describe_rules(rules: Rules) -> str:
    """One line naming every setting in words."""
    limit = "no round limit" if rules.round_limit is None else f"{rules.round_limit} rounds max"
    deck = "52-card deck" if rules.deck_size == 52 else f"{rules.ranks}x{rules.suits} deck"
    won = f"won cards {rules.won_cards}"
    if rules.won_cards is WonCards.FIXED:
        won += " from the winner" if rules.fixed_order is FixedOrder.WINNER else " from seat 0"
    everyone = ""
    if rules.players > 2 and rules.both_short is BothShort.END:
        everyone = ", all short in a war: the game ends"
    elif rules.players > 2 and rules.taken_back is TakenBack.AS_LAID:
        everyone = ", all short in a war: cards taken back in the order laid"
    return (
        f"{rules.players} players, {deck}, {rules.face_down} face down in a war, "
        f"aces {rules.aces}, short in a war: {rules.short_war.replace('_', ' ')}{everyone}, "
        f"{won}, {limit}, ties at a limit: {rules.tie_break}"
    )


def _turned(event: CardsTurned, rules: Rules, shown: set[int]) -> str:
    """The flip in words; a card already shown this round is one that stands again
    (``short_war = last_card``, the player has no cards left)."""
    words = []
    for index, (seat, card) in enumerate(event.cards):
        name = card_words(card, rules)
        if card in shown:
            words.append(f"seat {seat} has no cards left, so {name} stands")
        elif index == 0:
            verb = "turns up" if event.depth == 0 else "then turns up"
            words.append(f"seat {seat} {verb} {name}")
        else:
            words.append(f"seat {seat} {name}")
        shown.add(card)
    text = ", ".join(words) + "."
    return text[0].upper() + text[1:]


def _laid(event: CardsLaidDown, forfeits: set[int]) -> str:
    """Face-down cards of a war; a short player's forfeited pile is told as such."""
    words = [
        f"seat {seat}'s last card goes into the prize"
        if n == 1
        else f"seat {seat}'s last {n} cards go into the prize"
        for seat, n in event.counts
        if seat in forfeits and n
    ]
    laid = [(seat, n) for seat, n in event.counts if seat not in forfeits]
    counts = {n for _, n in laid}
    if len(laid) > 1 and len(counts) == 1 and 0 not in counts:
        words.append(f"each lays {_cards(counts.pop())} face down")
    else:
        words += [f"seat {seat} lays {_cards(n)} face down" for seat, n in laid if n]
    if not words:
        return ""
    text = "; ".join(words)
    return text[0].upper() + text[1:] + "."


def _ending(outcome: Outcome, summary: Summary) -> str:
    who = "a draw" if outcome.winner is None else f"seat {outcome.winner} wins"
    longest = LONGEST_WORDS.get(summary.longest_war, f"{summary.longest_war}-deep war")
    count = "1 war" if summary.wars == 1 else f"{summary.wars} wars"
    wars = "no wars" if summary.wars == 0 else f"{count}, the longest a {longest}"
    return (
        f"Game over after {summary.rounds} rounds: {who} ({ENDINGS[outcome.termination]}). "
        f"{wars}; biggest haul {_cards(summary.biggest_haul)}."
    )


def trace(rules: Rules, deal: int) -> Iterator[str]:
    """Lines telling deal ``deal`` under ``rules``: a header, one line per round, the end."""
    game = Game(rules, deal)
    yield f"Deal {deal}: {describe_rules(rules)}."
    yield "Each player holds " + ", ".join(f"{n}" for n in game.counts) + " cards."
    words: list[str] = []
    forfeits: set[int] = set()  # seats out short this round: their pile goes to the prize
    shown: set[int] = set()  # cards turned face up this round
    while game.phase is not Phase.OVER:
        ending = ""
        events = game.step()
        for event in events:
            if isinstance(event, PlayerOut) and event.reason is OutReason.SHORT_WAR:
                forfeits.add(event.seat)
            if isinstance(event, GameOver):
                ending = _ending(event.outcome, event.summary)
            else:
                words.extend(_sentence(event, rules, forfeits, shown))
            if isinstance(event, CardsReturned) and game.phase is Phase.BATTLE:
                words.append("The round does not count; it is played again.")
        if game.phase is Phase.BATTLE or ending:
            if words:
                yield " ".join(words)
            words = []
            forfeits = set()
        if ending:
            yield ending


def _sentence(event: Event, rules: Rules, forfeits: set[int], shown: set[int]) -> list[str]:
    match event:
        case CardsTurned(round=r, depth=0):
            shown.clear()
            words = [f"Round {r}:", _turned(event, rules, shown)]
        case CardsTurned():
            words = [_turned(event, rules, shown)]
        case WarDeclared(depth=d, seats=seats):
            name = WAR_WORDS.get(d, f"War number {d}")
            words = [f"{name} between {_seats(seats)}!"]
        case CardsLaidDown():
            text = _laid(event, forfeits)
            words = [text] if text else []
        case CardsTaken(seat=seat, count=n, counts=counts):
            tally = " - ".join(map(str, counts))
            words = [f"Seat {seat} takes {_cards(n)}. Piles: {tally}."]
        case CardsReturned(counts=counts):
            tally = " - ".join(map(str, counts))
            words = [
                f"Nobody can go on: everyone still in takes their own cards back. Piles: {tally}."
            ]
        case PlayerOut(seat=seat, reason="short_war"):
            words = [f"Seat {seat} has too few cards for the war and is out."]
        case PlayerOut(seat=seat):
            words = [f"Seat {seat} has no cards left and is out."]
        case _:  # pragma: no cover
            raise AssertionError(f"unknown event {event!r}")
    return words
