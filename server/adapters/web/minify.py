"""Private: the child process that minifies the page with tdewolff-minify.

``python -m server.adapters.web.minify`` reads a JSON list of ``[suffix, text]`` pairs
(``.js``, ``.css``, ``.html``) on stdin and writes the JSON list of their minified texts,
in order, on stdout. `server.adapters.web.compact.compact_all` runs it once per page load, so
that the Go library (and its runtime's threads and changes to the process's limits) never
loads into the server itself.
"""

from __future__ import annotations

import json
import sys

from server.adapters.web.compact import minifiers


def main() -> int:
    items = json.load(sys.stdin)
    name, minify = minifiers(go=True)
    if not name.startswith("tdewolff-minify"):
        print("tdewolff-minify is not installed", file=sys.stderr)
        return 1
    json.dump([minify[suffix](text) for suffix, text in items], sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
