"""The sans-I/O room core: the hub, the rooms, each room and its state machine, records,
codes, limits and the engine ↔ wire mapping.

Nothing here opens a socket, reads a clock or touches the disk: every call takes ``now``
and returns what to do (`server.core.room.actions`): the room rows to store, then the
messages to send; the caller stores them and says whether they were committed. The
adapters (`server.adapters`) own the I/O. The core never imports an adapter;
import-linter contracts in ``pyproject.toml`` check it, and docs/architecture.md shows
what each module owns.
"""
