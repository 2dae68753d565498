"""``war-client`` processes against a real ``war-server`` process over 127.0.0.1.

Two ``--plain`` players on quick auto-play a 26-round game to the end and agree on the
result; a ``--watch`` client (plain) and a second one (``--json``) see the same events;
a killed client run again with the same ``--join`` resumes its seat; a server restart
(SIGTERM: close 1012) is followed by a reconnect and resume; a wrong code is refused with
one line on stderr and status 1.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from client.net.local import free_port
from client.net.statefile import StateFile
from client.words.talk import deal_text
from server import engine
from tests.e2e._client_process import client_process
from tests.e2e._process import server_process

pytestmark = pytest.mark.slow

HAUL = re.compile(r"(\w+) (?:wins the [a-z ]*war and )?takes (\d+) cards?\.$")
DEAL = 2037  # 26 rounds with two wars, one of them double (checked below)


def neutral(line: str, me: str) -> str:
    """A player's sentence as a spectator would read it (``me`` is the player's name)."""
    line = re.sub(r"\b[Yy]ou win the (.*) and take\b", rf"{me} wins the \1 and takes", line)
    line = re.sub(r"\bYou win!", f"{me} wins.", line)
    line = re.sub(r"\bYou win\b", f"{me} wins", line)
    line = re.sub(r"\b[Yy]ou take\b", f"{me} takes", line)
    line = re.sub(r"\b[Yy]ou have\b", f"{me} has", line)
    line = re.sub(r"\b[Yy]our\b", f"{me}'s", line)
    return line


def hauls(lines: list[str], me: str | None = None) -> list[tuple[str, int]]:
    found = []
    for line in lines:
        text = neutral(line, me) if me else line
        if match := HAUL.search(text):
            found.append((match.group(1), int(match.group(2))))
    return found


async def test_two_plain_players_and_two_watchers_play_26_rounds(tmp_path: Path) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = server.url
        ann_args = [url, "--name", "Ann", "--create", "--rounds", "26", "--deal", str(DEAL)]
        ann_args += ["--auto", "quick"]
        async with client_process([*ann_args, "--plain"], tmp_path / "ann.json") as ann:
            player_code = (await ann.expect(r"^Player code: (\S+)\.$")).group(1)
            watch_code = (await ann.expect(r"^Watch code: (\S+)\.$")).group(1)
            watch = [url, "--watch", watch_code]
            async with (
                client_process([*watch, "--plain"], tmp_path / "w1.json") as watcher,
                client_process([*watch, "--json"], tmp_path / "w2.json") as json_watcher,
            ):
                await watcher.expect(r"^You are watching Ann\.$")
                await json_watcher.expect(r'"type":"welcome"')
                ben_args = [url, "--name", "Ben", "--join", player_code, "--auto", "quick"]
                async with client_process([*ben_args, "--plain"], tmp_path / "ben.json") as ben:
                    statuses = [
                        await ann.wait(),
                        await ben.wait(),
                        await watcher.wait(),
                        await json_watcher.wait(),
                    ]
    assert statuses == [0, 0, 0, 0], (ann.err, ben.err, watcher.err, json_watcher.err)
    assert ann.err == ben.err == watcher.err == json_watcher.err == []

    evenings = {ann.out[-1], ben.out[-1], watcher.out[-1]}  # the evening's score, last
    assert len(evenings) == 1, evenings
    assert evenings.pop().startswith("The evening so far — ")
    summaries = {ann.out[-2], ben.out[-2], watcher.out[-2]}
    assert len(summaries) == 1, summaries
    summary = summaries.pop()
    assert summary.startswith("26 rounds, ")
    result = neutral(ann.out[-3], "Ann")
    assert result == neutral(ben.out[-3], "Ben") == watcher.out[-3]
    assert result.startswith("Game over: the limit of 26 rounds is reached.")
    game = engine.Game(engine.Rules(round_limit=26), DEAL)
    outcome = game.finish()
    ann_cards, ben_cards = game.counts
    if outcome.winner == 0:
        assert result.endswith(f"Ann wins with {ann_cards} cards to Ben's {ben_cards}.")
    elif outcome.winner == 1:
        assert result.endswith(f"Ben wins with {ben_cards} cards to Ann's {ann_cards}.")
    else:
        assert result.endswith(f"It's a draw: {ann_cards} cards each.")
    assert summary.endswith(f"deal {DEAL}.")
    assert (game.summary.wars, game.summary.longest_war) == (2, 2)
    assert any(line.startswith("Double war! ") for line in watcher.out)

    seen = hauls(watcher.out)
    assert len(seen) == 26, "one haul per round"
    assert hauls(ann.out, "Ann") == hauls(ben.out, "Ben") == seen

    messages = [json.loads(line) for line in json_watcher.out]
    names = {0: "Ann", 1: "Ben"}
    taken = [(names[m["seat"]], m["count"]) for m in messages if m["type"] == "cards_taken"]
    assert taken == seen
    over = next(m for m in messages if m["type"] == "game_over")
    assert over["summary"]["rounds"] == 26
    assert summary.endswith(f"deal {deal_text(over['summary']['deal'])}.")
    seqs = [m["seq"] for m in messages if m["type"] not in ("welcome", "snapshot", "error")]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "no message missed"


async def test_a_killed_client_run_again_resumes_its_seat(tmp_path: Path) -> None:
    state = tmp_path / "ben-state.json"
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = server.url
        async with client_process(
            [url, "--name", "Ann", "--create", "--plain"], tmp_path / "ann.json"
        ) as ann:
            code = (await ann.expect(r"^Player code: (\S+)\.$")).group(1)
            ben_args = [url, "--name", "Ben", "--join", code, "--plain"]
            async with client_process(ben_args, state) as ben:
                await ben.expect(r"^You are Ben, at seat 2 of 2\.$")
                first = StateFile(state).get(url, code, "Ben")
                assert first is not None and first.seat == 1
                mark = len(ann.out)
                await ben.kill()
            await ann.expect(r"^Ben is away\.$", start=mark)
            mark = len(ann.out)
            async with client_process(ben_args, state) as ben_again:
                await ben_again.expect(r"^You are Ben, at seat 2 of 2\.$")
                await ben_again.expect(r"^The game is on: round 1\.$")
                await ann.expect(r"^Ben is back\.$", start=mark)
                again = StateFile(state).get(url, code, "Ben")
                assert again is not None and again.seat == 1 and again.room == first.room
                assert again.token != first.token, "a resume hands out a new token"
                assert not any("takes seat" in line for line in ann.out[mark:])
    assert ben_again.err == []


async def test_a_server_restart_reconnects_and_resumes(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    port = free_port()
    args = ["--name", "Ann", "--create", "--vs-computer", "--auto", "quick", "--plain"]
    async with (
        server_process(db, "--port", str(port)) as first,
        client_process([first.url, *args], tmp_path / "ann.json") as ann,
    ):
        await ann.expect(r"^The computer's \w+ beats|^Your \w+ beats")
        assert await first.stop() == 0
        await ann.expect(r"^Reconnecting… \(the server is restarting; attempt 1 in")
        mark = len(ann.out)
        async with server_process(db, "--port", str(port)) as second:
            assert second.port == port
            await ann.expect(r"^You are Ann, at seat 1 of 2\.$", start=mark)
            back = await ann.expect(r"^The game is on: round (\d+)\.$", start=mark)
            assert int(back.group(1)) >= 2
            await ann.expect(r"beats", start=len(ann.out))
    assert ann.err == []


async def test_a_wrong_code_is_refused_with_one_line(tmp_path: Path) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        async with client_process(
            [server.url, "--name", "Cy", "--join", "NOPE-NOPE", "--plain"], tmp_path / "cy.json"
        ) as cy:
            status = await cy.wait()
        async with client_process(
            [server.url, "--watch", "NOPE-NOPE", "--json"], tmp_path / "w.json"
        ) as watcher:
            watch_status = await watcher.wait()
    assert (status, cy.out) == (1, [])
    assert len(cy.err) == 1 and cy.err[0].startswith("war-client: ")
    assert "(unknown_code)" not in cy.err[0], "people read the sentence, not the code"
    assert watch_status == 1 and len(watcher.err) == 1 and "(unknown_code)" in watcher.err[0]
    assert [json.loads(line)["type"] for line in watcher.out] == ["error"]


async def test_local_plays_the_computer_and_stops_its_server(tmp_path: Path) -> None:
    async with client_process(
        ["--local", "--name", "Ann", "--rounds", "5", "--auto", "quick", "--plain"],
        tmp_path / "state.json",
    ) as local:
        status = await local.wait()
    assert status == 0, local.err
    assert local.out[0] == "You are Ann, at seat 1 of 2."
    assert local.out[-2].startswith("5 rounds, ")
    assert local.out[-1].startswith("The evening so far — ")
    assert not (tmp_path / "state.json").exists(), "--local keeps no seat tokens"
