"""The image's lock files: exact versions with hashes, in step with pyproject.toml.

deploy/requirements.lock holds the server's runtime dependencies and
deploy/build-requirements.lock the build backend; both come from `make lock`
(pip-compile --generate-hashes) and the Dockerfile installs them with pip
--require-hashes. A dependency added to pyproject.toml without `make lock` fails here,
not later in the image build.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.deploy._lock import BUILD_LOCK, RUNTIME_LOCK, read_lock
from tests.deploy._repo import REPO, stages

MAKEFILE = REPO / "Makefile"


def _project() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements(kind: str) -> list[Requirement]:
    data = _project()
    if kind == "runtime":
        project = data["project"]
        assert isinstance(project, dict)
        # the server's dependencies and the client extra (the image's own war-client --plain)
        extras = project["optional-dependencies"]
        assert isinstance(extras, dict)
        return [Requirement(r) for r in [*project["dependencies"], *extras["client"]]]
    system = data["build-system"]
    assert isinstance(system, dict)
    return [Requirement(r) for r in system["requires"]]


LOCKS = [
    pytest.param(RUNTIME_LOCK, "runtime", "family-war (pyproject.toml)", id="runtime"),
    pytest.param(
        BUILD_LOCK, "build", "family-war (pyproject.toml::build-system.requires)", id="build"
    ),
]


@pytest.mark.parametrize(("lock", "kind", "asked_by"), LOCKS)
def test_lock_pins_exactly_what_pyproject_asks_for(lock: Path, kind: str, asked_by: str) -> None:
    pins = read_lock(lock.read_text(encoding="utf-8"))
    wanted = {canonicalize_name(r.name): r for r in _requirements(kind)}
    direct = {name for name, pin in pins.items() if asked_by in pin.via}
    assert direct == set(wanted), "pyproject.toml changed: run `make lock`"
    for name, requirement in wanted.items():
        assert requirement.specifier.contains(pins[name].version, prereleases=True), name
    for package, pin in pins.items():
        assert pin.hashes, f"{package} has no hash"
        assert pin.via, f"{package} is in the lock but nothing needs it"


def test_runtime_lock_leaves_out_the_terminal_table_and_dev_tools() -> None:
    pins = read_lock(RUNTIME_LOCK.read_text(encoding="utf-8"))
    project = _project()["project"]
    assert isinstance(project, dict)
    extras = {
        canonicalize_name(Requirement(r).name)
        for name in ("tui", "dev")
        for r in project["optional-dependencies"][name]
    }
    assert "textual" in extras
    assert not set(pins) & extras


def test_lock_reader_refuses_an_unpinned_line() -> None:
    assert read_lock("a==1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via b\n")["a"].via
    with pytest.raises(ValueError, match="not a pinned requirement"):
        read_lock("a>=1.0\n")


def test_the_image_installs_both_locks_with_hashes_checked() -> None:
    runs = [i.value for s in stages() for i in s.all("RUN")]
    for lock in (RUNTIME_LOCK, BUILD_LOCK):
        relative = str(lock.relative_to(REPO))
        installs = [r for r in runs if f"--require-hashes -r {relative}" in " ".join(r.split())]
        assert installs, f"no pip install --require-hashes -r {relative}"
        copied = [i.value for s in stages() for i in s.all("COPY") if relative in i.value]
        assert copied, f"{relative} is not copied into the build"


def test_make_lock_writes_both_files_with_hashes() -> None:
    makefile = MAKEFILE.read_text(encoding="utf-8")
    target = makefile[makefile.index("\nlock:") :].split("\n\n")[0]
    assert "--generate-hashes" in makefile
    for lock in (RUNTIME_LOCK, BUILD_LOCK):
        assert f"--output-file {lock.relative_to(REPO)}" in target
        assert "--generate-hashes" in lock.read_text(encoding="utf-8")
