"""The server's settings: one frozen `Settings` read from flags and ``WAR_*``
variables, the readers of their text, and the edge's settings."""
