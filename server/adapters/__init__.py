"""The adapters around the core: the WebSocket app and its batch, HTTP, serving, the
SQLite store, settings, logs, CLI.

They own the sockets, the clocks and the disk, and call the sans-I/O core
(`server.core`); the core never imports them.
"""
