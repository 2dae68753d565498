"""server.adapters.logs: formats, levels, bound context, secrets redacted, quiet handshakes."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from server.adapters.logs import bind, configure_logging, get_logger
from server.adapters.settings.config import LogFormat, LogLevel


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_war_server", False):
            root.removeHandler(handler)


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line]


def test_json_lines_carry_event_level_time_and_bound_context() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.JSON, LogLevel.INFO, stream=out)
    bind(conn=7, room="r8k2", seat=1)
    get_logger().info("ready_sent", step=3)
    (line,) = lines(out)
    assert line["event"] == "ready_sent"
    assert line["level"] == "info"
    assert (line["conn"], line["room"], line["seat"], line["step"]) == (7, "r8k2", 1, 3)
    assert str(line["timestamp"]).endswith("Z")


def test_secrets_are_redacted_whatever_their_value() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.JSON, LogLevel.INFO, stream=out)
    bind(token="q7XsecretTOKEN123456")
    get_logger().info(
        "oops",
        password="hunter2hunter2",
        player_code="K7MX-QD4R",
        watch_code="9HWT-2CBN",
        code="ABCD-EFGH",
        key="f1Tq0mWk2c9ZQd8bNw7a-A",
        path_key="Zz9Tq0mWk2c9ZQd8bNw7aB",
    )
    text = out.getvalue()
    for secret in ("q7XsecretTOKEN", "hunter2", "BLUE-OTTER", "CALM-FROG", "ABCD-EFGH"):
        assert secret not in text
    assert "f1Tq0mWk2c9ZQd8bNw7a-A" not in text and "Zz9Tq0mWk2c9ZQd8bNw7aB" not in text
    (line,) = lines(out)
    assert line["token"] == line["password"] == line["code"] == "[redacted]"
    assert line["key"] == line["path_key"] == "[redacted]"


def test_level_filters_lower_lines() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.JSON, LogLevel.WARNING, stream=out)
    log = get_logger()
    log.info("hidden")
    log.warning("shown")
    assert [line["event"] for line in lines(out)] == ["shown"]


def test_auto_is_json_off_a_terminal_and_console_on_one() -> None:
    pipe = io.StringIO()
    configure_logging(LogFormat.AUTO, LogLevel.INFO, stream=pipe)
    get_logger().info("piped", n=1)
    assert json.loads(pipe.getvalue())["event"] == "piped"

    tty = FakeTty()
    configure_logging(LogFormat.AUTO, LogLevel.INFO, stream=tty)
    get_logger().info("on_a_terminal", n=1)
    text = tty.getvalue()
    assert "on_a_terminal" in text
    assert not text.lstrip().startswith("{")


def test_console_format_forced_even_when_piped() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.CONSOLE, LogLevel.INFO, stream=out)
    get_logger().info("forced", n=1)
    assert "forced" in out.getvalue()
    assert "n=1" in out.getvalue()


def test_standard_library_lines_share_the_format_and_redaction() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.JSON, LogLevel.INFO, stream=out)
    logging.getLogger("somewhere").warning("disk %s is slow", "sda")
    (line,) = lines(out)
    assert line["event"] == "disk sda is slow"
    assert line["level"] == "warning"


def test_a_failed_handshake_is_one_info_line_without_traceback() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.JSON, LogLevel.INFO, stream=out)
    try:
        raise ValueError("invalid HTTP request line: \\x16\\x03\\x01")
    except ValueError:
        logging.getLogger("websockets.server").error("opening handshake failed", exc_info=True)
    (line,) = lines(out)
    assert line["event"] == "handshake_failed"
    assert line["level"] == "info"
    assert "invalid HTTP request line" in str(line["reason"])
    assert "Traceback" not in out.getvalue()


def test_configuring_twice_does_not_double_lines() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure_logging(LogFormat.JSON, LogLevel.INFO, stream=first)
    configure_logging(LogFormat.JSON, LogLevel.INFO, stream=second)
    logging.getLogger("x").warning("once")
    assert first.getvalue() == ""
    assert len(lines(second)) == 1
