# family-war: the home-server image. How to use it: docs/hosting.md.
#
# Two stages. "build" installs the project (its runtime dependencies only, never the
# tests or the dev extra) into a virtualenv at /opt/venv; the final stage copies just
# that virtualenv, so no source tree, pip cache or build tooling ends up in the image.
# Both stages use the same pinned base so the virtualenv's interpreter path is valid.
#
# The base is pinned to an exact Python patch release and Debian release. To pin it by
# digest as well: `docker buildx imagetools inspect python:3.12.12-slim-bookworm`, then
# write FROM python:3.12.12-slim-bookworm@sha256:<digest> in both stages.

FROM python:3.12.12-slim-bookworm AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv

WORKDIR /src
COPY pyproject.toml README.md ./
COPY protocol/ protocol/
COPY vocabulary/ vocabulary/
COPY server/ server/
COPY client/ client/
RUN /opt/venv/bin/pip install --no-cache-dir .


FROM python:3.12.12-slim-bookworm

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
