"""The Dockerfile: hadolint, then the properties the hosting guide promises."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests.deploy._dockerfile import (
    DockerfileError,
    base_args,
    copy_sources,
    dockerignore_excludes,
    env_pairs,
    exec_form,
    healthcheck,
    parse_dockerfile,
)
from tests.deploy._repo import (
    DOCKERFILE,
    DOCKERIGNORE,
    HEALTHCHECK_SCRIPT,
    REPO,
    final_stage,
    image_env,
    stages,
    venv_script,
)

# Strict: any finding at any level (style included) fails; images only from Docker Hub.
HADOLINT_CONFIG = "failure-threshold: style\nignored: []\ntrustedRegistries:\n  - docker.io\n"
# An exact Python patch release (python:3.12.12-slim-bookworm), or a digest.
PINNED = re.compile(r"^[\w./-]+:\d+\.\d+\.\d+(?:-[\w.-]+)?(?:@sha256:[0-9a-f]{64})?$|@sha256:")


def _hadolint(dockerfile: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    binary = venv_script("hadolint")
    if binary is None:
        pytest.fail("hadolint not found: install the dev extra (pip install -e '.[dev]')")
    config = tmp_path / "hadolint.yaml"
    config.write_text(HADOLINT_CONFIG, encoding="utf-8")
    return subprocess.run(
        [str(binary), "--config", str(config), "--no-color", "--format", "json", str(dockerfile)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_hadolint_finds_nothing(tmp_path: Path) -> None:
    result = _hadolint(DOCKERFILE, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout or "[]") == []


def test_hadolint_is_really_linting(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text(
        "FROM ghcr.io/example/python\nRUN cd /src && pip install flask\nCMD python app.py\n",
        encoding="utf-8",
    )
    result = _hadolint(bad, tmp_path)
    assert result.returncode != 0
    codes = {finding["code"] for finding in json.loads(result.stdout)}
    assert {"DL3026", "DL3003", "DL3013", "DL3042", "DL3025"} <= codes


def test_every_base_image_is_pinned_and_shared() -> None:
    names = {s.name for s in stages() if s.name}
    bases = {s.image for s in stages() if s.image not in names}
    for image in bases:
        assert PINNED.search(image), f"base image not pinned to a patch release: {image}"
    # The virtualenv built in one stage runs in another: same interpreter path needed.
    assert len(bases) == 1, f"stages use different base images: {sorted(bases)}"


def test_the_base_is_a_build_argument_defaulting_to_the_official_image() -> None:
    """CI builds on a stand-in base (deploy/image.sh); a plain `docker build` does not."""
    defaults = base_args(DOCKERFILE.read_text(encoding="utf-8"))
    assert list(defaults) == ["PYTHON_IMAGE"]
    assert defaults["PYTHON_IMAGE"].startswith("python:")
    assert PINNED.search(defaults["PYTHON_IMAGE"])
    names = {s.name for s in stages() if s.name}
    assert [s.written for s in stages() if s.written not in names] == ["${PYTHON_IMAGE}"] * 2


def test_runs_as_an_unprivileged_user() -> None:
    user = final_stage().last("USER")
    assert user is not None, "final stage has no USER: the server would run as root"
    uid = user.value.split(":")[0]
    assert uid not in {"0", "root"}
    if uid.isdigit():
        # The account that owns /data must be the one the image runs as.
        runs = " ".join(i.value for i in final_stage().all("RUN"))
        assert f"--uid {uid}" in runs


def test_installs_the_project_without_tests_or_dev_extra() -> None:
    all_instructions = [i for s in stages() for i in s.instructions]
    pip_runs = [
        i.value for i in all_instructions if i.keyword == "RUN" and "pip install" in i.value
    ]
    assert pip_runs, "no pip install in the Dockerfile"
    for run in pip_runs:
        assert "--no-cache-dir" in run
        assert "[dev]" not in run and "-e " not in run, run
    copied = [src for i in all_instructions if i.keyword == "COPY" for src in copy_sources(i)[1]]
    assert not any(src.rstrip("/") in {".", "tests"} for src in copied), copied
    assert not [i for i in all_instructions if i.keyword == "ADD"]


def test_entrypoint_is_war_server_in_exec_form() -> None:
    entrypoint = final_stage().last("ENTRYPOINT")
    assert entrypoint is not None
    assert exec_form(entrypoint) == ["war-server"]
    cmd = final_stage().last("CMD")
    if cmd is not None:
        exec_form(cmd)  # raises for shell form, which would put /bin/sh at PID 1
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert "war-server" in scripts


def test_stops_with_sigterm() -> None:
    stop = final_stage().last("STOPSIGNAL")
    assert stop is not None and stop.value == "SIGTERM"


def test_store_on_a_volume_and_listening_on_all_addresses() -> None:
    env = image_env()
    assert env["WAR_HOST"] == "0.0.0.0"
    volumes = [json.loads(v.value) for v in final_stage().all("VOLUME")]
    assert ["/data"] in volumes
    assert Path(env["WAR_DB"]).parent == Path("/data")
    exposed = [e.value for e in final_stage().all("EXPOSE")]
    assert exposed == [env["WAR_PORT"]]


def test_healthcheck_runs_the_stdlib_script_in_exec_form() -> None:
    instruction = final_stage().last("HEALTHCHECK")
    assert instruction is not None
    check = healthcheck(instruction)
    assert set(check.options) >= {"interval", "timeout", "retries", "start-period"}
    assert check.command[0] == "python"
    copies = {dest: srcs for _, srcs, dest in map(copy_sources, final_stage().all("COPY"))}
    assert copies[check.command[1]] == [str(HEALTHCHECK_SCRIPT.relative_to(REPO))]
    fetchers = [i for i in final_stage().instructions if re.search(r"\b(curl|wget)\b", i.value)]
    assert not fetchers, "the slim base has no curl/wget; the check must not need them"


def _context_sources() -> list[str]:
    return [
        src.rstrip("/")
        for s in stages()
        for flags, srcs, _ in map(copy_sources, s.all("COPY"))
        if "from" not in flags
        for src in srcs
    ]


def test_dockerignore_keeps_what_copy_needs_and_drops_the_rest() -> None:
    ignore = DOCKERIGNORE.read_text(encoding="utf-8")
    for source in _context_sources():
        assert (REPO / source).exists(), f"COPY source missing: {source}"
        assert not dockerignore_excludes(ignore, source), f".dockerignore drops {source}"
    for kept_out in [
        ".git/HEAD",
        ".venv/bin/python",
        ".env",
        "tests/deploy/test_dockerfile.py",
        "docs/hosting.md",
        "bench/engine.py",
        "server/__pycache__/cli.cpython-312.pyc",
        "war.sqlite3",
        "server/war.sqlite3-wal",
    ]:
        assert dockerignore_excludes(ignore, kept_out), f"{kept_out} reaches the build context"


def test_build_stage_copies_what_pyproject_needs_to_build() -> None:
    """`pip install .` in the build stage sees only the COPY'd files: they must suffice."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    copied = set(_context_sources())
    assert "pyproject.toml" in copied
    assert pyproject["project"]["readme"] in copied
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {
        path.name
        for path in REPO.iterdir()
        if (path / "__init__.py").exists() and any(fnmatch(path.name, p) for p in include)
    }
    assert packages == {"server", "client", "protocol", "vocabulary"}
    assert packages <= copied
    for script in pyproject["project"]["scripts"].values():
        assert script.split(".")[0] in copied, script


def test_build_context_holds_only_copied_files() -> None:
    ignore = DOCKERIGNORE.read_text(encoding="utf-8")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    in_context = [path for path in tracked if not dockerignore_excludes(ignore, path)]
    sources = _context_sources()
    assert in_context
    for path in in_context:
        assert any(path == s or path.startswith(s + "/") for s in sources), path


@pytest.mark.parametrize(
    ("patterns", "path", "excluded"),
    [
        ("*\n!server/\n", "server/adapters/cli.py", False),
        ("*\n!server/\n", "tests/x.py", True),
        ("*\n!server/\n**/__pycache__\n", "server/__pycache__/a.pyc", True),
        ("*.md\n", "README.md", True),
        ("*.md\n", "docs/hosting.md", False),
        ("**/*.md\n", "docs/hosting.md", True),
        ("docs\n!docs/keep.md\n", "docs/keep.md", False),
        ("", "anything", False),
    ],
)
def test_dockerignore_matcher(patterns: str, path: str, excluded: bool) -> None:
    assert dockerignore_excludes(patterns, path) is excluded


def test_dockerfile_reader_refuses_what_it_cannot_follow() -> None:
    with pytest.raises(DockerfileError, match="before the first FROM"):
        parse_dockerfile("RUN true\nFROM x:1.2.3\n")
    (stage,) = parse_dockerfile("FROM x:1.2.3\nCMD war-server --port 1\nENV A 1\n")
    with pytest.raises(DockerfileError, match="not in exec form"):
        exec_form(stage.instructions[0])
    with pytest.raises(DockerfileError, match="KEY=value"):
        env_pairs(stage.instructions[1])
    with pytest.raises(DockerfileError, match=r"uses \$BASE"):
        parse_dockerfile("FROM $BASE\n")
    with pytest.raises(DockerfileError, match="NAME=default"):
        parse_dockerfile("ARG BASE\nFROM ${BASE}\n")


def test_dockerfile_reader_substitutes_build_argument_defaults() -> None:
    build, final = parse_dockerfile("ARG B=x:1.2.3\nFROM ${B} AS build\nFROM $B\n")
    assert (build.image, build.name, build.written) == ("x:1.2.3", "build", "${B}")
    assert (final.image, final.name, final.written) == ("x:1.2.3", None, "$B")
