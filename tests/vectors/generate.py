"""Write the shared sentence vectors: recorded games and what each viewpoint is told.

    .venv/bin/python -m tests.vectors.generate      # rewrites tests/vectors/*.json and
                                                    # tests/vectors/words/*/*.json

Each file is one scene. Most are played by the real room core (`server.core.hub.hub.Hub`, on
a fake clock, with the engine behind it), as war-server would play them, with people who
join, watch, leave, drop out and come back; two are arranged engine games for endings a
real deal reaches too rarely (everyone short at once, the endless game). Every frame a
connection received is kept exactly as it crossed the wire (msgpack, base64), in order,
with a resumed connection's frames after the ones it had before.

For every frame, the Python client's reducer (`client.state.view`) gives what changed in a
digest of the view (``view``, see `digest`), in the scene's own file, the same in every
language. Its sentences (`client.words.sentences`), in each language of `client.words.catalog`, give
what this viewpoint is told, in ``words/<language>/<scene>.json``, one line per frame:
``say`` (as ``war-client --plain`` prints it; ``table`` when a table's words differ,
`describe_table`), the status line (``status``; ``touch`` when a touch screen's differs,
``status(touch=True)``), who voted (``votes``, when anyone did) and the rules sentence
(``rules``, at the first frame and when it changes).
`tests/client/test_vectors.py` checks the Python client against these files and that they
are current;
`tests/client/web/vectors.test.mjs` checks the browser table's JavaScript against them, in
every language. Regenerate them from Python (``make vectors``); never edit them.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.state.view import ViewState, apply
from client.words.catalog import Catalog, available, catalog
from client.words.sentences import describe, describe_table, rules_sentence, status, votes_sentence
from client.words.talk import evening_lines, evening_score
from protocol import (
    Aces,
    ClientMessage,
    CreateRoom,
    Error,
    JoinRoom,
    Leave,
    React,
    Reaction,
    Ready,
    Rematch,
    RematchDeal,
    ResumeSeat,
    Resync,
    RulesSpec,
    Say,
    SetAutoPlay,
    ShortWar,
    TalkSetting,
    VoteFinish,
    WatchRoom,
    WonCards,
    decode_server_message,
    encode,
)
from protocol.fairness import commitment
from protocol.fields import AutoPlay
from protocol.seat_requests import AnswerSeatRequest
from server import engine
from server.core.settings import HubSettings
from tests._kit.decks import GIVEN_BACK, arrange
from tests.client._record import Recording
from tests.server.core._roomkit import Peer, RoomKit

__all__ = ["FOLDER", "NOT_SCENES", "WORDS", "digest", "main", "scene_files", "scenes", "told"]

FOLDER = Path(__file__).parent
WORDS = FOLDER / "words"
NOT_SCENES = frozenset({"paths.json"})
"""Files beside the scenes that are no scene: the second path's merge (tests/vectors/paths.py)."""


def scene_files() -> list[Path]:
    """The scenes' files, in order of name."""
    return sorted(path for path in FOLDER.glob("*.json") if path.name not in NOT_SCENES)


"""``words/<language>/<scene>.json``: what each viewpoint is told, in that language."""
VERSION = 2


def digest(view: ViewState) -> dict[str, Any]:
    """What the view holds, compactly: the fields a table draws and sentences read.

    Each seat is ``"count|face-up cards|face-down count|flags"``, the flags being
    ``n`` named, ``C`` computer, ``c`` connected, ``r`` ready, ``o`` out, ``f`` voted to
    finish, ``a``+mode auto-play, ``m``+deal rematch vote. The deal is a string (it may
    not fit a JavaScript number). ``asked``: the seat a request open now asks for.
    """
    seats = []
    for s in view.seats:
        flags = "".join(
            letter
            for letter, on in (
                ("n", s.name is not None),
                ("C", s.computer),
                ("c", s.connected),
                ("r", s.ready),
                ("o", s.out),
                ("f", s.finish_vote),
            )
            if on
        )
        if s.auto is not AutoPlay.OFF:
            flags += "a" + s.auto.value
        if s.rematch_vote is not None:
            flags += "m" + s.rematch_vote.value
        seats.append(f"{s.count}|{','.join(s.face_up)}|{s.face_down}|{flags}")
    taken = view.last_taken
    return {
        "phase": view.phase.value,
        "game": view.game,
        "step": view.step,
        "round": view.round,
        "war": [view.war_depth, list(view.war_seats)],
        "waiting": list(view.waiting_for),
        "seats": seats,
        "spectators": view.spectators,
        "left": sorted(view.left),
        "time": [view.minutes, view.seconds_left, view.time_up],
        "deal": None if view.deal is None else str(view.deal),
        "taken": None if taken is None else [taken.round, taken.seat, taken.count],
        "seq": view.last_seq,
        "resync": view.needs_resync,
        "talk": [len(view.talk), view.talk_setting.value],
        "asked": view.seat_request,
    }


def narrate(frames: list[bytes], me: int | None) -> list[dict[str, Any]]:
    """Every frame, with what the Python client's reducer makes of it for ``me``. ``view``
    holds the keys of `digest` that changed with this frame (all of them at the first)."""
    view = ViewState()
    steps = []
    shown: dict[str, Any] = {}
    for frame in frames:
        message = decode_server_message(frame)
        view = apply(view, message)
        now = digest(view)
        steps.append(
            {
                "type": message.TYPE,
                "frame": base64.b64encode(frame).decode("ascii"),
                "view": {k: v for k, v in now.items() if k not in shown or shown[k] != v},
            }
        )
        shown = now
    return steps


def told(steps: list[dict[str, Any]], me: int | None, words: Catalog) -> list[dict[str, Any]]:
    """What the Python client tells ``me`` in ``words`` at each of a viewpoint's frames."""
    view = ViewState()
    lines = []
    rules = evening = None
    for step in steps:
        message = decode_server_message(base64.b64decode(step["frame"]))
        before, view = view, apply(view, message)
        said = list(describe(before, message, view, me, words=words))
        line: dict[str, Any] = {"say": said, "status": status(view, me, words=words)}
        if (touch := status(view, me, words=words, touch=True)) != line["status"]:
            line["touch"] = touch  # a touch screen names its buttons, not keys
        if (on_table := list(describe_table(before, message, view, me, words=words))) != said:
            line["table"] = on_table
        if (votes := votes_sentence(view, me, words=words)) is not None:
            line["votes"] = votes
        if (now := rules_sentence(view.rules, view.minutes, words=words)) != rules:
            line["rules"] = rules = now
        score = [
            evening_score(view.evening, words=words, view=view),
            *evening_lines(view.evening, words=words, view=view),
        ]
        if score != evening:
            line["evening"] = evening = score
        lines.append(line)
    return lines


# --- scenes played by the room core ------------------------------------------------------
@dataclass
class Scene:
    """A room on a fake clock and the frames each viewpoint received."""

    name: str
    about: str
    kit: RoomKit = field(default_factory=lambda: RoomKit(HubSettings(), seed=1))
    peers: dict[str, Peer] = field(default_factory=dict)
    seats: dict[str, int | None] = field(default_factory=dict)
    frames: dict[str, list[bytes]] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)

    def open(self, who: str, opening: ClientMessage) -> Peer:
        """A new connection for ``who`` (a resumed one continues ``who``'s frames)."""
        if who in self.peers:
            self.collect(who)
        # each person from an address of their own (a household: nobody answers their
        # own seat request), the same on every connection of theirs
        address = self.addresses.setdefault(who, f"10.0.{len(self.addresses) + 1}.1")
        peer = self.kit.connect(address)
        self.peers[who] = peer
        self.frames.setdefault(who, [])
        self.kit.send(peer, opening)
        if who not in self.seats:
            self.seats[who] = peer.welcome.seat
        return peer

    def send(self, who: str, message: ClientMessage) -> None:
        self.kit.send(self.peers[who], message)

    def ready(self, *who: str) -> None:
        """Each of ``who`` the game waits for turns over (a seat it does not wait for is
        skipped, as a client would not send)."""
        for name in who:
            room = self.kit.room(self.peers[name])
            seat = self.seats[name]
            if seat in room.waiting_for():
                self.send(name, Ready(step=room.game.steps))

    def play(self, steps: int, *who: str) -> None:
        """``steps`` times: everyone in ``who`` turns over, the computers take their time."""
        for _ in range(steps):
            self.ready(*who)
            self.kit.advance(1.0)

    def drop(self, who: str) -> None:
        self.collect(who)
        self.kit.drop(self.peers[who])

    def lose_one(self, who: str, kind: str) -> None:
        """The next message of type ``kind`` to ``who`` is lost on the way; the client
        then asks for a resync (as its reducer will have noticed the gap)."""
        peer = self.peers[who]
        index = next(i for i, m in enumerate(peer.inbox) if kind == m.TYPE)
        del peer.inbox[index]
        self.send(who, Resync())

    def collect(self, who: str) -> None:
        self.frames[who] += [encode(m) for m in self.peers[who].take()]

    def room(self, who: str) -> Any:
        return self.kit.room(self.peers[who])

    def vector(self) -> dict[str, Any]:
        for who in self.peers:
            self.collect(who)
        return {
            "version": VERSION,
            "name": self.name,
            "about": self.about,
            "viewpoints": [
                {"who": who, "seat": self.seats[who], "steps": narrate(frames, self.seats[who])}
                for who, frames in self.frames.items()
            ],
        }


def two_players() -> dict[str, Any]:
    scene = Scene(
        "two-players",
        "Ann and Ben, a spectator from the start, a 12-round limit with a double war, a "
        "refused ready, split rematch votes (a new deal wins), Ben leaves and the computer "
        "plays for him, Ann votes to finish.",
    )
    rules = RulesSpec(players=2, round_limit=12)
    ann = scene.open("ann", CreateRoom(name="Ann", rules=rules, deal=107))
    code = ann.welcome.player_code or ""
    scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
    scene.open("ben", JoinRoom(code=code, name="Ben"))
    scene.ready("ann")
    scene.send("ann", Ready(step=0))  # already ready: the server says so
    while scene.room("ann").game.outcome is None:
        scene.play(1, "ann", "ben")
    scene.send("ann", Rematch(deal=RematchDeal.SAME))
    scene.send("ben", Rematch(deal=RematchDeal.NEW))
    scene.play(3, "ann", "ben")
    scene.send("ben", Leave())
    scene.play(2, "ann")
    scene.send("ann", VoteFinish())
    return scene.vector()


def three_players() -> dict[str, Any]:
    scene = Scene(
        "three-players",
        "Ann, Cy and the computer; a war two of them fight while one sits out; a spectator "
        "comes in the middle of the game and goes; Ann plays calm auto-play; both vote to "
        "finish.",
    )
    rules = RulesSpec(players=3, aces=Aces.LOW)
    ann = scene.open("ann", CreateRoom(name="Ann", rules=rules, deal=1, computers=1))
    scene.open("cy", JoinRoom(code=ann.welcome.player_code or "", name="Cy"))
    scene.play(4, "ann", "cy")
    scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
    scene.play(6, "ann", "cy")
    scene.drop("watcher")
    scene.send("ann", SetAutoPlay(mode=AutoPlay.CALM))
    scene.play(4, "cy")
    scene.send("cy", VoteFinish())
    scene.send("ann", VoteFinish())
    return scene.vector()


def four_players() -> dict[str, Any]:
    scene = Scene(
        "four-players",
        "Ann, Ben and two computers, three cards face down in a war, a hidden deal; Ben's "
        "connection drops, the game waits for him, he comes back; Ann misses a message and "
        "catches up with a resync; two spectators; a finish vote reveals the deal.",
    )
    rules = RulesSpec(players=4, face_down=3, won_cards=WonCards.FIXED)
    ann = scene.open("ann", CreateRoom(name="Ann", rules=rules, computers=2))
    scene.open("ben", JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
    scene.open("second", WatchRoom(code=ann.welcome.watch_code or ""))
    scene.play(3, "ann", "ben")
    scene.ready("ben")
    ben = scene.peers["ben"]
    scene.drop("ben")
    scene.play(1, "ann")
    scene.kit.advance(5.0)
    scene.open("ben", ResumeSeat(room=ben.welcome.state.room, token=ben.welcome.token or ""))
    scene.ready("ann", "ben")
    scene.lose_one("ann", "cards_turned")
    scene.kit.advance(1.0)
    scene.play(3, "ann", "ben")
    scene.drop("second")
    scene.send("ben", VoteFinish())
    scene.send("ann", VoteFinish())
    return scene.vector()


def family_evening() -> dict[str, Any]:
    """Deal 7652 (three players, three face down): Cy runs short at step 6."""
    scene = Scene(
        "family-evening",
        "Ann, Ben and Cy, three cards face down, a spectator; Cy runs short and is out; "
        "Ben's laptop closes and after two minutes the server plays his seat calmly; he "
        "asks for it back from another device with the player code and his name, Ann lets "
        "him, then he leaves "
        "(the computer plays for him); Cy, out, votes to finish, and Ann's vote ends it.",
    )
    rules = RulesSpec(players=3, face_down=3)
    ann = scene.open("ann", CreateRoom(name="Ann", rules=rules, deal=7652))
    code = ann.welcome.player_code or ""
    scene.open("ben", JoinRoom(code=code, name="Ben"))
    scene.open("cy", JoinRoom(code=code, name="Cy"))
    scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
    while 2 in scene.room("ann").game.active:
        scene.play(1, "ann", "ben", "cy")
    scene.drop("ben")
    scene.kit.advance(120.0)
    scene.play(2, "ann")
    scene.open("ben", JoinRoom(code=code, name="Ben"))  # asks the table for his seat
    scene.send("ann", AnswerSeatRequest(seat=1, allow=True))
    scene.play(1, "ann", "ben")
    scene.send("ben", Leave())
    scene.send("cy", VoteFinish())
    scene.send("ann", VoteFinish())
    return scene.vector()


def seat_request() -> dict[str, Any]:
    """Deal 7652 again: a request for an away seat that a player who came back answers."""
    scene = Scene(
        "seat-request",
        "Ann, Ben and Cy, three cards face down; Ben's phone locks and someone asks for "
        "his seat by name; while the table is asked, Cy's page reloads (she resumes) and "
        "a spectator comes in: both see the question; Cy lets the new device in; Ben's "
        "own phone then takes the seat back with its token, and the new device is told.",
    )
    rules = RulesSpec(players=3, face_down=3)
    ann = scene.open("ann", CreateRoom(name="Ann", rules=rules, deal=7652))
    code = ann.welcome.player_code or ""
    ben = scene.open("ben", JoinRoom(code=code, name="Ben"))
    cy = scene.open("cy", JoinRoom(code=code, name="Cy"))
    scene.play(2, "ann", "ben", "cy")
    scene.drop("ben")
    scene.seats["asker"] = 1  # the seat it asks for, and then holds
    scene.open("asker", JoinRoom(code=code, name="Ben"))
    scene.kit.advance(5.0)
    scene.drop("cy")
    room = cy.welcome.state.room
    scene.open("cy", ResumeSeat(room=room, token=cy.welcome.token or ""))
    scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
    scene.send("cy", AnswerSeatRequest(seat=1, allow=True))
    scene.play(1, "ann", "asker", "cy")
    scene.open("ben", ResumeSeat(room=room, token=ben.welcome.token or ""))
    scene.play(1, "ann", "ben", "cy")
    return scene.vector()


def table_talk() -> dict[str, Any]:
    """Deal 90210 with talk for everyone: three games and what was said around them."""
    scene = Scene(
        "table-talk",
        "Grandma and Ben, talk open to all, a spectator: reactions and messages from each "
        "(a phrase, an emoji, a message with spaces around it), a spectator's cheer, three "
        "games finished by vote with rematches in between, and the evening's score.",
    )
    grandma = scene.open("grandma", CreateRoom(name="Grandma", deal=90210, talk=TalkSetting.ALL))
    scene.open("ben", JoinRoom(code=grandma.welcome.player_code or "", name="Ben"))
    scene.open("watcher", WatchRoom(code=grandma.welcome.watch_code or ""))
    scene.play(2, "grandma", "ben")
    scene.send("ben", React(reaction=Reaction.CLAP))
    scene.send("watcher", Say(text="  Go Grandma!  "))
    scene.send("grandma", React(reaction=Reaction.GOOD_GAME))
    scene.send("watcher", React(reaction=Reaction.WOW))
    for game in range(3):
        scene.send("grandma", VoteFinish())
        scene.send("ben", VoteFinish())
        scene.kit.run_until(scene.kit.now + 5, stop=lambda: scene.room("ben").phase == "over")
        if game < 2:
            scene.send("ben", Say(text="One more? I want my revenge"))
            scene.send("grandma", React(reaction=Reaction.ONE_MORE))
            scene.send("grandma", Rematch(deal=RematchDeal.NEW))
            scene.send("ben", Rematch(deal=RematchDeal.NEW))
    scene.send("ben", React(reaction=Reaction.PARTY))
    return scene.vector()


def short_war(rule: ShortWar, deal: int, steps: int) -> Callable[[], dict[str, Any]]:
    """Deals 949 and 8308 run short within six steps (found by searching the engine)."""

    def play() -> dict[str, Any]:
        scene = Scene(
            f"short-war-{rule.value.replace('_', '-')}",
            f"Ann against three computers, three cards face down, short_war {rule.value}: "
            "players run short of cards in wars; Ann votes to finish.",
        )
        rules = RulesSpec(players=4, face_down=3, short_war=rule)
        ann = scene.open("ann", CreateRoom(name="Ann", rules=rules, deal=deal, computers=3))
        scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
        scene.play(steps, "ann")
        scene.send("ann", VoteFinish())
        return scene.vector()

    return play


def time_limit() -> dict[str, Any]:
    scene = Scene(
        "time-limit",
        "Ann against the computer for one minute; a spectator arrives with the clock "
        "running; time runs out in the middle of a war, which is then settled.",
    )
    ann = scene.open("ann", CreateRoom(name="Ann", deal=107, computers=1, minutes=1))
    scene.play(2, "ann")
    scene.kit.advance(20.0)
    scene.open("watcher", WatchRoom(code=ann.welcome.watch_code or ""))
    while scene.room("ann").game.depth == 0:
        scene.play(1, "ann")
    scene.kit.advance(60.0)
    while scene.room("ann").game.outcome is None:
        scene.play(1, "ann")
    return scene.vector()


# --- arranged engine games ---------------------------------------------------------------
def arranged(
    name: str, about: str, game: Callable[[], engine.Game], *, watcher: bool = True
) -> dict[str, Any]:
    viewpoints = []
    for who, me in (("ann", 0), ("watcher", None))[: 2 if watcher else 1]:
        recording = Recording(game(), me=me)
        recording.play()
        frames = [encode(m) for m in recording.messages]
        viewpoints.append({"who": who, "seat": me, "steps": narrate(frames, me)})
    return {"version": VERSION, "name": name, "about": about, "viewpoints": viewpoints}


def everyone_short() -> dict[str, Any]:
    rules = engine.Rules(ranks=4, suits=2, won_cards=engine.WonCards.FIXED)
    return arranged(
        "arranged-everyone-short",
        "An arranged 8-card game: a war, a double war, and everyone runs out at once.",
        lambda: arrange(rules, ["AS KS QS JS", "AH KH QH JH"]),
    )


def given_back() -> dict[str, Any]:
    rules, piles = GIVEN_BACK
    return arranged(
        "arranged-given-back",
        "An arranged 20-card game for four under 0.1's fixed order: Ben runs short, Ann and "
        "Cy run out while Di is still in, so the round is given back and played again; Ben's "
        "cards stay on the table until Cy takes them.",
        lambda: arrange(rules, piles),
    )


def endless() -> dict[str, Any]:
    rules = engine.Rules(
        ranks=2, suits=4, won_cards=engine.WonCards.FIXED, fixed_order=engine.FixedOrder.SEAT0
    )
    return arranged(
        "arranged-endless",
        "An arranged 8-card game that would go round for ever.",
        lambda: arrange(rules, ["KS KH KD AC", "AS AH AD KC"]),
        watcher=False,
    )


def fair_finish() -> dict[str, Any]:
    scene = Scene(
        "fair-finish",
        "A fair deal (issue 31): Ann and Ben commit to seeds; Ann turns over (her seed) and "
        "votes to finish; Ben votes to finish before his first turn-over (a client that "
        "does not reveal with its vote): the finish waits for his seed, and the table is "
        "told whose turn-over it waits for; his turn-over reveals it and the rest is "
        "played out.",
    )
    ann_seed, ben_seed = bytes([21]) * 32, bytes([22]) * 32
    rules = RulesSpec(players=2, round_limit=30)
    ann = scene.open(
        "ann", CreateRoom(name="Ann", rules=rules, seed_commitment=commitment(ann_seed))
    )
    code = ann.welcome.player_code or ""
    scene.open("ben", JoinRoom(code=code, name="Ben", seed_commitment=commitment(ben_seed)))
    scene.send("ann", Ready(step=0, seed=ann_seed.hex()))
    scene.send("ann", VoteFinish())
    scene.send("ben", VoteFinish())
    scene.send("ben", Ready(step=0, seed=ben_seed.hex()))
    scene.kit.advance(1.0)  # the play-out queue plays the rest out
    return scene.vector()


def scenes() -> list[dict[str, Any]]:
    """Every scene, played afresh (the same every time: fake clock, seeded codes)."""
    made = [
        two_players(),
        three_players(),
        four_players(),
        family_evening(),
        seat_request(),
        table_talk(),
        short_war(ShortWar.LOSE, 949, 10)(),
        short_war(ShortWar.LAST_CARD, 8308, 10)(),
        time_limit(),
        fair_finish(),
        everyone_short(),
        given_back(),
        endless(),
    ]
    for vector in made:
        for viewpoint in vector["viewpoints"]:
            for step in viewpoint["steps"]:
                decoded = decode_server_message(base64.b64decode(step["frame"]))
                assert not isinstance(decoded, Error) or viewpoint["who"] != "watcher"
    return made


def words_of(vector: dict[str, Any], words: Catalog) -> dict[str, Any]:
    """What each viewpoint of ``vector`` is told, in ``words``."""
    return {
        "version": VERSION,
        "name": vector["name"],
        "language": words.tag,
        "viewpoints": [
            {"who": v["who"], "seat": v["seat"], "steps": told(v["steps"], v["seat"], words)}
            for v in vector["viewpoints"]
        ],
    }


def written() -> dict[Path, str]:
    """Every vector file, by its path, as it should be now."""
    files = {}
    made = scenes()
    for vector in made:
        files[FOLDER / f"{vector['name']}.json"] = render(vector)
    for tag in available():
        words = catalog(tag)
        for vector in made:
            files[WORDS / tag / f"{vector['name']}.json"] = render(words_of(vector, words))
    return files


def render(vector: dict[str, Any]) -> str:
    """The file's text: one step per line, so a change of words is a small diff."""
    lines = [
        "{",
        f'  "version": {vector["version"]},',
        f'  "name": {json.dumps(vector["name"])},',
        *(
            [f'  "about": {json.dumps(vector["about"], ensure_ascii=False)},']
            if "about" in vector
            else [f'  "language": {json.dumps(vector["language"])},']
        ),
        '  "viewpoints": [',
    ]
    for v_index, viewpoint in enumerate(vector["viewpoints"]):
        lines.append(
            f'    {{"who": {json.dumps(viewpoint["who"])}, "seat": {json.dumps(viewpoint["seat"])},'
            ' "steps": ['
        )
        steps = viewpoint["steps"]
        for s_index, step in enumerate(steps):
            comma = "," if s_index < len(steps) - 1 else ""
            text = json.dumps(step, ensure_ascii=False, separators=(",", ":"))
            lines.append(f"      {text}{comma}")
        lines.append("    ]}" + ("," if v_index < len(vector["viewpoints"]) - 1 else ""))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def main() -> int:
    files = written()
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for stale in set(WORDS.glob("*/*.json")) - set(files):
        stale.unlink()  # a scene or a language that is no more
    scenes_, languages = len(scene_files()), len(available())
    print(f"{FOLDER}: {scenes_} scenes, their words in {languages} languages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
