"""The Textual table's talk: messages and reactions beside the log, ``m`` to write one,
the evening's score in the header and under the game-over figures."""

from __future__ import annotations

import dataclasses

from textual.widgets import Input
from textual.widgets._footer import FooterKey

from client.tui.app import WarApp
from client.words.catalog import catalog
from client.words.language import Viewer
from protocol import (
    EveningGame,
    React,
    Reacted,
    Reaction,
    Said,
    Say,
    TalkSetting,
    Termination,
)
from tests.client._fake import FakeLink
from tests.client.test_tui import EN, START, ben_wins, settle, text, welcome


def _welcome_all() -> object:
    first = welcome()
    return dataclasses.replace(
        first, state=dataclasses.replace(first.state, talk_setting=TalkSetting.ALL)
    )


async def test_talk_shows_beside_the_log_and_m_writes_a_message() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test(size=(100, 40)) as pilot:
        link.push(_welcome_all(), *START)  # type: ignore[arg-type]
        await settle(link, pilot)
        assert "press m to write" in text(app, "#talk")
        link.push(Reacted(seq=5, seat=1, reaction=Reaction.CLAP))
        link.push(Said(seq=6, seat=None, text="[b]Go Ann![/b]"))
        await settle(link, pilot)
        talk = text(app, "#talk")
        assert "Ben reacts 👏" in talk
        assert "Someone watching: [b]Go Ann![/b]" in talk  # text, never markup
        assert "Ben reacts 👏" in "\n".join(app.said)  # and in the log
        await pilot.press("m")
        await pilot.pause()
        box = app.query_one("#message", Input)
        assert box.has_focus
        await pilot.press(*"Good game", "enter")
        assert await link.next_sent() == Say(text="Good game")
        assert not box.has_focus
        await pilot.press("m")
        await pilot.pause()
        await pilot.press(*"/one_more", "enter")
        assert await link.next_sent() == React(reaction=Reaction.ONE_MORE)
        await pilot.press("m")
        await pilot.pause()
        await pilot.press(*"/applause", "enter")  # no such reaction: said, nothing sent
        await settle(link, pilot)
        assert "No such reaction: 'applause'" in app.said[-1]
        await pilot.press("escape")
        assert not box.has_focus


async def test_the_evening_is_in_the_header_and_the_game_over_panel() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test(size=(120, 40)) as pilot:
        link.push(welcome(), *START)
        await settle(link, pilot)
        evening = (
            EveningGame(game=1, deal=5, winner=0, termination=Termination.ALL_CARDS,
                        rounds=100, names=("Ann", "Ben")),
            EveningGame(game=2, deal=90210, winner=1, termination=Termination.ALL_CARDS,
                        rounds=377, names=("Ann", "Ben")),
        )  # fmt: skip
        link.push(dataclasses.replace(ben_wins(seq=5), evening=evening))
        await settle(link, pilot)
        assert "Ann: 1 · Ben: 1" in text(app, "#top")
        summary = text(app, "#summary")
        assert "The evening — Ann: 1 · Ben: 1" in summary
        assert "Game 2: Ben won in 377 rounds (deal 90 210)." in summary


async def test_a_spectator_in_a_players_room_is_told_to_react() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test(size=(100, 40)) as pilot:
        link.push(welcome(seat=None))
        await settle(link, pilot)
        await pilot.press("m")
        await pilot.pause()
        await pilot.press(*"hello", "enter")
        await settle(link, pilot)
        assert app.said[-1] == "Only the players write at this table; you may react."
        await pilot.press(*["backspace"] * 5, *"/clap", "enter")
        assert await link.next_sent() == React(reaction=Reaction.CLAP)


async def test_the_footer_offers_m_while_the_table_takes_talk() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test(size=(100, 30)) as pilot:
        first = welcome()
        talking = dataclasses.replace(first.state, talk_setting=TalkSetting.ALL)
        link.push(dataclasses.replace(first, state=talking), *START)
        await settle(link, pilot)
        shown = {key.key for key in app.query(FooterKey) if key.display}
        assert "m" in shown, shown
        silent = dataclasses.replace(first.state, talk_setting=TalkSetting.OFF)
        link.push(dataclasses.replace(first, seq=9, state=silent))
        await settle(link, pilot)
        assert "m" not in {key.key for key in app.query(FooterKey) if key.display}


async def test_the_french_evening_is_not_cut_at_80_columns() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(catalog("fr", strict=True)))
    async with app.run_test(size=(80, 24)) as pilot:
        names = ("Grand-mère Hélène", "Benoît")
        link.push(welcome(name=names[0]), *START)
        await settle(link, pilot)
        evening = tuple(
            EveningGame(game=n, deal=18446744073709551615 - n, winner=n % 2,
                        termination=Termination.ALL_CARDS, rounds=300 + n, names=names)
            for n in (1, 2, 3)
        )  # fmt: skip
        link.push(dataclasses.replace(ben_wins(seq=5), evening=evening))
        await settle(link, pilot)
        score = "Benoît\u00a0: 2 · Grand-mère Hélène\u00a0: 1"
        header = text(app, "#top")
        assert score in header
        top = app.query_one("#top")
        assert len(header) > 78, "longer than one line of the header"
        room = top.region.height * (top.region.width - 2)  # its padding: one column a side
        assert top.region.width <= 80 and room >= len(header), (top.region, header)
