#!/bin/sh
# Re-vendor @msgpack/msgpack's ES module build from the npm registry (run it by hand; the
# page never needs Node or a CDN at run time).
#
#   client/web/vendor/update.sh            # the pinned version below
#   client/web/vendor/update.sh 3.1.4      # another version (then update PINNED here)
#
# npm checks the package's registry integrity (sha512) while packing it. Only the modules
# the Encoder and Decoder classes import are kept, unmodified, with the licence; SHA256SUMS
# records their checksums (tests/client/web/test_vendor.py checks them) and SOURCE says
# where they came from. Run `make test` afterwards: the browser tests use the new build.
set -eu

PINNED=3.1.3
VERSION="${1:-$PINNED}"
FILES="Encoder.mjs Decoder.mjs DecodeError.mjs ExtData.mjs
ExtensionCodec.mjs timestamp.mjs CachedKeyDecoder.mjs utils/int.mjs utils/utf8.mjs
utils/typedArrays.mjs utils/prettyByte.mjs"

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/msgpack"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "@msgpack/msgpack@$VERSION" > packed.txt
tarball=$(tail -n 1 packed.txt)
integrity=$(npm view "@msgpack/msgpack@$VERSION" dist.integrity)
tar xzf "$tarball"

rm -rf "$dest"
mkdir -p "$dest/utils"
cp package/LICENSE "$dest/LICENSE"
for file in $FILES; do
    cp "package/dist.esm/$file" "$dest/$file"
done
cd "$dest"
# shellcheck disable=SC2086 # FILES is a list of names without spaces
sha256sum LICENSE $FILES > SHA256SUMS
cat > SOURCE <<SOURCE
@msgpack/msgpack $VERSION from the npm registry (https://www.npmjs.com/package/@msgpack/msgpack)
tarball integrity: $integrity
files: dist.esm/ (the ES module build), only what Encoder and Decoder import, unmodified
licence: ISC (LICENSE)
re-vendor with: client/web/vendor/update.sh [VERSION]
SOURCE
echo "vendored @msgpack/msgpack $VERSION into $dest"
