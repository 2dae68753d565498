"""Both deployments give war-server many file descriptors (one per connection)."""

from __future__ import annotations

from tests.deploy._image import compose_run_options
from tests.deploy._repo import SYSTEMD_UNIT, compose, env_example

UNIT = 65536  # systemd raises it as it likes
CONTAINER = 16384  # no more than an engine of 20,000 descriptors can give


def test_the_systemd_unit_sets_limit_nofile() -> None:
    lines = [line.strip() for line in SYSTEMD_UNIT.read_text(encoding="utf-8").splitlines()]
    assert f"LimitNOFILE={UNIT}" in lines


def test_the_compose_file_sets_nofile_for_the_war_service() -> None:
    nofile = compose()["services"]["war"]["ulimits"]["nofile"]
    assert (nofile["soft"], nofile["hard"]) == (CONTAINER, CONTAINER)


def test_the_image_tests_run_the_container_with_that_limit() -> None:
    options = compose_run_options(compose()["services"]["war"], env_example(), volume="v")
    assert f"--ulimit=nofile={CONTAINER}:{CONTAINER}" in options
