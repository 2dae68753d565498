"""War game server.

- `server.engine`: the game itself (pure, deterministic) and its random stream;
- `server.core`: rooms and the hub, sans-I/O (no sockets, no clock, no disk);
- `server.adapters`: the WebSocket app, the SQLite store, settings, logs, ``war-server``;
- `server.sim`: ``war-sim``.
"""
