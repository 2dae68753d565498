"""Just enough of a Dockerfile and .dockerignore reader for the deployment tests.

Sans-I/O. It understands the instructions the project's Dockerfile uses (FROM, ARG
before the first FROM with a default, ENV in ``KEY=value`` form, COPY, exec-form
CMD/ENTRYPOINT/HEALTHCHECK, ...) and refuses the rest loudly rather than guessing, so a
Dockerfile change that these tests cannot follow fails here instead of being checked
wrongly.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

__all__ = [
    "DockerfileError",
    "Healthcheck",
    "Instruction",
    "Stage",
    "base_args",
    "copy_sources",
    "dockerignore_excludes",
    "env_pairs",
    "exec_form",
    "healthcheck",
    "parse_dockerfile",
]


class DockerfileError(ValueError):
    """The Dockerfile uses a form these tests do not read."""


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction: upper-case keyword, the rest of its (joined) line, its line number."""

    keyword: str
    value: str
    line: int


@dataclass(frozen=True, slots=True)
class Stage:
    """A build stage: its FROM image, its ``AS`` name, and its instructions after FROM.

    ``image`` is what a build without ``--build-arg`` uses (global ARG defaults
    substituted); ``written`` is the FROM line's image as written.
    """

    image: str
    name: str | None
    instructions: tuple[Instruction, ...]
    written: str = ""

    def all(self, keyword: str) -> list[Instruction]:
        """Every instruction of this stage with ``keyword``, in order."""
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        """The last instruction with ``keyword`` (the one Docker uses), or None."""
        found = self.all(keyword)
        return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class Healthcheck:
    """A HEALTHCHECK: its ``--option=value`` flags and its exec-form command."""

    options: dict[str, str]
    command: list[str]


def _logical_lines(text: str) -> list[tuple[int, str]]:
    lines: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue  # comments, also inside a continued instruction, and blank lines
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        lines.append((start, " ".join(p for p in pending if p)))
        pending = []
    if pending:
        raise DockerfileError(f"line {start}: instruction ends in a line continuation")
    return lines


_ARG_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def base_args(text: str) -> dict[str, str]:
    """The ``ARG NAME=default`` lines before the first FROM: name -> default.

    Raises DockerfileError for an ARG there without a default (FROM could not be read).
    """
    args: dict[str, str] = {}
    for number, line in _logical_lines(text):
        keyword, _, value = line.partition(" ")
        if keyword.upper() == "FROM":
            break
        if keyword.upper() == "ARG":
            name, sep, default = value.strip().partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise DockerfileError(f"line {number}: ARG needs NAME=default: {value!r}")
            args[name] = default.strip().strip('"')
    return args


def _substitute(image: str, args: dict[str, str], number: int) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in args:
            raise DockerfileError(f"line {number}: FROM uses ${name}, no ARG before FROM sets it")
        return args[name]

    return _ARG_REFERENCE.sub(value, image)


def parse_dockerfile(text: str) -> list[Stage]:
    """Split a Dockerfile into its stages.

    Raises DockerfileError if an instruction comes before the first FROM (ARG aside), a
    FROM line is malformed, or it names a build argument without a default.
    """
    args = base_args(text)
    stages: list[Stage] = []
    current: tuple[str, str | None, int] | None = None
    body: list[Instruction] = []

    def close() -> None:
        if current is not None:
            written, name, number = current
            image = _substitute(written, args, number)
            stages.append(Stage(image, name, tuple(body), written))

    for number, line in _logical_lines(text):
        keyword, _, value = line.partition(" ")
        keyword = keyword.upper()
        value = value.strip()
        if keyword == "FROM":
            close()
            words = value.split()
            if len(words) == 1:
                current = (words[0], None, number)
            elif len(words) == 3 and words[1].upper() == "AS":
                current = (words[0], words[2], number)
            else:
                raise DockerfileError(f"line {number}: cannot read FROM {value!r}")
            body = []
            continue
        if current is None:
            if keyword == "ARG":
                continue
            raise DockerfileError(f"line {number}: {keyword} before the first FROM")
        body.append(Instruction(keyword, value, number))
    if current is None:
        raise DockerfileError("no FROM instruction")
    close()
    return stages


def exec_form(instruction: Instruction) -> list[str]:
    """The JSON array of an exec-form CMD/ENTRYPOINT/RUN.

    Raises DockerfileError for the shell form or an array that is not all strings.
    """
    try:
        value = json.loads(instruction.value)
    except ValueError:
        raise DockerfileError(
            f"line {instruction.line}: {instruction.keyword} is not in exec form: "
            f"{instruction.value!r}"
        ) from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DockerfileError(f"line {instruction.line}: {instruction.keyword} is not a list")
    return [str(v) for v in value]


def env_pairs(instruction: Instruction) -> dict[str, str]:
    """The variables an ``ENV KEY=value ...`` instruction sets (values unexpanded).

    Raises DockerfileError for the legacy ``ENV KEY value`` form.
    """
    pairs: dict[str, str] = {}
    for word in shlex.split(instruction.value):
        key, sep, value = word.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise DockerfileError(f"line {instruction.line}: ENV must be KEY=value: {word!r}")
        pairs[key] = value
    return pairs


def healthcheck(instruction: Instruction) -> Healthcheck:
    """Read ``HEALTHCHECK [--opt=value ...] CMD [json array]``.

    Raises DockerfileError for ``HEALTHCHECK NONE``, a shell-form command or bad options.
    """
    options: dict[str, str] = {}
    rest = instruction.value
    while rest.startswith("--"):
        option, _, rest = rest.partition(" ")
        key, sep, value = option[2:].partition("=")
        if not sep:
            raise DockerfileError(f"line {instruction.line}: bad HEALTHCHECK option {option!r}")
        options[key] = value
        rest = rest.lstrip()
    keyword, _, command = rest.partition(" ")
    if keyword.upper() != "CMD":
        raise DockerfileError(f"line {instruction.line}: HEALTHCHECK without CMD: {rest!r}")
    return Healthcheck(
        options, exec_form(Instruction("HEALTHCHECK CMD", command.strip(), instruction.line))
    )


def copy_sources(instruction: Instruction) -> tuple[dict[str, str], list[str], str]:
    """Read ``COPY [--flag=value ...] src... dest``: (flags, sources, destination).

    Raises DockerfileError for the JSON form or fewer than two paths.
    """
    words = instruction.value.split()
    flags: dict[str, str] = {}
    while words and words[0].startswith("--"):
        key, _, value = words.pop(0)[2:].partition("=")
        flags[key] = value
    if len(words) < 2 or words[0].startswith("["):
        raise DockerfileError(f"line {instruction.line}: cannot read COPY {instruction.value!r}")
    return flags, words[:-1], words[-1]


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.index("]", i)
            out.append(pattern[i : end + 1])
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def dockerignore_excludes(dockerignore: str, path: str) -> bool:
    """True if .dockerignore text ``dockerignore`` leaves ``path`` out of the build context.

    Docker's rules: patterns in order, the last one matching wins; a pattern matches a
    path or any of its parent folders; ``!`` re-includes; ``**`` spans folders.
    """
    parts = path.strip("/").split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for raw in dockerignore.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:].strip() if negate else line
        regex = _pattern_regex(pattern.strip("/"))
        if any(regex.fullmatch(c) for c in candidates):
            excluded = not negate
    return excluded
