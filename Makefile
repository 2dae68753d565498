# Two commands for a fresh machine with Python 3.11+:
#   make run    set up .venv with what the server needs (pip install -e ., not the dev tools)
#               and start a War server on 127.0.0.1:8765 (it says the address to open);
#               make run HOST=0.0.0.0 for the home network, and OUTSIDE=1 for relatives
#               elsewhere too (war-server --outside: the router opens port 443 and the
#               server gets its own certificate; docs/hosting.md)
#   make test   set up .venv with the dev tools and run ruff, import-linter, mypy --strict,
#               pytest and the browser table's JavaScript tests (node --test); the browser
#               tests drive the system's Chromium (apt-get install chromium nodejs; .ci/run
#               does it)
# make test runs the four suites at once, each one's output printed whole when it ends
# (make -O), and goes on after a failure to report every suite (make -k); pytest runs on
# PYTEST_WORKERS processes (pytest-xdist; 0: in this process, e.g. for --pdb), with
# PYTEST_ARGS after (make pytest PYTEST_ARGS='-m "not image" tests/e2e').
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765
OUTSIDE ?=
PYTEST_WORKERS ?= 6
PYTEST_ARGS ?=

.PHONY: run test lint typecheck pytest jstest vectors engine-vectors vocabulary bench clean venv lock image

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Two stamps: .installed-run after `pip install -e .` (the server alone: what make run
# needs), .installed after `pip install -e '.[dev]'` (the test toolchain: Playwright, mypy,
# Textual…), which holds the server's too. A fresh clone's make run installs no dev tool
# (docs/performance.md, "make run on a fresh clone").
$(VENV)/.installed-run: pyproject.toml $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed: pyproject.toml $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

venv: $(VENV)/.installed

# The server says the address to open: the home network's with HOST=0.0.0.0, this
# machine's (http://127.0.0.1:8765/) on 127.0.0.1.
run: $(VENV)/.installed-run
	$(BIN)/war-server --host $(HOST) --port $(PORT)$(if $(filter 1 yes true on,$(OUTSIDE)), --outside)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy

# Six workers: most of the suite waits (servers, browsers, clients over loopback, the game's
# own pacing, Docker), so three times the two cores' count keeps them busy: on a quiet
# machine four used about 55% of the two cores, and six took 7 min 43 s where four took
# 8 min 54 s (README, "Development"; docs/performance.md, "The test suite's cost"). Compiled modules are
# kept (__pycache__, ignored by git and the image) even where PYTHONDONTWRITEBYTECODE is
# set: else each worker rewrites every test module, and each of the over a hundred
# war-server and war-client processes the suite starts compiles the project from source
# again, about a second of CPU a start (docs/performance.md, "The test suite's cost").
pytest: venv
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# The browser table's modules and the shared sentence vectors, with Node's own test runner
# (no npm packages). Without node a workstation skips them, saying so; CI ($CI set) fails.
jstest:
	@if command -v node >/dev/null 2>&1; then node --test tests/client/web/*.test.mjs; \
	elif [ -n "$$CI" ]; then echo "node is not installed (apt-get install nodejs)"; exit 1; \
	else echo "skipped the JavaScript tests: node is not installed (apt-get install nodejs)"; fi

# Rewrite tests/vectors/*.json (the sentences) and tests/vectors/functions/*.json (the
# intents, the reconnect policy, the close reasons, the countdown) from the Python client,
# after a sentence or a decision changed; and tests/vectors/engine/*.json from the Python
# engine and protocol/fairness.py.
vectors: venv engine-vectors
	$(BIN)/python -m tests.vectors.generate
	$(BIN)/python -m tests.vectors.functions
	$(BIN)/python -m tests.vectors.paths

# Rewrite client/web/js/vocabulary.js and client/state/phases.py from the Python sources (after
# an enum, a bound, a default, which close reconnects or the phase table changed).
vocabulary: venv
	$(BIN)/python -m tools.generate_vocabulary

engine-vectors: venv
	$(BIN)/python -m tests.vectors.generate_engine

test: venv
	@$(MAKE) --no-print-directory -k -j4 -O lint typecheck jstest pytest

bench: venv
	$(BIN)/python -m bench.engine

# The Docker image's pinned dependencies, with every file's hash (pip --require-hashes):
# runtime (deploy/requirements.lock) and build backend (deploy/build-requirements.lock).
# Run after changing dependencies or build-system in pyproject.toml, or to take updates.
PIP_COMPILE := $(BIN)/pip-compile --quiet --upgrade --generate-hashes --strip-extras \
	--no-emit-index-url --no-emit-find-links
lock: venv
	$(PIP_COMPILE) --extra client --output-file deploy/requirements.lock pyproject.toml
	$(PIP_COMPILE) --allow-unsafe --only-build-deps --build-deps-for wheel \
		--output-file deploy/build-requirements.lock pyproject.toml

# Build the image on this machine (starting a Docker engine if needed, as root): see
# deploy/image.sh; `make test` then also runs tests/deploy/test_image.py against it.
image:
	deploy/image.sh build

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache .import_linter_cache
