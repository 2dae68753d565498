"""A whole evening in ``--plain`` alone, typed on stdin, as a screen-reader user plays it.

Ann and Ben, two ``war-client --plain`` processes against a real ``war-server`` over
127.0.0.1, type every command: auto-play, the score, the rules, a rematch whose votes
are split (a new deal wins), a replay of that deal (the same game again, card for card),
and leaving. Nothing but stdin and stdout.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.e2e._client_process import ClientProcess, client_process
from tests.e2e._process import server_process

pytestmark = pytest.mark.slow

HAUL = re.compile(r"takes? \d+ cards?\.$")


async def type_line(client: ClientProcess, line: str) -> None:
    stdin = client.process.stdin
    assert stdin is not None
    stdin.write(line.encode() + b"\n")
    await stdin.drain()


def game_lines(lines: list[str], start: int) -> list[str]:
    """The hauls told from ``start`` up to the game's end."""
    told = []
    for line in lines[start:]:
        if line.startswith("Game over:"):
            break
        if HAUL.search(line):
            told.append(line)
    return told


async def test_a_whole_evening_typed_in_plain(tmp_path: Path) -> None:
    pipe = asyncio.subprocess.PIPE
    async with server_process(tmp_path / "war.sqlite3") as server:
        create = [server.url, "--name", "Ann", "--create", "--rounds", "4", "--plain"]
        async with client_process(create, tmp_path / "ann.json", stdin=pipe) as ann:
            code = (await ann.expect(r"^Player code: (\S+)\.$")).group(1)
            await ann.expect(r"^Rules: Aces are high\. .* The game ends after 4 rounds: ")
            join = [server.url, "--name", "Ben", "--join", code, "--plain"]
            async with client_process(join, tmp_path / "ben.json", stdin=pipe) as ben:
                await ben.expect(r"^Rules: Aces are high\. ")
                for player in (ann, ben):
                    await player.expect(r"^The game begins: 26 cards each\.$")
                await type_line(ann, "")  # enter: turn over
                await type_line(ben, "")
                await ben.expect(r"takes? 2 cards\.$|^War!")
                for player in (ann, ben):
                    await type_line(player, "a quick")
                    await player.expect(r"^Your auto-play is quick\.$")
                await ann.expect(r"^Game over: the limit of 4 rounds is reached\.")
                await ann.expect(r"^Game over\. Type r for a rematch with a new deal, d to ")
                mark = len(ann.out)
                await type_line(ann, "s")
                await ann.expect(
                    r"^After 4 rounds: you have \d+ cards and Ben has \d+ cards\.", start=mark
                )
                await type_line(ann, "rules")
                await ann.expect(r"^Rules: Aces are high\.", start=mark)

                await type_line(ann, "r")
                await ben.expect(r"^Ann asks for a rematch with a new deal\.$")
                await ben.expect(r"^Still to vote: you\.$")
                ben_mark = len(ben.out)
                await type_line(ben, "d")
                await ann.expect(r": a new deal won\.$", start=mark)
                await ann.expect(r"^Rematch: game 2 begins: 26 cards each\.$", start=mark)
                second = len(ann.out)
                deal = re.escape((await ann.expect(r", deal ([\d ]+)\.$", start=second)).group(1))
                await ben.expect(rf", deal {deal}\.$", start=ben_mark)  # Ben's game is over too

                for player in (ann, ben):
                    await type_line(player, "d")
                third_start = await ann.expect(
                    rf"^Rematch: game 3 begins, deal {deal}: 26 cards each\.$", start=second
                )
                assert third_start
                third = len(ann.out)
                await ann.expect(r"^Game over: ", start=third)
                assert game_lines(ann.out, third) == game_lines(ann.out, second), "replayed"

                await type_line(ann, "q")
                await type_line(ann, "q")  # twice: leaving is for good
                assert await ann.wait() == 0
                assert ann.out[-1] == "You left the room."
                await type_line(ben, "q")
                await type_line(ben, "q")  # twice: leaving is for good
                assert await ben.wait() == 0
    assert ann.err == [] and ben.err == []
