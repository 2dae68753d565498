"""Helpers shared by test packages (never a test module itself).

A test module imports helpers from a kit, never from another test module or from a
sibling package's private helpers: ``tests._kit.net`` (plain HTTP over loopback).
The server-process harness and `free_port` are in ``bench._server``, shared with bench.
"""
