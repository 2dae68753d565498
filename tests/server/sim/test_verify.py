"""``war-sim verify FILE``: a game record checked offline, honest or tampered with.

The records are made from the engine the way a server offering fair deals shows a game to
one viewer (`tests._kit.records`); the tampered ones change one line, as a server that
cheats would: a card, a seat's seed, the commitment, the revealed seed, the deal, the end.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.fairness import Finding
from server import engine
from server.sim.cli import main as war_sim
from server.sim.verify import ENGLISH, english
from tests._kit.records import Table, edit, game_record
from tests.vectors.generate_engine import FOLDER as ENGINE_VECTORS

REPO = Path(__file__).resolve().parents[3]


def seed(word: str) -> bytes:
    return hashlib.sha256(word.encode()).digest()


TWO = Table(engine.Rules(round_limit=80), seed("server"), (seed("ann"), seed("ben")))
FOUR = Table(
    engine.Rules(players=4, face_down=3, round_limit=60),
    seed("host"),
    (seed("ann"), None, seed("cat"), None),  # seats 1 and 3: the computer
)


def run(
    tmp_path: Path, lines: Sequence[str], capsys: pytest.CaptureFixture[str], *flags: str
) -> tuple[int, str, str]:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status = war_sim(["verify", *flags, str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def first(lines: Sequence[str], kind: str, skip: int = 0) -> int:
    """The index of the ``skip``-th line (from 0) of message type ``kind``."""
    found = [i for i, line in enumerate(lines) if json.loads(line)["type"] == kind]
    return found[skip]


def test_an_honest_game_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(tmp_path, game_record(TWO), capsys, "--my-seed", seed("ann").hex())
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("game 1: fingerprint ")
    assert "  the server seed matches the commitment shown at the start" in lines
    assert "  this client's seed (seat 0) is in the deal" in lines
    assert f"  the deal played is the deal the seeds give ({TWO.deal})" in lines
    assert lines[-2:] == [
        "  every card shown is the deal's: 83 flips, 166 cards, 80 takes, 6 face-down counts,"
        " wars and outs and the end (replayed 83 steps)",
        "  fair deal: checked",
    ]


@pytest.mark.parametrize(
    ("ways", "expect"),
    [
        ({"seat": None}, "fair deal: checked"),  # a spectator
        ({"join_at": 30}, "fair deal: checked"),  # joined late
        ({"finish_at": 12}, "fair deal: checked"),  # a finish vote played the rest out
        ({"stop_at": 25}, "fair deal: checked"),  # the time limit
        ({"seat": 2, "stop_at": 9}, "fair deal: checked"),
    ],
)
def test_every_way_to_see_a_game_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ways: dict[str, Any], expect: str
) -> None:
    status, out, _ = run(tmp_path, game_record(FOUR, **ways), capsys)
    assert status == 0, out
    assert out.splitlines()[-1] == f"  {expect}"


def test_a_rematch_is_a_second_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    again = Table(TWO.rules, seed("server 2"), (seed("ann 2"), seed("ben 2")))
    lines = game_record(TWO) + game_record(again, number=2, seq=500)
    status, out, _ = run(tmp_path, lines, capsys)
    assert status == 0
    assert out.count("fair deal: checked") == 2
    assert "game 2: fingerprint" in out


def _card(step_body: dict[str, Any]) -> None:
    seat, card = step_body["cards"][1]
    step_body["cards"][1] = [seat, "2C" if card != "2C" else "3C"]


def _fairness(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def apply(body: dict[str, Any]) -> None:
        change(body["fairness"])

    return apply


def _seat_seed(fairness: dict[str, Any]) -> None:
    fairness["seeds"][1] = seed("someone else").hex()


def _server_seed(fairness: dict[str, Any]) -> None:
    fairness["server_seed"] = seed("another server").hex()


def _deal(body: dict[str, Any]) -> None:
    body["summary"]["deal"] += 1


def _winner(body: dict[str, Any]) -> None:
    body["winner"] = 1 - body["winner"]


def _commitment(body: dict[str, Any]) -> None:
    body["deal_commitment"] = hashlib.sha256(b"another").hexdigest()


@pytest.mark.parametrize(
    ("kind", "skip", "change", "failure"),
    [
        ("cards_turned", 9, _card, "FAILED: step 10: seat 1 was shown "),
        # each seat's commitment is shown: a seed changed at the end no longer matches it
        ("game_over", 0, _fairness(_seat_seed), "FAILED: the seed of seat 1 does not match"),
        ("game_over", 0, _fairness(_server_seed), "FAILED: the server seed does not match"),
        ("game_started", 0, _commitment, "FAILED: the server seed does not match"),
        ("game_over", 0, _deal, "FAILED: the deal played ("),
        ("game_over", 0, _winner, "FAILED: step 83: the end shown ("),
    ],
)
def test_a_server_that_cheats_is_caught(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    skip: int,
    change: Callable[[dict[str, Any]], None],
    failure: str,
) -> None:
    lines = game_record(TWO)
    index = first(lines, kind, skip)
    if kind == "game_started":  # the welcome showed the same commitment: change both
        lines = edit(lines, 0, lambda body: _commitment(body["state"]))
    status, out, err = run(tmp_path, edit(lines, index, change), capsys)
    assert (status, err) == (1, "")
    assert any(line.strip().startswith(failure) for line in out.splitlines()), out
    assert "fair deal: checked" not in out


def test_a_seed_other_than_mine_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(tmp_path, game_record(TWO), capsys, "--my-seed", seed("eve").hex())
    assert status == 1
    assert "  FAILED: the seed of seat 0 is not the seed this client sent" in out.splitlines()


def test_a_chosen_deal_is_only_replayed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = edit(game_record(TWO), 1, lambda body: body.update(deal=TWO.deal))
    status, out, _ = run(tmp_path, lines, capsys)
    assert status == 0
    assert out.splitlines()[0] == f"game 1: deal {TWO.deal} was chosen, shown from the start"


def test_what_cannot_be_checked_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unfinished = game_record(TWO)[:-1]
    status, out, _ = run(tmp_path, unfinished, capsys)
    assert status == 1
    assert "  not checked: the record ends before game over reveals the seeds" in out
    without = [line.replace(',"deal_commitment"', ',"no_commitment"') for line in game_record(TWO)]
    status, out, _ = run(tmp_path, without, capsys)
    assert (status, out) == (1, "game 1: not checked: no deal commitment was shown\n")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json\n", "line 1: not one JSON object"),
        ('{"type": "welcome", "v": 1, "seq": NaN}\n', "line 1: not one JSON object"),
        ('{"type": "time_up", "seq": 1, "seq": 2}\n', "the key 'seq' appears twice"),
        ("[1, 2]\n", "line 1: a message must be a JSON object, not list"),
        ('{"type": "flip"}\n', "line 1: not a server message type: 'flip'"),
        ('{"type": "time_up", "seq": "1"}\n', "line 1: time_up.seq must be an int"),
        ('{"type": "time_up", "seq": 1}\n', "line 1: a game event before any game"),
        ("\n\n", "no game in the record (2 lines)"),
        ("[" * 100_000 + "\n", "line 1: not one JSON object"),
        ("x" * 2_000_000 + "\n", "line 1: a line of 2,000,000 characters"),
    ],
)
def test_a_hostile_record_gets_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    assert war_sim(["verify", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"war-sim verify: {path}: ")
    assert problem in err
    assert "Traceback" not in err


def test_bad_fairness_fields_get_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = edit(game_record(TWO), -1, _fairness(lambda f: f.update(seeds=["zz", None])))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert war_sim(["verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert "game_over.fairness.seeds[0] must be a string of 64..64 characters, not 'zz'" in err


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=60) | st.sampled_from(game_record(TWO)[:6]), max_size=8))
def test_any_text_is_a_result_never_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str]
) -> None:
    path = tmp_path / "any.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    assert war_sim(["verify", str(path)]) in (0, 1)
    capsys.readouterr()


def test_a_missing_file_and_bad_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert war_sim(["verify", str(tmp_path / "none.jsonl")]) == 1
    assert "No such file" in capsys.readouterr().err
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"type": "\xff"}\n')
    assert war_sim(["verify", str(path)]) == 1
    assert "war-sim verify: " in capsys.readouterr().err


def test_help_says_what_it_proves_and_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        war_sim(["verify", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: war-sim verify [-h] [--my-seed [GAME:]HEX] FILE")
    assert "war-client --json" in out
    assert "exit status:" in out
    with pytest.raises(SystemExit):
        war_sim(["--help"])
    assert "war-sim verify FILE" in capsys.readouterr().out


def test_a_bad_seed_flag_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        war_sim(["verify", "--my-seed", "ABC", "x"])
    assert info.value.code == 2
    assert "--my-seed must be 64 lowercase hex digits" in capsys.readouterr().err


# What war-sim verify printed of each shared check case before the check said its findings
# as codes (tests/vectors/engine/checks.json): the English must not lose a word.
OLD_ENGLISH: dict[str, tuple[str | None, list[str]]] = {
    "one seat seed changed": ("the seed of seat 1 does not match its commitment", []),
    # issue 31: seat commitments never shown fail the check
    "a seat seed changed, commitments never shown": ("0 seat commitments for 3 seats", []),
    "the commitment changed": ("the server seed does not match the deal commitment", []),
    "the revealed seed changed": ("the server seed does not match the deal commitment", []),
    "my seed left out": ("the seed of seat 0 is not the seed this client sent", []),
    "a seat seed hidden": ("seat 1 committed to a seed but none was used", []),
    "malformed seed": ("the server seed must be 64 lowercase hex digits, not 'not hex'", []),
    "honest": (
        None,
        [
            "the server seed matches the commitment shown at the start",
            "every seat's seed matches the commitment it made",
            "this client's seed (seat 0) is in the deal",
            "the deal played is the deal the seeds give (10232474513215630408)",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(OLD_ENGLISH))
def test_war_sim_says_each_finding_in_the_english_it_always_printed(name: str) -> None:
    vectors = json.loads((ENGINE_VECTORS / "checks.json").read_text(encoding="utf-8"))
    case = next(c for c in vectors["cases"] if c["name"] == name)
    problem, proved = OLD_ENGLISH[name]

    def finding(data: dict[str, Any]) -> Finding:
        values = {k: v for k, v in data.items() if k != "code"}
        return Finding(data["code"], values)

    found = case["reveal"]["problem"]
    assert (None if found is None else english(finding(found))) == problem
    said = [english(finding(item)) for item in case["reveal"]["proved"]]
    assert said[: len(proved)] == proved or not proved


def test_war_sim_has_english_for_every_finding_code() -> None:
    sources = [REPO / "protocol" / "fairness.py", REPO / "protocol" / "record.py"]
    codes = [
        code
        for source in sources
        for code in re.findall(r'Finding\(\s*"([a-z_]+)"', source.read_text())
    ]
    codes += ["rules_unplayable"]  # client.fair.check: rules the engine cannot play
    assert set(codes) == set(ENGLISH), set(codes) ^ set(ENGLISH)
    assert english(Finding("malformed", {"what": "seed", "seat": 2, "value": "'x'"})) == (
        "the seed of seat 2 must be 64 lowercase hex digits, not 'x'"
    )


# --- issue 31: what was pinned at the start holds to the end


def _swap_seat(lines: list[str], seat: int, new_seed: bytes) -> list[str]:
    """A server changed by its host: after the reveals it tries another seed for ``seat``,
    shows its commitment in an ordinary snapshot, and reveals that seed at game over."""
    welcome = json.loads(lines[0])
    snapshot = {**welcome, "type": "snapshot", "seq": welcome["seq"] + 2}
    snapshot.pop("seat"), snapshot.pop("token"), snapshot.pop("player_code", None)
    snapshot.pop("watch_code", None), snapshot.pop("addresses", None)
    state = json.loads(json.dumps(welcome["state"]))
    state["phase"] = "playing"
    state["seats"][seat]["seed_commitment"] = hashlib.sha256(new_seed).hexdigest()
    snapshot["state"] = state
    at = first(lines, "cards_turned")
    out = [*lines[:at], json.dumps(snapshot), *lines[at:]]
    return edit(out, -1, lambda body: body["fairness"]["seeds"].__setitem__(seat, new_seed.hex()))


def test_a_seat_commitment_changed_by_snapshot_after_the_reveals_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The host's attack: his seat's commitment replaced after everyone revealed; the new
    seed matches the new commitment, and the deal it gives is played."""
    other = seed("ben, tried again")
    table = Table(TWO.rules, TWO.server_seed, (seed("ann"), other))
    honest = game_record(table)  # the deal the swapped seed gives, played card by card
    shown = edit(honest, 1, lambda b: b["seed_commitments"].__setitem__(1, TWO_BEN))
    status, out, _ = run(tmp_path, _swap_seat(shown, 1, other), capsys)
    assert status == 1, out
    assert "FAILED: the commitment shown for seat 1 changed after the game started" in out
    assert "fair deal: checked" not in out


TWO_BEN = hashlib.sha256(seed("ben")).hexdigest()


def test_a_fair_game_whose_seat_commitments_were_never_shown_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = edit(game_record(TWO), 1, lambda b: b.update(seed_commitments=[]))
    status, out, _ = run(tmp_path, lines, capsys)
    assert status == 1, out
    assert "FAILED: 0 seat commitments for 2 seats" in out


def test_a_computer_seat_that_gains_a_commitment_later_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No commitment for the computer at the start, and then one (the deal depended on it)."""
    extra = seed("the computer's, chosen")
    table = Table(FOUR.rules, FOUR.server_seed, (seed("ann"), extra, seed("cat"), None))
    honest = game_record(table)
    shown = edit(honest, 1, lambda b: b["seed_commitments"].__setitem__(1, None))
    status, out, _ = run(tmp_path, _swap_seat(shown, 1, extra), capsys)
    assert status == 1, out
    assert "FAILED: the commitment shown for seat 1 changed after the game started" in out


def test_the_deal_commitment_changed_by_snapshot_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = game_record(TWO)
    welcome = json.loads(lines[0])
    welcome["state"].update(phase="playing", step=3, deal_commitment="0" * 64)
    at = first(lines, "cards_turned", 3)
    status, out, _ = run(tmp_path, [*lines[:at], json.dumps(welcome), *lines[at:]], capsys)
    assert status == 1, out
    assert "FAILED: the deal commitment shown changed after the game started" in out


def test_several_games_each_with_its_own_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = Table(TWO.rules, seed("server 2"), (seed("ann 2"), seed("ben 2")))
    lines = game_record(TWO) + game_record(again, number=2, seq=500)
    mine = ["--my-seed", f"1:{seed('ann').hex()}", "--my-seed", f"2:{seed('ann 2').hex()}"]
    status, out, _ = run(tmp_path, lines, capsys, *mine)
    assert status == 0, out
    assert out.count("this client's seed (seat 0) is in the deal") == 2
    wrong = ["--my-seed", f"1:{seed('ann').hex()}", "--my-seed", f"2:{seed('ann').hex()}"]
    status, out, _ = run(tmp_path, lines, capsys, *wrong)
    assert status == 1
    assert "FAILED: the seed of seat 0 is not the seed this client sent" in out


def test_the_fingerprint_covers_the_seat_commitments_and_the_game_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def printed(lines: list[str]) -> str:
        _, out, _ = run(tmp_path, lines, capsys)
        return out.splitlines()[0].rsplit(" ", 1)[1]

    base = printed(game_record(TWO))
    other_seat = Table(TWO.rules, TWO.server_seed, (seed("ann"), seed("bob")))
    assert printed(game_record(other_seat)) != base
    assert printed(game_record(TWO, number=2)) != base
    assert re.fullmatch(r"[2-9A-HJKMNP-TV-Z]{4}(-[2-9A-HJKMNP-TV-Z]{4}){2}", base)
