"""``war-client --plain`` in the viewer's language against a real war-server over
127.0.0.1: ``--lang fr`` plays a whole game with a war against the computer (over a German
locale: ``--lang`` wins), and a watcher whose locale is Polish (``LANG=pl_PL.UTF-8``) reads
the same table in Polish at once."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.e2e._browser import war_deal
from tests.e2e._client_process import ClientProcess, client_process
from tests.e2e._process import server_process

pytestmark = pytest.mark.slow


async def type_line(client: ClientProcess, line: str) -> None:
    stdin = client.process.stdin
    assert stdin is not None
    stdin.write(line.encode() + b"\n")
    await stdin.drain()


ENGLISH = re.compile(r"\b(the|you|your|takes|cards|game|war|rules)\b", re.IGNORECASE)


async def test_plain_in_french_plays_a_game_with_a_war_and_a_pole_watches(
    tmp_path: Path,
) -> None:
    pipe = asyncio.subprocess.PIPE
    async with server_process(tmp_path / "war.sqlite3") as server:
        create = [server.url, "--name", "Ann", "--create", "--vs-computer", "--plain"]
        create += ["--deal", str(war_deal()), "--rounds", "30", "--lang", "fr"]
        french = client_process(create, tmp_path / "ann.json", pipe, locale="de_DE.UTF-8")
        async with french as ann:
            await ann.expect(r"^Tu es Ann, à la place 1 sur 2\.$")
            code = (await ann.expect(r"^Code spectateur\s: (\S+)\.$")).group(1)
            await ann.expect(r"^Règles\s: Les as sont les plus forts\. ")
            watch = [server.url, "--watch", code, "--plain"]
            async with client_process(watch, tmp_path / "w.json", locale="pl_PL.UTF-8") as pole:
                await pole.expect(r"^Oglądasz grę: Ann i komputer\.$")
                await type_line(ann, "")  # enter: the first round, a war
                await ann.expect(r"^Bataille\s! ")
                await pole.expect(r"^Wojna! ")
                await type_line(ann, "a quick")
                await ann.expect(r"^Ton jeu automatique\s: rapide\.$")
                await ann.expect(r"^Partie terminée\s: ")
                await pole.expect(r"^Koniec gry: ")
                for _ in range(2):
                    await type_line(ann, "q")
                assert await ann.process.wait() == 0, ann.err
                assert await pole.process.wait() == 0, pole.err
        for lines in (ann.out, pole.out):
            english = [line for line in lines if ENGLISH.search(line.replace("Ann", ""))]
            assert not english, english


async def test_a_killed_server_is_said_without_english_in_german_and_polish(
    tmp_path: Path,
) -> None:
    """The server killed under a German player and a Polish watcher: each reconnect line
    says why in the viewer's language (it said "connection refused" in English before)."""
    async with server_process(tmp_path / "war.sqlite3") as server:
        create = [server.url, "--name", "Ann", "--create", "--vs-computer", "--plain"]
        create += ["--lang", "de"]
        async with client_process(create, tmp_path / "ann.json") as ann:
            await ann.expect(r"^Du bist Ann, auf Platz 1 von 2\.$")
            code = (await ann.expect(r"^Zuschauercode: (\S+)\.$")).group(1)
            watch = [server.url, "--watch", code, "--plain"]
            async with client_process(watch, tmp_path / "w.json", locale="pl_PL.UTF-8") as pole:
                await pole.expect(r"^Oglądasz grę: Ann i komputer\.$")
                assert await server.kill() == -9
                await ann.expect(
                    r"^Neu verbinden… \(der Server ist nicht erreichbar: unter dieser Adresse"
                    r" wartet kein Server; Versuch \d+ in \d+,\d s\)$"
                )
                await pole.expect(
                    r"^Ponowne łączenie… \(nie można dotrzeć do serwera: pod tym adresem nie"
                    r" działa żaden serwer; próba \d+ za \d+,\d s\)$"
                )
        for lines in (ann.out, pole.out):
            english = [line for line in lines if ENGLISH.search(line.replace("Ann", ""))]
            english += [line for line in lines if "refused" in line or "connection" in line]
            assert not english, english
