"""The seat state file: where it lives, atomic private writes, bad files, old entries."""

from __future__ import annotations

import json
import stat
from dataclasses import asdict
from pathlib import Path

import pytest

from client.errors import StateFileError
from client.net.statefile import MAX_AGE_SECONDS, SeatRecord, StateFile, default_path, seat_key

URL = "ws://127.0.0.1:8765"


def record(token: str = "tok-" * 5, saved: float = 1_000_000.0) -> SeatRecord:
    return SeatRecord(room="r8k2", token=token, seat=1, name="Ben", saved=saved)


def test_default_path_follows_the_environment(tmp_path: Path) -> None:
    override = tmp_path / "mine.json"
    assert default_path({"WAR_CLIENT_STATE": str(override)}) == override
    xdg = {"XDG_STATE_HOME": str(tmp_path / "state")}
    assert default_path(xdg) == tmp_path / "state" / "family-war" / "client.json"
    home = default_path({"XDG_STATE_HOME": "relative/ignored"})
    assert home == Path.home() / ".local" / "state" / "family-war" / "client.json"
    assert default_path({}) == home


def test_seat_keys_normalise_the_server_and_the_name() -> None:
    assert seat_key("ws://LOCALHOST:8765/", "AB-CD") == "ws://localhost:8765 AB-CD"
    assert seat_key("wss://war.example.org", "X") == "wss://war.example.org:443 X"
    assert seat_key("ws://a:1", "X") != seat_key("ws://a:1", "Y")
    assert seat_key("ws://a:1", "X", " GRANDMA ") == "ws://a:1 X grandma"
    assert seat_key("ws://a:1", "X", "Ben") != seat_key("ws://a:1", "X", "Grandma")


def test_put_get_forget(tmp_path: Path) -> None:
    store = StateFile(tmp_path / "deep" / "er" / "client.json")
    assert store.get(URL, "K7MX-QD4R", "Ben") is None
    store.put(URL, "K7MX-QD4R", record())
    assert store.get(URL, "K7MX-QD4R", "Ben") == record()
    assert store.get(URL, "K7MX-QD4R", " ben ") == record(), "the name as typed"
    assert store.get(URL, "K7MX-QD4R", "Grandma") is None, "Ben's seat is not Grandma's"
    assert store.get("ws://127.0.0.1:9999", "K7MX-QD4R", "Ben") is None
    store.put(URL, "K7MX-QD4R", record("new-" * 5))
    assert store.get(URL, "K7MX-QD4R", "Ben") == record("new-" * 5)
    store.forget(URL, "K7MX-QD4R", "Ben")
    assert store.get(URL, "K7MX-QD4R", "Ben") is None
    store.forget(URL, "K7MX-QD4R", "Ben")  # nothing to forget: fine


def test_two_relatives_on_one_computer_keep_a_seat_each(tmp_path: Path) -> None:
    store = StateFile(tmp_path / "client.json")
    grandma = SeatRecord(room="r8k2", token="tok-g" * 4, seat=0, name="Grandma", saved=1e6)
    store.put(URL, "K7MX-QD4R", grandma)
    store.put(URL, "K7MX-QD4R", record())  # Ben, at the same table, on the same computer
    assert store.get(URL, "K7MX-QD4R", "Grandma") == grandma
    assert store.get(URL, "K7MX-QD4R", "Ben") == record()
    store.put(URL, "K7MX-QD4R", record("new-" * 5))  # Ben's seat resumed: a new token
    assert store.get(URL, "K7MX-QD4R", "Grandma") == grandma, "hers is untouched"
    store.forget(URL, "K7MX-QD4R", "Ben")  # Ben leaves
    assert store.get(URL, "K7MX-QD4R", "Grandma") == grandma


def test_an_older_files_one_seat_a_code_is_still_found(tmp_path: Path) -> None:
    path = tmp_path / "client.json"
    older = {"version": 1, "seats": {seat_key(URL, "K7MX-QD4R"): asdict(record())}}
    path.write_text(json.dumps(older), encoding="utf-8")
    store = StateFile(path)
    assert store.get(URL, "K7MX-QD4R", "Ben") == record()
    assert store.get(URL, "K7MX-QD4R", "Grandma") is None
    store.put(URL, "K7MX-QD4R", record("new-" * 5))  # Ben's, now under his name alone
    keys = list(json.loads(path.read_text(encoding="utf-8"))["seats"])
    assert keys == [seat_key(URL, "K7MX-QD4R", "Ben")]


def test_the_file_is_private_and_replaced_atomically(tmp_path: Path) -> None:
    path = tmp_path / "state" / "client.json"
    store = StateFile(path)
    store.put(URL, "A-CODE", record())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    first_inode = path.stat().st_ino
    store.put(URL, "B-CODE", record())
    assert path.stat().st_ino != first_inode, "a write renames a new file into place"
    leftovers = [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    body = json.loads(path.read_text())
    assert body["version"] == 1 and len(body["seats"]) == 2


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json",
        "[1, 2]",
        '{"version": 2, "seats": {}}',
        '{"version": 1, "seats": []}',
        '{"version": 1, "seats": {"k": {"room": 5}}}',
        '{"version": 1, "seats": {"k": {"room": "r", "token": "t", "seat": true, '
        '"name": "n", "saved": 1}}}',
    ],
)
def test_a_bad_file_counts_as_empty_and_is_repaired(tmp_path: Path, content: str) -> None:
    path = tmp_path / "client.json"
    path.write_text(content)
    store = StateFile(path)
    assert store.get(URL, "k", "Ben") is None
    store.put(URL, "A-CODE", record())
    assert store.get(URL, "A-CODE", "Ben") == record()


def test_old_entries_are_dropped_on_write(tmp_path: Path) -> None:
    store = StateFile(tmp_path / "client.json")
    store.put(URL, "OLD", record(saved=0.0))
    store.put(URL, "NEW", record(saved=MAX_AGE_SECONDS + 1.0))
    assert store.get(URL, "OLD", "Ben") is None
    assert store.get(URL, "NEW", "Ben") is not None


def test_an_unwritable_place_raises_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = StateFile(blocker / "client.json")
    with pytest.raises(StateFileError, match="cannot write the state file"):
        store.put(URL, "A-CODE", record())
