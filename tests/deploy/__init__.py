"""Checks of the home-server deployment that need no Docker engine.

Dockerfile, docker-compose.yml, .env.example, deploy/ and docs/hosting.md are checked
against linters, the Compose Specification schema, each other, and the real war-server.
"""
