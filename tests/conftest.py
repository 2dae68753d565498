"""Shared test settings.

In CI (the ``CI`` environment variable set, as ``.ci/run`` is run), hypothesis tries the
same examples on every run, so a red CI run means the code changed, not a lucky draw.
Local runs stay random and keep exploring; a failure they find is saved in
``.hypothesis/`` and should become an ``@example`` or a test of its own.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev")
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
