"""Checks of the home-server deployment.

Dockerfile, docker-compose.yml, .env.example, deploy/ and docs/hosting.md are checked
against linters, the Compose Specification schema, each other, and the real war-server;
test_image.py (marker ``image``) builds the image and runs it on a Docker engine.
"""
