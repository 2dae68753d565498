"""docker-compose.outside.yml: what ``--outside`` needs of the container's networking.

The router is found only from the host's network (UPnP's discovery is a multicast on the
home network, NAT-PMP and PCP talk to the default gateway, and the router must forward to
the host's own address): the override puts the war service on the host's network, drops
the published ports (they mean nothing there), switches WAR_OUTSIDE on and trusts no
proxy (the outside listener is the server's own). Checked structurally: CI's image tests
run the image on Docker's bridge network, where no router answers.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML

from tests.deploy._interpolate import interpolate
from tests.deploy._repo import REPO, compose, env_example

OVERRIDE = REPO / "docker-compose.outside.yml"


def _override() -> dict[str, Any]:
    loaded = YAML(typ="rt").load(OVERRIDE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_the_override_puts_the_server_on_the_hosts_network_with_outside_on() -> None:
    war = _override()["services"]["war"]
    assert war["network_mode"] == "host"
    assert list(war["ports"]) == []
    assert war["ports"].tag.value == "!reset"  # compose's: drop the base file's ports
    environment = dict(war["environment"])
    assert interpolate(environment["WAR_OUTSIDE"], {}) == "on"
    # a .env copied from .env.example (WAR_OUTSIDE=off, for the base file) keeps it on
    assert interpolate(environment["WAR_OUTSIDE"], env_example()) == "on"
    assert environment["WAR_TRUSTED_PROXIES"] == "none"
    assert interpolate(environment["WAR_PASSWORD"], {}) == ""  # optional: the house creates


def test_the_override_changes_only_the_war_service_of_the_base_file() -> None:
    assert set(_override()["services"]) == {"war"}
    assert "war" in compose()["services"]


def test_the_base_file_keeps_outside_off_by_default() -> None:
    environment = compose()["services"]["war"]["environment"]
    assert interpolate(environment["WAR_OUTSIDE"], {}) == "off"
    assert interpolate(environment["WAR_OUTSIDE"], env_example()) == "off"
    assert interpolate(environment["WAR_OUTSIDE_PORT"], env_example()) == "443"
    assert interpolate(environment["WAR_OUTSIDE_LAN_PORT"], env_example()) == "8443"
