#!/bin/sh
# Re-vendor the page's three libraries from the npm registry (run it by hand; the page
# never needs Node or a CDN at run time):
#   @msgpack/msgpack's minified build (msgpack/msgpack.min.js), the wire's codec, which
#   index.html runs as a classic script before the modules (js/msgpack.js takes it from
#   there): a fifth of the size of its ES module build;
#   fast-sha256's minified build (fast-sha256/sha256.min.js, 6 KiB: SHA-256 and
#   HMAC-SHA256), a UMD script that js/sha256.js loads only where the page has no
#   crypto.subtle (a page served over plain http from a LAN address is no secure context):
#   a seed's commitment when sitting down, and the fair-deal check at game over;
#   lean-qr's nano build (lean-qr/nano.mjs, one minified ES module), a QR code encoder for
#   the invitation's picture, loaded only when an invitation is shown (js/qr.js).
#
#   client/web/vendor/update.sh                  # all three, at the pinned versions below
#   client/web/vendor/update.sh msgpack 3.1.4    # one, at another version (then update
#   client/web/vendor/update.sh fast-sha256 1.3.1 #   its PINNED line here)
#   client/web/vendor/update.sh lean-qr 2.7.5
#
# npm checks each package's registry integrity (sha512) while packing it. Only the modules
# the page imports (and what they import) are kept, unmodified, with the licence;
# SHA256SUMS records their checksums (tests/client/web/test_vendor.py checks them) and
# SOURCE says where they came from. Run `make test` afterwards: the browser tests and the
# fair-deal vectors use the new build.
set -eu

PINNED=3.1.3
SHA256_PINNED=1.3.0
LEANQR_PINNED=2.7.4

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# vendor PACKAGE VERSION DEST FROM LICENCE WHAT FILES...
vendor() {
    package=$1 version=$2 dest="$here/$3" from=$4 licence=$5 what=$6
    shift 6
    rm -rf "$work/package" "$work"/*.tgz
    (cd "$work" && npm pack --silent "$package@$version" > packed.txt)
    tarball=$(tail -n 1 "$work/packed.txt")
    integrity=$(npm view "$package@$version" dist.integrity)
    tar xzf "$work/$tarball" -C "$work"
    rm -rf "$dest"
    mkdir -p "$dest"
    cp "$work/package/LICENSE" "$dest/LICENSE"
    for file in "$@"; do
        mkdir -p "$(dirname "$dest/$file")"
        cp "$work/package/$from$file" "$dest/$file"
    done
    (cd "$dest" && sha256sum LICENSE "$@" > SHA256SUMS)
    cat > "$dest/SOURCE" <<SOURCE
$package $version from the npm registry (https://www.npmjs.com/package/$package)
tarball integrity: $integrity
files: $what, unmodified
licence: $licence (LICENSE)
re-vendor with: client/web/vendor/update.sh [PACKAGE VERSION]
SOURCE
    echo "vendored $package $version into $dest"
}

msgpack() {
    # shellcheck disable=SC2086 # the file lists are names without spaces
    vendor @msgpack/msgpack "$1" msgpack dist.umd/ ISC \
        "dist.umd/msgpack.min.js (the minified build; its source map is left out)" msgpack.min.js
    # the build is a UMD script, not a module: node's require (js/msgpack.js) reads it as
    # CommonJS only with this, since ../../package.json makes .js files modules
    printf '{"type": "commonjs"}\n' > "$here/msgpack/package.json"
}

fastsha256() {
    vendor fast-sha256 "$1" fast-sha256 "" Unlicense \
        "sha256.min.js (the minified UMD build: SHA-256 and HMAC-SHA256, no imports)" sha256.min.js
    # a UMD script too: node's require (js/sha256.js) reads it as CommonJS only with this
    printf '{"type": "commonjs"}\n' > "$here/fast-sha256/package.json"
}

leanqr() {
    vendor lean-qr "$1" lean-qr "" MIT "nano.mjs (the nano ES module build, no imports)" nano.mjs
}

case "${1:-all}" in
    all) msgpack "$PINNED"; fastsha256 "$SHA256_PINNED"; leanqr "$LEANQR_PINNED" ;;
    msgpack) msgpack "${2:-$PINNED}" ;;
    fast-sha256) fastsha256 "${2:-$SHA256_PINNED}" ;;
    lean-qr) leanqr "${2:-$LEANQR_PINNED}" ;;
    *) echo "usage: $0 [msgpack|fast-sha256|lean-qr [VERSION]]" >&2; exit 2 ;;
esac
