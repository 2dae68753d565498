#!/bin/sh
# Re-vendor uqr's ES module build (a QR code encoder, the invitation's picture) from the
# npm registry; run it by hand, as update.sh for msgpack (the page never needs Node or a
# CDN at run time).
#
#   client/web/vendor/update-uqr.sh          # the pinned version below
#   client/web/vendor/update-uqr.sh 0.1.4    # another version (then update PINNED here)
#
# npm checks the package's registry integrity (sha512) while packing it. The one module
# (dist/index.mjs, no imports of its own) is kept unmodified, with the licence; SHA256SUMS
# records their checksums (tests/client/web/test_vendor.py checks them) and SOURCE says
# where they came from. The page loads it only when an invitation is shown (js/qr.js).
set -eu

PINNED=0.1.3
VERSION="${1:-$PINNED}"

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/uqr"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "uqr@$VERSION" > packed.txt
tarball=$(tail -n 1 packed.txt)
integrity=$(npm view "uqr@$VERSION" dist.integrity)
tar xzf "$tarball"

rm -rf "$dest"
mkdir -p "$dest"
cp package/LICENSE "$dest/LICENSE"
cp package/dist/index.mjs "$dest/index.mjs"
cd "$dest"
sha256sum LICENSE index.mjs > SHA256SUMS
cat > SOURCE <<SOURCE
uqr $VERSION from the npm registry (https://www.npmjs.com/package/uqr)
tarball integrity: $integrity
files: dist/index.mjs (the ES module build, no imports), unmodified
licence: MIT (LICENSE)
re-vendor with: client/web/vendor/update-uqr.sh [VERSION]
SOURCE
echo "vendored uqr $VERSION into $dest"
