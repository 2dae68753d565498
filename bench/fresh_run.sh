#!/bin/sh
# make run on a fresh clone: how long until the server listens, the .venv's size and its
# packages (docs/performance.md, "make run on a fresh clone").
#
#   bench/fresh_run.sh [REV ...]    each REV (default HEAD) cloned from this repository into
#                                   a temporary folder, then `make run PORT=0` timed
#
# pip's cache is left as it is (a warm cache, as on a machine that installed once before);
# the server listens on 127.0.0.1 on a free port and is stopped by its process group.
set -u
repo=$(git rev-parse --show-toplevel) || exit 1
[ $# -gt 0 ] || set -- HEAD
for rev in "$@"; do
    dir=$(mktemp -d)
    git clone -q "$repo" "$dir/clone" && git -C "$dir/clone" checkout -q "$(git -C "$repo" rev-parse "$rev")" || exit 1
    cd "$dir/clone" || exit 1
    start=$(date +%s.%N)
    setsid make run PORT=0 > run.log 2>&1 &
    pid=$!
    until grep -q listening run.log; do
        if ! kill -0 "$pid" 2>/dev/null; then echo "$rev: make run stopped"; cat run.log; exit 1; fi
        sleep 0.2
    done
    end=$(date +%s.%N)
    echo "$rev: listening after $(echo "$end - $start" | bc) s; .venv $(du -sm .venv | cut -f1) MB, $(.venv/bin/python -m pip list 2>/dev/null | tail -n +3 | wc -l) packages; load $(cut -d' ' -f1-3 /proc/loadavg)"
    kill -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    cd "$repo" && rm -rf "$dir"
done
