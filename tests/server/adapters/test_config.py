"""server.adapters.settings.config: flags over environment over defaults, validation, and --help."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from protocol import CreateRoom, TalkSetting
from server.adapters.settings.config import (
    OPTIONS,
    ConfigError,
    LogFormat,
    LogLevel,
    SecondPathOffer,
    Settings,
    build_parser,
    default_db_path,
    load_settings,
)
from server.core.settings import HubSettings, declared
from tests.server.core._roomkit import RoomKit, error_codes

HOME = {"HOME": "/home/ann"}
CONTRACT = {  # the settings of docs/hosting.md: flag -> (env, default as parsed)
    "--host": ("WAR_HOST", "127.0.0.1"),
    "--port": ("WAR_PORT", 8765),
    "--db": ("WAR_DB", Path("/home/ann/.local/share/family-war/war.sqlite3")),
    "--password": ("WAR_PASSWORD", None),
    "--log-format": ("WAR_LOG_FORMAT", LogFormat.AUTO),
    "--log-level": ("WAR_LOG_LEVEL", LogLevel.INFO),
    "--certfile": ("WAR_CERTFILE", None),
    "--keyfile": ("WAR_KEYFILE", None),
    "--max-rooms": ("WAR_MAX_ROOMS", 500),
    "--max-rooms-per-ip": ("WAR_MAX_ROOMS_PER_IP", 20),
    "--max-spectators": ("WAR_MAX_SPECTATORS", 20),
    "--max-connections-per-ip": ("WAR_MAX_CONNECTIONS_PER_IP", 32),
    "--max-message-bytes": ("WAR_MAX_MESSAGE_BYTES", 4096),
    "--rate-limit": ("WAR_RATE_LIMIT", 20.0),
    "--connect-rate": ("WAR_CONNECT_RATE", 5.0),
    "--connect-burst": ("WAR_CONNECT_BURST", 32),
    "--page-rate": ("WAR_PAGE_RATE", 30.0),
    "--page-burst": ("WAR_PAGE_BURST", 240),
    "--abuse-penalty": ("WAR_ABUSE_PENALTY", 10.0),
    "--abuse-penalty-max": ("WAR_ABUSE_PENALTY_MAX", 300.0),
    "--max-failed-joins": ("WAR_MAX_FAILED_JOINS", 10),
    "--idle-room-minutes": ("WAR_IDLE_ROOM_MINUTES", 1440),
    "--idle-waiting-room-minutes": ("WAR_IDLE_WAITING_ROOM_MINUTES", 30),
    "--idle-computer-room-minutes": ("WAR_IDLE_COMPUTER_ROOM_MINUTES", 30),
    "--away-timeout": ("WAR_AWAY_TIMEOUT", 120.0),
    "--talk": ("WAR_TALK", TalkSetting.ALL),
    "--trusted-proxies": ("WAR_TRUSTED_PROXIES", ()),
    "--max-send-buffer": ("WAR_MAX_SEND_BUFFER", 262144),
    "--send-timeout": ("WAR_SEND_TIMEOUT", 20.0),
    "--handshake-timeout": ("WAR_HANDSHAKE_TIMEOUT", 5.0),
    "--max-handshakes-per-ip": ("WAR_MAX_HANDSHAKES_PER_IP", 32),
    "--allowed-origins": ("WAR_ALLOWED_ORIGINS", ()),
    "--allowed-hosts": ("WAR_ALLOWED_HOSTS", ()),
    "--public-url": ("WAR_PUBLIC_URL", None),
    "--health-counts": ("WAR_HEALTH_COUNTS", False),
    "--no-web": ("WAR_NO_WEB", False),
    "--outside": ("WAR_OUTSIDE", False),
    "--outside-port": ("WAR_OUTSIDE_PORT", 443),
    "--outside-lan-port": ("WAR_OUTSIDE_LAN_PORT", 8443),
    "--outside-check": ("WAR_OUTSIDE_CHECK", 300.0),
    "--acme-directory": ("WAR_ACME_DIRECTORY", "https://acme-v02.api.letsencrypt.org/directory"),
    "--acme-ca-file": ("WAR_ACME_CA_FILE", None),
    "--second-path": ("WAR_SECOND_PATH", SecondPathOffer.OUTSIDE),
}
SWITCHES = {"--no-web", "--health-counts", "--outside"}  # flags without a value


def test_defaults_match_the_contract() -> None:
    settings = load_settings([], HOME)
    assert {o.flag: o.env for o in OPTIONS} == {f: env for f, (env, _) in CONTRACT.items()}
    for option in OPTIONS:
        assert getattr(settings, option.field) == CONTRACT[option.flag][1], option.flag
    assert not settings.tls


def test_help_names_every_variable_and_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        load_settings(["--help"], HOME)
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for flag, (env, _) in CONTRACT.items():
        value = "" if flag in SWITCHES else " [A-Z_]+"
        pattern = rf"{re.escape(flag)}{value} .*?\(env {env}, default [^)]+\)"
        assert re.search(pattern, text), flag
    assert set(re.findall(r"\bWAR_[A-Z_]+", text)) == {env for env, _ in CONTRACT.values()}
    assert "(env WAR_PORT, default 8765)" in text
    assert "1012" in text  # what SIGTERM does


def test_help_never_breaks_the_default_path() -> None:
    text = build_parser().format_help()
    assert "family-war/war.sqlite3" in text


def test_every_variable_is_read() -> None:
    env = {
        **HOME,
        "WAR_HOST": "0.0.0.0",
        "WAR_PORT": "9000",
        "WAR_DB": "/data/war.sqlite3",
        "WAR_PASSWORD": "a long family secret",
        "WAR_LOG_FORMAT": "JSON",
        "WAR_LOG_LEVEL": "Debug",
        "WAR_MAX_ROOMS": "7",
        "WAR_MAX_SPECTATORS": "0",
        "WAR_MAX_CONNECTIONS_PER_IP": "3",
        "WAR_MAX_MESSAGE_BYTES": "8192",
        "WAR_RATE_LIMIT": "2.5",
        "WAR_CONNECT_RATE": "0.5",
        "WAR_CONNECT_BURST": "8",
        "WAR_ABUSE_PENALTY": "30",
        "WAR_ABUSE_PENALTY_MAX": "3600",
        "WAR_MAX_FAILED_JOINS": "4",
        "WAR_IDLE_ROOM_MINUTES": "60",
        "WAR_AWAY_TIMEOUT": "90",
        "WAR_TALK": " Reactions",
    }
    settings = load_settings([], env)
    assert settings.host == "0.0.0.0"
    assert settings.port == 9000
    assert settings.db == Path("/data/war.sqlite3")
    assert settings.password == "a long family secret"
    assert settings.log_format is LogFormat.JSON
    assert settings.log_level is LogLevel.DEBUG
    assert (settings.max_rooms, settings.max_spectators) == (7, 0)
    assert settings.max_connections_per_ip == 3
    assert settings.max_message_bytes == 8192
    assert settings.rate_limit == 2.5
    assert (settings.connect_rate, settings.connect_burst) == (0.5, 8)
    assert (settings.abuse_penalty, settings.abuse_penalty_max) == (30.0, 3600.0)
    assert settings.max_failed_joins == 4
    assert settings.idle_room_minutes == 60
    assert settings.away_timeout == 90.0
    assert settings.talk is TalkSetting.REACTIONS


def test_flag_wins_over_variable() -> None:
    env = {**HOME, "WAR_PORT": "9000", "WAR_PASSWORD": "from-env"}
    settings = load_settings(["--port", "9100", "--password", "from-flag"], env)
    assert settings.port == 9100
    assert settings.password == "from-flag"


def test_empty_variable_counts_as_unset() -> None:
    settings = load_settings([], {**HOME, "WAR_PASSWORD": "", "WAR_PORT": "  "})
    assert settings.password is None
    assert settings.port == 8765


@pytest.mark.parametrize("blank", [" ", "   ", "\u3000 "])
def test_a_password_variable_of_only_spaces_is_refused_like_the_flag(blank: str) -> None:
    """Blank means unset for other variables, never for the password: a silent "no
    password" would open the server to anyone."""
    with pytest.raises(ConfigError, match=r"^WAR_PASSWORD: the password is only spaces"):
        load_settings([], {**HOME, "WAR_PASSWORD": blank})
    with pytest.raises(ConfigError, match=r"^--password: the password is only spaces"):
        load_settings(["--password", blank], HOME)


@pytest.mark.parametrize(
    "networks",
    [
        "0.0.0.0/0",
        "::/0",
        "0.0.0.0/1,128.0.0.0/1",
        "127.0.0.1, 0.0.0.0/4",
        "2000::/3",
        "::/8",
        "::ffff:0:0/96",
        "::ffff:0.0.0.0/97",
        "::/64",
    ],
)
def test_trusted_proxies_covering_the_internet_are_refused(networks: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_settings(["--trusted-proxies", networks], HOME)
    assert str(error.value).startswith("--trusted-proxies: ")
    assert "would let anyone on the internet choose" in str(error.value)
    with pytest.raises(ConfigError, match=r"^WAR_TRUSTED_PROXIES: "):
        load_settings([], {**HOME, "WAR_TRUSTED_PROXIES": networks})


@pytest.mark.parametrize(
    "networks",
    [
        "127.0.0.1,::1",
        "172.30.87.10",
        "10.0.0.0/8",
        "192.168.0.0/16",
        "fc00::/7",
        "fe80::/10",
        "203.0.113.7",
        "104.16.0.0/13,2a06:98c0::/29",
        "::ffff:10.0.0.0/104",
    ],
)
def test_trusted_proxies_of_a_proxy_or_a_private_network_are_accepted(networks: str) -> None:
    settings = load_settings(["--trusted-proxies", networks], HOME)
    assert len(settings.trusted_proxies) == len(networks.split(","))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://example.org", ("https://example.org",)),
        ("HTTPS://Example.ORG:443/", ("https://example.org",)),
        (
            "http://192.168.1.20:8765, https://[2001:db8::1]:8443",
            (
                "http://192.168.1.20:8765",
                "https://[2001:db8::1]:8443",
            ),
        ),
        ("null", ("null",)),
        ("none", ()),
    ],
)
def test_allowed_origins_are_read_in_their_normal_form(
    text: str, expected: tuple[str, ...]
) -> None:
    assert load_settings(["--allowed-origins", text], HOME).allowed_origins == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("example.org", "not an origin (scheme://host[:port]): 'example.org'"),
        ("ftp://example.org", "not an origin (scheme://host[:port]): 'ftp://example.org'"),
        ("https://example.org/page", "an origin has no path: 'https://example.org/page'"),
        ("https://example.org:99999", "not an origin (scheme://host[:port])"),
        ("*", "not an origin (scheme://host[:port]): '*'"),
    ],
)
def test_bad_allowed_origins_are_named(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_settings(["--allowed-origins", text], HOME)
    assert str(error.value).startswith(f"--allowed-origins: {message}")


def test_default_db_follows_xdg_data_home() -> None:
    assert default_db_path({"XDG_DATA_HOME": "/xdg", **HOME}) == Path("/xdg/family-war/war.sqlite3")
    # a relative XDG_DATA_HOME is invalid per the spec and ignored
    assert default_db_path({"XDG_DATA_HOME": "rel", **HOME}) == Path(
        "/home/ann/.local/share/family-war/war.sqlite3"
    )


def test_tilde_in_db_path_is_expanded() -> None:
    settings = load_settings(["--db", "~/w.sqlite3"], HOME)
    assert settings.db.is_absolute()
    assert settings.db.name == "w.sqlite3"


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--port", "http"], {}, "--port: not a whole number: 'http'"),
        ([], {"WAR_PORT": "70000"}, "WAR_PORT: 70000 is out of range 0..65535"),
        (["--max-rooms", "0"], {}, "--max-rooms: 0 is out of range 1..1000000"),
        (["--max-message-bytes", "100"], {}, "--max-message-bytes: 100 is out of range 512"),
        (["--rate-limit", "0"], {}, "--rate-limit: 0 must be a finite number greater than 0"),
        ([], {"WAR_RATE_LIMIT": "nan"}, "WAR_RATE_LIMIT: nan must be a finite number"),
        (["--away-timeout", "-1"], {}, "--away-timeout: -1 must be a finite number at least 0"),
        (["--connect-rate", "0"], {}, "--connect-rate: 0 must be a finite number greater than 0"),
        ([], {"WAR_CONNECT_BURST": "0"}, "WAR_CONNECT_BURST: 0 is out of range 1..1000000"),
        (["--abuse-penalty", "inf"], {}, "--abuse-penalty: inf must be a finite number"),
        (
            ["--abuse-penalty", "600"],
            {},
            "--abuse-penalty 600 is longer than --abuse-penalty-max 300",
        ),
        (
            [],
            {"WAR_ABUSE_PENALTY": "20", "WAR_ABUSE_PENALTY_MAX": "15"},
            "--abuse-penalty 20 is longer than --abuse-penalty-max 15",
        ),
        (["--log-format", "xml"], {}, "--log-format: 'xml' is not one of auto, console, json"),
        ([], {"WAR_LOG_LEVEL": "loud"}, "WAR_LOG_LEVEL: 'loud' is not one of debug"),
        (["--password", "x" * 129], {}, "--password: the password has 129 characters"),
        (
            ["--password", "a\nb"],
            {},
            "--password: the password contains a control or format character",
        ),
        (["--password", "   "], {}, "--password: the password is only spaces"),
        (["--host", "a b"], {}, "--host: not a host name or address: 'a b'"),
        (["--password", "ab\u202ecd"], {}, "--password: the password contains a control or"),
        (["--max-send-buffer", "1000"], {}, "--max-send-buffer: 1000 is out of range 65536"),
        ([], {"WAR_SEND_TIMEOUT": "0"}, "WAR_SEND_TIMEOUT: 0 must be a finite number greater"),
        (["--handshake-timeout", "-1"], {}, "--handshake-timeout: -1 must be a finite number"),
        (["--max-handshakes-per-ip", "0"], {}, "--max-handshakes-per-ip: 0 is out of range 1"),
        (["--certfile", "/nonexistent/cert.pem"], {}, "--certfile: no such file"),
        ([], {"WAR_NO_WEB": "maybe"}, "WAR_NO_WEB: 'maybe' is not one of 1, true, yes, on"),
    ],
)
def test_bad_values_are_named(argv: list[str], env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_settings(argv, {**HOME, **env})
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("argv", "env", "no_web"),
    [
        ([], {}, False),
        (["--no-web"], {}, True),
        ([], {"WAR_NO_WEB": "1"}, True),
        ([], {"WAR_NO_WEB": " Yes "}, True),
        ([], {"WAR_NO_WEB": "off"}, False),
        ([], {"WAR_NO_WEB": "false"}, False),
        (["--no-web"], {"WAR_NO_WEB": "0"}, True),  # the flag wins
    ],
)
def test_no_web_switch(argv: list[str], env: dict[str, str], no_web: bool) -> None:
    assert load_settings(argv, {**HOME, **env}).no_web is no_web


def test_no_web_takes_no_value(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load_settings(["--no-web", "yes"], HOME)
    assert "unrecognized arguments: yes" in capsys.readouterr().err


def test_tls_needs_both_files(tmp_path: Path) -> None:
    cert = tmp_path / "cert.pem"
    key = tmp_path / "key.pem"
    cert.write_text("x")
    key.write_text("y")
    with pytest.raises(ConfigError, match="--certfile needs --keyfile too"):
        load_settings(["--certfile", str(cert)], HOME)
    with pytest.raises(ConfigError, match="--keyfile needs --certfile too"):
        load_settings([], {**HOME, "WAR_KEYFILE": str(key)})
    settings = load_settings(["--certfile", str(cert)], {**HOME, "WAR_KEYFILE": str(key)})
    assert (settings.certfile, settings.keyfile, settings.tls) == (cert, key, True)


def test_unknown_flag_exits_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        load_settings(["--prot", "1"], HOME)
    assert exit_info.value.code == 2
    assert "unrecognized arguments: --prot" in capsys.readouterr().err


def test_repr_hides_the_password() -> None:
    settings = load_settings(["--password", "hunter2-family"], HOME)
    assert "hunter2" not in repr(settings)
    assert "password='***'" not in repr(load_settings([], HOME))


def test_settings_are_frozen() -> None:
    settings = Settings(db=Path("x"))
    with pytest.raises(AttributeError):
        settings.port = 1  # type: ignore[misc]


def test_each_setting_is_declared_once_under_one_name() -> None:
    """One declaration per setting: its flag and variable are its field's name, its help
    and its --help default come from the declaration, and nothing is left undeclared."""
    options = {option.field: option for option in OPTIONS}
    for field, declaration in declared(Settings):
        if not declaration.flag:
            assert field.name not in options
            continue
        option = options.pop(field.name)
        assert option.flag == "--" + field.name.replace("_", "-")
        assert option.env == "WAR_" + field.name.upper()
        assert option.help == declaration.help
        assert option.parse is declaration.parse
    assert options == {}
    assert {f.name for f in dataclasses.fields(Settings)} == {f.name for f, _ in declared(Settings)}
    assert {f.name for f in dataclasses.fields(HubSettings)} <= {
        f.name for f in dataclasses.fields(Settings)
    }


def test_the_room_core_gets_the_settings_as_they_were_read() -> None:
    """``--max-rooms-per-ip 1`` reaches the hub under that name: no mapping between."""
    settings = load_settings(["--max-rooms-per-ip", "1", "--away-timeout", "7"], HOME)
    assert isinstance(settings, HubSettings)
    kit = RoomKit(settings)
    kit.send(kit.connect(), CreateRoom(name="Ann"))
    assert error_codes(kit.send(kit.connect(), CreateRoom(name="Eve"))) == ["too_many_rooms"]
    assert kit.hub.rooms == 1


def test_the_acme_directory_must_be_https() -> None:
    """The CA's replies must be authentic: http:// and junk are refused at start."""
    assert load_settings(["--acme-directory", "https://ca.test:14000/dir"], HOME).acme_directory
    for bad in ("http://ca.test/dir", "ftp://ca.test/", "https://", "https://u@ca.test/", "x"):
        with pytest.raises(ConfigError, match="acme-directory"):
            load_settings(["--acme-directory", bad], HOME)
    on = load_settings([], {**HOME, "WAR_OUTSIDE": "on", "WAR_OUTSIDE_PORT": "8443"})
    assert on.outside and on.outside_port == 8443


@pytest.mark.parametrize("text", ["0.5", "3601", "nan", "inf", "soon"])
def test_the_outside_check_is_bounded(text: str) -> None:
    with pytest.raises(ConfigError, match=r"^WAR_OUTSIDE_CHECK: "):
        load_settings([], {**HOME, "WAR_OUTSIDE_CHECK": text})
    assert load_settings(["--outside-check", "1"], HOME).outside_check == 1.0
