"""Helpers shared by test packages (never a test module itself).

A test module imports helpers from a kit, never from another test module or from a
sibling package's private helpers: ``tests._kit.net`` (plain HTTP over loopback),
``tests._kit.decks`` (arranged games), ``tests._kit.games`` (the longest finish vote the
tests know, and whether two games ended the same).
The server-process harness and `free_port` are in ``bench._server``, shared with bench.
"""
