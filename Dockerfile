# family-war: the home-server image. How to use it: docs/hosting.md.
#
# Two stages. "build" installs the server's runtime dependencies from a lock file (exact
# versions, every file's hash checked) and then the project itself into a virtualenv at
# /opt/venv; the final stage copies just that virtualenv, so no source tree, pip, build
# tooling, dev or test dependency and no Textual (the terminal table's library, an
# optional extra) ends up in the image. Both stages use the same base, so the
# virtualenv's interpreter path is valid.
#
# The base is pinned to an exact Python patch release and Debian release. To pin it by
# digest as well: `docker buildx imagetools inspect python:3.12.12-slim-bookworm`, then
# write PYTHON_IMAGE=python:3.12.12-slim-bookworm@sha256:<digest> below.
# PYTHON_IMAGE is a build argument only so that CI, which cannot pull from Docker Hub,
# can build on a stand-in with the same layout (deploy/image.sh); users keep this default.
ARG PYTHON_IMAGE=python:3.12.12-slim-bookworm

FROM ${PYTHON_IMAGE} AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

# Dependencies first, in a layer of their own that is rebuilt only when a lock file
# changes. Refresh the locks with `make lock`. /opt/build holds the build backend
# (setuptools, wheel), pinned as well; it stays in this stage.
COPY deploy/requirements.lock deploy/build-requirements.lock deploy/
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --require-hashes -r deploy/requirements.lock \
    && python -m venv /opt/build \
    && /opt/build/bin/pip install --no-cache-dir --require-hashes \
        -r deploy/build-requirements.lock

# Then the project, as a wheel built with those locked build tools (no build isolation,
# so nothing unpinned is fetched); the lock already holds its dependencies (pip check
# fails the build if one is missing). pip and setuptools then leave the virtualenv.
COPY pyproject.toml README.md ./
COPY protocol/ protocol/
COPY vocabulary/ vocabulary/
COPY server/ server/
COPY client/ client/
RUN /opt/build/bin/pip wheel --no-cache-dir --no-deps --no-build-isolation \
        --wheel-dir /tmp/wheels . \
    && /opt/venv/bin/pip install --no-cache-dir --no-deps /tmp/wheels/family_war-*.whl \
    && /opt/venv/bin/pip check \
    && /opt/venv/bin/pip uninstall --yes pip setuptools


FROM ${PYTHON_IMAGE}

LABEL org.opencontainers.image.title="family-war" \
      org.opencontainers.image.description="War card game server for families (war-server)" \
      org.opencontainers.image.documentation="docs/hosting.md"

# A fixed, unprivileged account (uid/gid 10001) that owns the store directory. A named
# volume mounted at /data starts as a copy of this directory, so it inherits the owner.
RUN groupadd --system --gid 10001 war \
    && useradd --system --uid 10001 --gid war --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin war \
    && mkdir -p /data \
    && chown war:war /data \
    && chmod 0700 /data

COPY --from=build /opt/venv /opt/venv
COPY deploy/healthcheck.py /opt/war/healthcheck.py

# Settings the image fixes. Everything else (password, limits, log format) comes from
# the environment at run time; docker-compose.yml passes those from .env.
ENV PATH="/opt/venv/bin:${PATH}" \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    WAR_HOST=0.0.0.0 \
    WAR_PORT=8765 \
    WAR_DB=/data/war.sqlite3

VOLUME ["/data"]
WORKDIR /data
USER 10001:10001
EXPOSE 8765

# war-server runs as PID 1 with no init process in front of it: it starts no child
# processes (no zombies to reap) and installs its own SIGTERM/SIGINT handlers (stop
# accepting, close clients with 1012, flush the store, exit 0). A PID 1 without a
# handler would ignore SIGTERM; tests/deploy/test_image_command.py runs the server as
# PID 1 of its own PID namespace and checks that SIGTERM stops it with exit status 0.
STOPSIGNAL SIGTERM

# python:*-slim has no curl; the check is a small stdlib script that asks /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "/opt/war/healthcheck.py"]

ENTRYPOINT ["war-server"]
CMD []
