"""Write the shared engine vectors: games step by step, the fair-deal derivation, the checker.

    .venv/bin/python -m tests.vectors.generate_engine   # rewrites tests/vectors/engine/*.json

The browser checks a revealed deal with its own engine (``client/web/js/engine/``), so
that engine must play every deal exactly as the Python one does. These files pin both to
the same answers, written here from the Python engine and `protocol.fairness`, never by
hand:

- ``engine/steps.json``: games (`GAMES`: every value of every rule setting, 2 to 4
  players, small decks for the rarer endings, round limits, time stops), each with the
  events of every step in the `compact` form below and the standings at the end.
- ``engine/fairness.json``: derivations (`protocol.fairness`): seeds, rules, the bytes of
  the message, the HMAC, the deal, the commitments and the fingerprint; and inputs that
  must be refused.
- ``engine/checks.json``: what the fair-deal check says of an honest game and of games a
  server tampered with (a card changed, a seat seed changed, the commitment changed, the
  revealed seed changed, a seat's seed swapped, a viewer who joined late).

tests/server/engine/test_engine_vectors.py checks that they are current and that Python
gives them; tests/client/web/engine.test.mjs checks the JavaScript against them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from protocol.fairness import (
    Claim,
    check_reveal,
    commitment,
    deal_message,
    derive_deal,
    fingerprint,
    fingerprint_message,
    fingerprint_symbols,
    rules_text,
)
from server.engine import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    Game,
    GameOver,
    Phase,
    PlayerOut,
    Rules,
    Termination,
    WarDeclared,
    card_label,
)
from server.engine.check import End, Flip, Laid, Out, Replay, Shown, Take, War, check_replay

__all__ = ["FOLDER", "GAMES", "compact", "files", "main", "play"]

FOLDER = Path(__file__).parent / "engine"
VERSION = 1

FULL = {"round_limit": 60}
"""Full-deck games stop after 60 rounds (a whole game is hundreds): the vectors stay small
and every setting still meets wars, takes and a limit."""
GAMES: list[tuple[dict[str, Any], int, int | None]] = [
    # (rules that differ from the defaults, deal, stop by time after this many steps)
    ({}, 0, None),  # one whole default game
    ({"players": 3}, 4, None),
    ({"players": 4, "face_down": 3}, 290, None),  # the loop of 0.2, gone
    ({"players": 4, "face_down": 3, "taken_back": "as_laid"}, 927, None),  # 0.2's loop
    # two aces tie for ever while shuffled take-backs keep the positions new: endless
    # after MOST_GIVEN_BACK rounds given back in a row
    ({"players": 4, "face_down": 3, "short_war": "last_card"}, 6227020799, None),
    ({**FULL, "face_down": 3}, 10, None),
    ({**FULL, "aces": "low"}, 5, None),
    ({**FULL, "short_war": "last_card", "players": 4}, 5, None),
    ({**FULL, "won_cards": "fixed"}, 2024, None),
    ({**FULL, "won_cards": "fixed", "fixed_order": "seat0", "players": 3}, 2024, None),
    ({"players": 4, "both_short": "end"}, 1684, None),
    ({"players": 3, "both_short": "end"}, 1996239, None),
    ({"round_limit": 26, "tie_break": "battle"}, 12, None),  # equal at 26: one more round
    ({"round_limit": 26, "tie_break": "draw", "players": 4}, 13, None),
    ({**FULL, "players": 3}, 2**64 - 1, None),
    ({"players": 2}, 12345678901234567890, 40),  # stopped by time after 40 steps
    ({"players": 2}, 1, 20),  # stopped during a war: the round is played to its end
    ({"players": 3, "tie_break": "battle"}, 13, 20),  # equal counts: play on to a leader
    # small decks: every deal ends soon, in every way
    ({"ranks": 3, "suits": 2}, 1, None),
    ({"ranks": 2, "suits": 4, "won_cards": "fixed"}, 3, None),  # endless
    ({"ranks": 3, "suits": 4, "players": 4}, 6, None),
    ({"ranks": 4, "suits": 4, "players": 4}, 1, None),  # cards taken back, shuffled
    ({"ranks": 4, "suits": 4, "players": 4}, 24, None),  # ... seat 0's among them
    ({"ranks": 5, "suits": 3, "players": 3, "short_war": "last_card"}, 74, None),
    ({**FULL, "players": 3, "face_down": 3}, 3, None),
    ({"ranks": 4, "suits": 4, "players": 4, "taken_back": "as_laid"}, 1, None),
    ({"ranks": 5, "suits": 3, "players": 3, "face_down": 3}, 17, None),
    ({"ranks": 5, "suits": 3, "players": 3, "short_war": "last_card"}, 18, None),
    ({"ranks": 4, "suits": 4, "players": 4, "won_cards": "fixed"}, 21, None),
    ({"ranks": 4, "suits": 4, "players": 4, "both_short": "end", "aces": "low"}, 22, None),
    ({"ranks": 6, "suits": 2, "players": 3, "round_limit": 5, "tie_break": "battle"}, 8, None),
    ({"ranks": 13, "suits": 1, "players": 4, "face_down": 3}, 30, None),
    ({"ranks": 4, "suits": 3, "players": 3, "won_cards": "fixed", "fixed_order": "seat0"}, 9, None),
]


def compact(event: Event, rules: Rules) -> str:
    """One event as one short, exact line (the JavaScript test writes the same)."""

    def cards(pairs: tuple[tuple[int, int], ...]) -> str:
        return " ".join(f"{seat}:{card_label(card, rules)}" for seat, card in pairs)

    def counts(values: tuple[int, ...]) -> str:
        return "/".join(map(str, values))

    match event:
        case CardsTurned(round=r, depth=d, cards=turned):
            return f"r{r} d{d} turn {cards(turned)}"
        case CardsLaidDown(round=r, depth=d, counts=laid):
            return f"r{r} d{d} down " + " ".join(f"{s}:{n}" for s, n in laid)
        case WarDeclared(round=r, depth=d, seats=seats):
            return f"r{r} war{d} " + ",".join(map(str, seats))
        case CardsTaken(round=r, seat=seat, count=n, counts=after):
            return f"r{r} take {seat} {n} -> {counts(after)}"
        case CardsReturned(round=r, counts=after):
            return f"r{r} returned -> {counts(after)}"
        case PlayerOut(round=r, seat=seat, reason=reason):
            return f"r{r} out {seat} {reason}"
        case GameOver(outcome=o, summary=s):
            winner = "none" if o.winner is None else o.winner
            return (
                f"over winner={winner} {o.termination.value} rounds={s.rounds} wars={s.wars}"
                f" longest={s.longest_war} haul={s.biggest_haul} deal={s.deal}"
            )
    raise AssertionError(f"unknown event {event!r}")


def play(rules: Rules, deal: int, stop_at: int | None) -> tuple[list[list[str]], Game]:
    """Every step's events of ``deal``; the clock stops the game once ``stop_at`` steps
    are played (its events, if any, go with that step)."""
    game = Game(rules, deal)
    steps: list[list[str]] = []
    while game.phase is not Phase.OVER:
        events = game.step()
        if game.steps == stop_at and game.outcome is None:
            events += game.stop_by_time()
        steps.append([compact(event, rules) for event in events])
    return steps, game


def _steps_file() -> dict[str, Any]:
    games = []
    for settings, deal, stop_at in GAMES:
        rules = Rules(**settings)
        steps, game = play(rules, deal, stop_at)
        games.append(
            {
                "rules": rules.to_dict(),
                "deal": str(deal),
                "stop_at": stop_at,
                "steps": steps,
                "counts": list(game.counts),
                "standings": list(game.standings or ()),
            }
        )
    return {"version": VERSION, "games": games}


def _seed(text: str) -> bytes:
    """A seed made from a word, so that the vectors read well: SHA-256 of the word."""
    return hashlib.sha256(text.encode()).digest()


DERIVATIONS: list[tuple[Any, ...]] = [
    ({}, "server", ["ann", "ben"]),
    ({}, "server", ["ann", None]),  # Ben is the computer
    ({}, "server", [None, "ann"]),  # the same seed in the other seat: another deal
    ({"players": 4, "face_down": 3, "round_limit": 100}, "host", ["a", "b", None, "d"]),
    ({"players": 3, "taken_back": "as_laid", "aces": "low"}, "x", [None, None, None]),
    ({}, "server", ["ann", "ben"], 2),  # the same seeds in the room's second game
]


def _derivation(
    settings: dict[str, Any], server: str, words: list[str | None], game: int = 1
) -> dict[str, Any]:
    rules = Rules(**settings).to_dict()
    key = _seed(server)
    seeds = [None if word is None else _seed(word) for word in words]
    message = deal_message(rules, seeds)
    mac = hmac.new(key, message, hashlib.sha256).hexdigest()
    deal_commitment = commitment(key)
    seats = [None if s is None else commitment(s) for s in seeds]
    return {
        "rules": rules,
        "server_seed": key.hex(),
        "seeds": [None if s is None else s.hex() for s in seeds],
        "rules_text": rules_text(rules).decode("ascii"),
        "message": message.hex(),
        "hmac": mac,
        "deal": str(derive_deal(key, rules, seeds)),
        "deal_commitment": deal_commitment,
        "seed_commitments": seats,
        "game": game,
        "fingerprint_message": fingerprint_message(game, deal_commitment, seats, rules).hex(),
        "fingerprint": fingerprint(game, deal_commitment, seats, rules),
    }


def _fairness_file() -> dict[str, Any]:
    zeros = "0" * 64
    return {
        "version": VERSION,
        "derivations": [_derivation(*case) for case in DERIVATIONS],
        # the symbols of a digest (the fingerprint is those of its message's SHA-256)
        "fingerprints": [
            {"digest": c, "fingerprint": fingerprint_symbols(bytes.fromhex(c))}
            for c in (zeros, "f" * 64, "0" * 63 + "1", "0" * 62 + "1d", "0" * 62 + "1e")
        ],
        # Inputs the derivation refuses: a seed list of the wrong length, a short seed,
        # rules with a setting missing or unknown, a value with a character outside a-z0-9_.
        "refused": [
            {"rules": Rules().to_dict(), "seeds": [zeros]},
            {"rules": Rules().to_dict(), "seeds": [zeros, "00"]},
            {
                "rules": {k: v for k, v in Rules().to_dict().items() if k != "taken_back"},
                "seeds": [zeros, zeros],
            },
            {"rules": {**Rules().to_dict(), "colour": "red"}, "seeds": [zeros, zeros]},
            {"rules": {**Rules().to_dict(), "aces": "High"}, "seeds": [zeros, zeros]},
        ],
    }


def _flips(game: Game) -> dict[str, list[Any]]:
    """Every flip, take, laid-down count, war and out of ``game`` played out step by step,
    as a viewer saw them."""
    seen: dict[str, list[Any]] = {"flips": [], "takes": [], "laid": [], "wars": [], "outs": []}
    rules = game.rules
    while game.phase is not Phase.OVER:
        for event in game.step():
            step = game.steps
            if isinstance(event, CardsTurned):
                cards = tuple((seat, card_label(card, rules)) for seat, card in event.cards)
                seen["flips"].append(Flip(step, event.depth, cards))
            elif isinstance(event, CardsTaken):
                seen["takes"].append(Take(step, event.seat, event.count, event.counts))
            elif isinstance(event, CardsLaidDown):
                seen["laid"].append(Laid(step, event.depth, event.counts))
            elif isinstance(event, WarDeclared):
                seen["wars"].append(War(step, event.depth, event.seats))
            elif isinstance(event, PlayerOut):
                seen["outs"].append(Out(step, event.seat, event.reason.value))
    return seen


def _shown(seen: dict[str, list[Any]], end: End, whole: list[list[int]]) -> dict[str, Any]:
    return {
        "flips": [[f.step, f.depth, [list(pair) for pair in f.cards]] for f in seen["flips"]],
        "takes": [[t.step, t.seat, t.count, list(t.counts)] for t in seen["takes"]],
        "laid": [[x.step, x.depth, [list(pair) for pair in x.counts]] for x in seen["laid"]],
        "wars": [[w.step, w.depth, list(w.seats)] for w in seen["wars"]],
        "outs": [[o.step, o.seat, o.reason] for o in seen["outs"]],
        "whole": whole,
        "end": {
            "step": end.step,
            "winner": end.winner,
            "termination": end.termination.value,
            "counts": list(end.counts),
            "rounds": end.rounds,
            "wars": end.wars,
            "longest_war": end.longest_war,
            "biggest_haul": end.biggest_haul,
            "standings": list(end.standings),
        },
    }


def _shown_of(shown: dict[str, Any]) -> Shown:
    """A ``shown`` record of checks.json in the engine check's terms."""
    e = shown["end"]
    end = End(
        **{
            **e,
            "counts": tuple(e["counts"]),
            "standings": tuple(e.get("standings", ())),
            "termination": Termination(e["termination"]),
        }
    )
    return Shown(
        tuple(Flip(s, d, tuple((seat, c) for seat, c in cards)) for s, d, cards in shown["flips"]),
        tuple(Take(s, seat, n, tuple(counts)) for s, seat, n, counts in shown["takes"]),
        end,
        tuple(Laid(s, d, tuple((seat, n) for seat, n in pairs)) for s, d, pairs in shown["laid"]),
        tuple(War(s, d, tuple(seats)) for s, d, seats in shown["wars"]),
        tuple(Out(s, seat, reason) for s, seat, reason in shown["outs"]),
        tuple((first, last) for first, last in shown["whole"]),
    )


def _replay_json(replay: Replay | None) -> dict[str, Any] | None:
    if replay is None:
        return None
    m = replay.mismatch
    return {
        "steps": replay.steps,
        "flips": replay.flips,
        "cards": replay.cards,
        "takes": replay.takes,
        "others": replay.others,
        "end": replay.end,
        "mismatch": None
        if m is None
        else {
            "step": m.step,
            "what": m.what,
            "seat": m.seat,
            "expected": m.expected,
            "shown": m.shown,
            "facts": dict(m.facts),
        },
    }


def _check(
    name: str, about: str, claim: Claim, seen: tuple[str, dict[str, Any]], **mine: Any
) -> dict[str, Any]:
    """One case: the inputs (``seen``: which of the file's ``shown`` records, and it), and
    what the reveal and the replay say of them."""
    label, shown = seen
    reveal = check_reveal(claim, **mine)
    replay = None
    if reveal.ok and reveal.deal is not None:
        record = _shown_of(shown)
        replay = check_replay(Rules.from_dict(dict(claim.rules)), reveal.deal, record)
    my_seed = mine.get("my_seed")
    return {
        "name": name,
        "about": about,
        "rules": dict(claim.rules),
        "deal_commitment": claim.deal_commitment,
        "server_seed": claim.server_seed,
        "seeds": list(claim.seeds),
        "deal": None if claim.deal is None else str(claim.deal),
        "seed_commitments": None
        if claim.seed_commitments is None
        else list(claim.seed_commitments),
        "my_seat": mine.get("my_seat"),
        "my_seed": None if my_seed is None else my_seed.hex(),
        "shown": label,
        "reveal": {
            "deal": None if reveal.deal is None else str(reveal.deal),
            "problem": None if reveal.problem is None else reveal.problem.to_json(),
            "proved": [found.to_json() for found in reveal.proved],
        },
        "replay": _replay_json(replay),
    }


def _checks_file() -> dict[str, Any]:
    rules = Rules(players=3, round_limit=40).to_dict()
    ann, ben = _seed("ann"), _seed("ben")
    key, seeds = _seed("server"), [ann, ben, None]
    deal = derive_deal(key, rules, seeds)
    game = Game(Rules.from_dict(rules), deal)
    seen = _flips(game)
    honest = ("honest", _shown(seen, End.of(game), [[1, game.steps]]))
    hexes = [None if s is None else s.hex() for s in seeds]
    claim = Claim(
        rules,
        commitment(key),
        key.hex(),
        hexes,
        deal,
        [None if s is None else commitment(s) for s in seeds],
    )
    other = _seed("other").hex()
    # One card changed: the 10th flip's second card becomes another card of the deck.
    changed = ("one card changed", json.loads(json.dumps(honest[1])))
    _, _, cards = changed[1]["flips"][9]
    cards[1][1] = "2C" if cards[1][1] != "2C" else "3C"
    late = ("from step 31", json.loads(json.dumps(honest[1])))
    for kind in ("flips", "takes", "laid", "wars", "outs"):
        late[1][kind] = [item for item in late[1][kind] if item[0] > 30]
    late[1]["whole"] = [[31, game.steps]]
    lied_end = ("another winner", json.loads(json.dumps(honest[1])))
    lied_end[1]["end"]["winner"] = ((lied_end[1]["end"]["winner"] or 0) + 1) % 3
    lied_places = ("other places", json.loads(json.dumps(honest[1])))
    lied_places[1]["end"]["standings"] = [1, 1, 1]  # everyone first: not the deal's
    # issue 31, "check what is shown": the face-down counts, a war's seats, an out
    lied_laid = ("other face-down counts", json.loads(json.dumps(honest[1])))
    _, _, pairs = lied_laid[1]["laid"][0]
    pairs[0][1] += 1
    lied_war = ("other war seats", json.loads(json.dumps(honest[1])))
    lied_war[1]["wars"][0][2] = lied_war[1]["wars"][0][2][1:]  # one seat left out of it
    lied_out = ("an out the deal does not give", json.loads(json.dumps(honest[1])))
    lied_out[1]["outs"].append([5, 2, "no_cards"])
    # a step left out while the viewer was connected, against steps it missed itself
    skipped = ("step 12 left out", json.loads(json.dumps(honest[1])))
    for kind in ("flips", "takes", "laid", "wars", "outs"):
        skipped[1][kind] = [item for item in skipped[1][kind] if item[0] != 12]
    away = ("away from step 21 to 30", json.loads(json.dumps(skipped[1])))
    for kind in ("flips", "takes", "laid", "wars", "outs"):
        away[1][kind] = [item for item in away[1][kind] if not 11 <= item[0] <= 30]
    away[1]["whole"] = [[1, 10], [31, game.steps]]
    cases = [
        _check(
            "honest", "every card as the deal gives", claim, honest, my_seat=0, my_seed=seeds[0]
        ),
        _check("one card changed", "the tenth flip shows another card", claim, changed),
        _check(
            "one seat seed changed",
            "the server reveals another seed for seat 1 (its commitment no longer matches)",
            replace(claim, seeds=[hexes[0], other, None]),
            honest,
        ),
        _check(
            "a seat seed changed, commitments never shown",
            "the same, to a viewer never shown the seats' commitments: that alone fails",
            replace(claim, seeds=[hexes[0], other, None], seed_commitments=None),
            honest,
        ),
        _check(
            "a seat seed and the deal changed",
            "the server also claims the deal the changed seed gives, and showed its "
            "commitment: the cards differ",
            replace(
                claim,
                seeds=[hexes[0], other, None],
                seed_commitments=[commitment(ann), commitment(bytes.fromhex(other)), None],
                deal=derive_deal(key, rules, [seeds[0], bytes.fromhex(other), None]),
            ),
            honest,
        ),
        _check(
            "the commitment changed",
            "the commitment shown at the start is not the server seed's",
            replace(claim, deal_commitment=commitment(_seed("another server"))),
            honest,
        ),
        _check(
            "the revealed seed changed",
            "the server reveals a seed other than the one it committed to",
            replace(claim, server_seed=_seed("another server").hex()),
            honest,
        ),
        _check(
            "my seed left out",
            "the server used another seed than the one this client sent (and showed its "
            "commitment in this client's seat)",
            replace(
                claim,
                seeds=[other, hexes[1], None],
                seed_commitments=[commitment(bytes.fromhex(other)), commitment(ben), None],
                deal=None,
            ),
            honest,
            my_seat=0,
            my_seed=seeds[0],
        ),
        _check(
            "a seat seed hidden",
            "the server reveals no seed for seat 1, which committed to one",
            replace(claim, seeds=[hexes[0], None, None]),
            honest,
        ),
        _check("joined late", "a viewer who saw the game from step 31 on", claim, late),
        _check("the end changed", "the game over names another winner", claim, lied_end),
        _check(
            "the standings changed",
            "the game over gives other places than the deal's (issue 31: what is shown)",
            claim,
            lied_places,
        ),
        _check(
            "the face-down counts changed",
            "a war's face-down cards shown for seat 0 are one more than the deal lays",
            claim,
            lied_laid,
        ),
        _check(
            "the war seats changed",
            "the first war is shown between other seats than the deal's",
            claim,
            lied_war,
        ),
        _check("an out invented", "seat 2 is shown out at step 5: not the deal's", claim, lied_out),
        _check(
            "a step left out while connected",
            "the viewer saw steps 1 to the end whole, but step 12 was never shown",
            claim,
            skipped,
        ),
        _check(
            "steps missed while away",
            "the viewer was away from step 11 to 30 (the seq numbers showed it): nothing asked",
            claim,
            away,
        ),
        _check(
            "malformed seed",
            "a revealed seed that is not 64 hex digits",
            replace(claim, server_seed="not hex"),
            honest,
        ),
    ]
    records = dict(
        (honest, changed, late, lied_end, lied_places, lied_laid, lied_war, lied_out, skipped, away)
    )
    return {"version": VERSION, "shown": records, "cases": cases}


def files() -> dict[str, str]:
    """Every vector file's name and text, as written."""
    made = {
        "steps.json": _steps_file(),
        "fairness.json": _fairness_file(),
        "checks.json": _checks_file(),
    }
    return {name: json.dumps(value, indent=1) + "\n" for name, value in made.items()}


def main() -> int:
    FOLDER.mkdir(exist_ok=True)
    for name, text in files().items():
        (FOLDER / name).write_text(text, encoding="utf-8")
        print(f"wrote {FOLDER / name} ({len(text):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
