#!/usr/bin/env bash
# Check the deployment files without a Docker engine — the same checks CI runs through
# `make test` (tests/deploy), plus the real Compose parser when one is installed.
#   deploy/validate.sh            (uses .venv; PYTHON=/path/to/python to choose another)
# The image itself is built and run by `deploy/image.sh build` and tests/deploy/test_image.py
# (marker `image`); here those tests run only if an engine is there or can be started.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-.venv/bin/python}"
bin="$(dirname "$python")"

echo "== hadolint Dockerfile"
"$bin/hadolint" --failure-threshold style Dockerfile

echo "== docker-compose.yml against the Compose Specification schema"
"$bin/check-jsonschema" --builtin-schema vendor.compose-spec docker-compose.yml

if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    # `config` only parses and interpolates; it needs no running engine.
    echo "== docker compose config (both profiles, .env.example values)"
    docker compose --env-file .env.example --profile tls config --quiet
fi

echo "== tests/deploy"
exec "$python" -m pytest -q tests/deploy
