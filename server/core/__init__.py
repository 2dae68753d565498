"""The sans-I/O room core: rooms, the hub, codes, limits and the engine ↔ wire mapping.

Nothing here opens a socket, reads a clock or touches the disk: every call takes ``now``
and returns what to do (`server.core.actions`); the hub writes through an injected
`server.core.records.Store`. The adapters (`server.adapters`) own the I/O. The core never
imports an adapter; import-linter contracts in ``pyproject.toml`` check it.
"""
