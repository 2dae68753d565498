#!/usr/bin/env bash
# Build the home-server image on this machine and make it ready for tests/deploy/test_image.py.
#
#   deploy/image.sh engine [--install]   a Docker engine that answers (start one if needed)
#   deploy/image.sh base                 the stand-in base image (see below)
#   deploy/image.sh build [--install]    engine + base + `docker build`
#   deploy/image.sh stop                 stop the engine this script started, if running
# engine and build end by printing NAME=value lines for the tests: DOCKER_HOST (empty:
# Docker's default), WAR_IMAGE_TAG and WAR_IMAGE_ID (build), STARTED (1 if this call
# started the engine) and RUN_LOCK (the file that keeps two runs from building at once).
#
# Idempotent: a running engine, the stand-in base image (or its cached root filesystem)
# and Docker's build cache are reused, so a second `build` takes seconds; a change to the
# Dockerfile, the lock files or the sources rebuilds from the first changed step.
#
# The engine. An engine that already answers (DOCKER_HOST, or the default socket) is
# used as it is. Otherwise, as root, the script starts its own dockerd in the background,
# apart from any system Docker: socket $WAR_DOCKER_SOCKET (/run/family-war/docker.sock),
# data in $WAR_DOCKER_ROOT (/var/lib/family-war/docker), the vfs storage driver (works
# on any filesystem, in a container too), no bridge and no iptables rules; builds and
# containers then use the host's network (--network host). `--install` first installs
# Debian's docker.io and debootstrap with apt-get when they are missing (CI does this).
#
# The stand-in base. Where Docker Hub cannot be reached (CI has only package registries),
# the official python image cannot be pulled, so the Dockerfile's PYTHON_IMAGE build
# argument is pointed at a stand-in: Debian bookworm from debootstrap (minbase) with
# python3 and python3-venv, a `python` link, and the machine's CA bundle with a pip
# configuration that uses it, so that pip inside the build reaches the package index the
# way the machine does. The image users build keeps the official base (the Dockerfile's
# default). WAR_IMAGE_BASE=official builds on that default instead (needs Docker Hub).
#
# Exit status: 0 done; 1 a step failed (the build included); 2 usage;
#   3 this platform forbids a container engine (not root and none running, or the
#     kernel refuses the namespaces a container needs);
#   4 Docker or debootstrap is not installed (run with --install as root);
#   5 an engine is allowed here but did not start (its log is printed).
# tests/deploy/test_image.py skips on 3 everywhere, on 4 and 5 outside CI only.
set -euo pipefail
cd "$(dirname "$0")/.."

TAG="${WAR_IMAGE_TAG:-family-war:test}"
BASE_CHOICE="${WAR_IMAGE_BASE:-standin}"
SOCKET="${WAR_DOCKER_SOCKET:-/run/family-war/docker.sock}"
DATA_ROOT="${WAR_DOCKER_ROOT:-/var/lib/family-war/docker}"
RUN_DIR="$(dirname "$SOCKET")"
PIDFILE="$RUN_DIR/dockerd.pid"
ENGINE_LOG="${WAR_DOCKER_LOG:-/var/log/family-war-dockerd.log}"
CACHE="${WAR_IMAGE_CACHE:-/var/cache/family-war}"
MIRROR="${WAR_IMAGE_MIRROR:-http://deb.debian.org/debian}"
SUITE=bookworm
PACKAGES=python3,python3-venv,ca-certificates,passwd
HOST_CA=/etc/ssl/certs/ca-certificates.crt
# Bump when the recipe below changes in a way the package list does not show.
RECIPE=1
STANDIN_TAG="family-war-standin:$SUITE-$(printf '%s' "$SUITE $PACKAGES $RECIPE" | sha256sum | cut -c1-12)"
ENGINE_TIMEOUT=60

say() { printf 'image.sh: %s\n' "$*" >&2; }
die() { local status=$1; shift; say "$*"; exit "$status"; }

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

install_tools() {
    local missing=()
    command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
    command -v docker >/dev/null 2>&1 || missing+=(docker.io)
    if [ "$BASE_CHOICE" = standin ]; then
        command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die 3 "not root: cannot install ${missing[*]}"
    say "installing ${missing[*]} with apt-get"
    local started=$SECONDS
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 apt-get install -y -qq \
        --no-install-recommends $(printf '%s\n' "${missing[@]}" | sort -u) >/dev/null
    say "installed in $((SECONDS - started)) s"
}

answers() { timeout 20 docker info >/dev/null 2>&1; }

# Print the DOCKER_HOST to use (empty: Docker's own default) if an engine answers there.
find_engine() {
    if answers; then
        printf '%s\n' "${DOCKER_HOST:-}"
        return 0
    fi
    if [ -S "$SOCKET" ] && DOCKER_HOST="unix://$SOCKET" answers; then
        printf 'unix://%s\n' "$SOCKET"
        return 0
    fi
    return 1
}

forbidden_reason() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "not root, and no Docker engine answers (set DOCKER_HOST to use one)"
    elif ! unshare --mount --uts --ipc --net --pid --fork true 2>/dev/null; then
        echo "the kernel refuses the namespaces a container needs (unshare failed)"
    fi
}

start_engine() {
    local reason
    reason="$(forbidden_reason)"
    [ -z "$reason" ] || die 3 "no engine can start here: $reason"
    command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 \
        || die 4 "Docker is not installed (deploy/image.sh engine --install, as root)"
    mkdir -p "$RUN_DIR" "$DATA_ROOT" "$(dirname "$ENGINE_LOG")"
    say "starting dockerd (socket $SOCKET, data $DATA_ROOT, log $ENGINE_LOG)"
    setsid dockerd \
        --host "unix://$SOCKET" \
        --data-root "$DATA_ROOT" \
        --exec-root "$RUN_DIR/exec" \
        --pidfile "$PIDFILE" \
        --storage-driver=vfs \
        --iptables=false --ip-forward=false --ip-masq=false --bridge=none \
        </dev/null >>"$ENGINE_LOG" 2>&1 9>&- &  # 9: the run lock, not for the daemon
    local pid=$! started=$SECONDS deadline=$((SECONDS + ENGINE_TIMEOUT))
    until DOCKER_HOST="unix://$SOCKET" answers; do
        if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
            tail -n 30 "$ENGINE_LOG" >&2 || true
            kill "$pid" 2>/dev/null || true
            die 5 "dockerd did not answer within ${ENGINE_TIMEOUT} s (log above)"
        fi
        sleep 0.5
    done
    say "dockerd answers (pid $pid) after $((SECONDS - started)) s"
}

STARTED=0
use_engine() {
    local host
    if ! host="$(find_engine)"; then
        start_engine
        host="unix://$SOCKET"
        STARTED=1
    fi
    if [ -n "$host" ]; then export DOCKER_HOST="$host"; else unset DOCKER_HOST; fi
}

make_standin() {
    if docker image inspect "$STANDIN_TAG" >/dev/null 2>&1; then
        say "stand-in base $STANDIN_TAG is there"
        return 0
    fi
    local tarball="$CACHE/$(echo "$STANDIN_TAG" | tr ':/' '--').tar"
    if [ ! -s "$tarball" ]; then
        command -v debootstrap >/dev/null 2>&1 \
            || die 4 "debootstrap is not installed (deploy/image.sh build --install, as root)"
        [ -r "$HOST_CA" ] || die 1 "no CA bundle at $HOST_CA"
        local rootfs="$CACHE/rootfs.tmp"
        rm -rf "$rootfs"
        mkdir -p "$rootfs"
        say "debootstrap $SUITE (minbase + $PACKAGES) from $MIRROR"
        local started=$SECONDS
        debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$rootfs" "$MIRROR" \
            >"$CACHE/debootstrap.log" 2>&1 \
            || { tail -n 30 "$CACHE/debootstrap.log" >&2; die 1 "debootstrap failed"; }
        ln -sf /usr/bin/python3 "$rootfs/usr/local/bin/python"
        cp "$HOST_CA" "$rootfs/etc/ssl/certs/ca-certificates.crt"
        printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$rootfs/etc/pip.conf"
        # As in Debian's slim images: no documentation, no package lists, no caches.
        rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
            "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old
        tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" .
        mv "$tarball.tmp" "$tarball"
        rm -rf "$rootfs"
        say "root filesystem ready in $((SECONDS - started)) s"
    fi
    say "importing $tarball as $STANDIN_TAG"
    local imported=$SECONDS
    docker import \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["python3"]' \
        "$tarball" "$STANDIN_TAG" >/dev/null
    say "imported in $((SECONDS - imported)) s"
}

base_image() {
    case "$BASE_CHOICE" in
        standin) echo "$STANDIN_TAG" ;;
        official) echo "" ;;
        *) die 2 "WAR_IMAGE_BASE must be standin or official, not '$BASE_CHOICE'" ;;
    esac
}

build() {
    local base args=(--network host --tag "$TAG") started
    base="$(base_image)"
    if [ -n "$base" ]; then
        make_standin
        args+=(--build-arg "PYTHON_IMAGE=$base" --label "org.family-war.base=$base")
    fi
    started=$SECONDS
    say "building $TAG${base:+ on $base}"
    # The legacy builder when no buildx plugin is installed (Debian's docker.io): it
    # needs no registry and honours --network host for pip.
    docker build "${args[@]}" . >&2
    say "built $TAG in $((SECONDS - started)) s"
    # Tests run the image by its ID: another checkout may build the same tag meanwhile.
    IMAGE_ID="$(docker image inspect --format '{{.Id}}' "$TAG")"
    if [ "${DOCKER_HOST:-}" = "unix://$SOCKET" ]; then
        # Our own engine only: drop images that earlier builds left untagged a day ago.
        docker image prune --force --filter until=24h >/dev/null || true
    fi
}

stop_engine() {
    [ -s "$PIDFILE" ] || { say "no engine of ours is running"; return 0; }
    local pid
    pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then
        say "stopping dockerd (pid $pid)"
        kill -TERM "$pid"
        local deadline=$((SECONDS + ENGINE_TIMEOUT))
        while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    fi
}

# One run at a time on a machine (two test runs may start together).
RUN_LOCK="${WAR_IMAGE_LOCK:-${TMPDIR:-/tmp}/family-war-image.lock}"
lock_runs() {
    exec 9>>"$RUN_LOCK"
    flock --wait 900 9 || die 1 "another deploy/image.sh still runs after 900 s ($RUN_LOCK)"
}

command="${1:-}"
[ $# -gt 0 ] && shift
install=0
for arg in "$@"; do
    case "$arg" in
        --install) install=1 ;;
        *) usage ;;
    esac
done

case "$command" in
    engine | base | build) lock_runs ;;
esac
case "$command" in
    engine)
        [ $install -eq 0 ] || install_tools
        use_engine
        echo "DOCKER_HOST=${DOCKER_HOST:-}"
        echo "STARTED=$STARTED"
        echo "RUN_LOCK=$RUN_LOCK"
        ;;
    base)
        use_engine
        make_standin
        ;;
    build)
        [ $install -eq 0 ] || install_tools
        use_engine
        build
        echo "DOCKER_HOST=${DOCKER_HOST:-}"
        echo "WAR_IMAGE_TAG=$TAG"
        echo "WAR_IMAGE_ID=$IMAGE_ID"
        echo "STARTED=$STARTED"
        echo "RUN_LOCK=$RUN_LOCK"
        ;;
    stop) stop_engine ;;
    *) usage ;;
esac
