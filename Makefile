# Two commands for a fresh machine with Python 3.11+:
#   make run    set up .venv and start a War server on 127.0.0.1:8765
#   make test   set up .venv with the dev tools and run ruff, import-linter, mypy --strict
#               and pytest
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: run test lint typecheck pytest bench clean venv lock image

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

run: venv
	$(BIN)/war-server --host $(HOST) --port $(PORT)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy

pytest: venv
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: venv
	$(BIN)/python -m bench.engine

# The Docker image's pinned dependencies, with every file's hash (pip --require-hashes):
# runtime (deploy/requirements.lock) and build backend (deploy/build-requirements.lock).
# Run after changing dependencies or build-system in pyproject.toml, or to take updates.
PIP_COMPILE := $(BIN)/pip-compile --quiet --upgrade --generate-hashes --strip-extras \
	--no-emit-index-url --no-emit-find-links
lock: venv
	$(PIP_COMPILE) --output-file deploy/requirements.lock pyproject.toml
	$(PIP_COMPILE) --allow-unsafe --only-build-deps --build-deps-for wheel \
		--output-file deploy/build-requirements.lock pyproject.toml

# Build the image on this machine (starting a Docker engine if needed, as root): see
# deploy/image.sh; `make test` then also runs tests/deploy/test_image.py against it.
image:
	deploy/image.sh build

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache .import_linter_cache
