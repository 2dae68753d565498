"""``war-client --local``: a ``war-server`` child process just for this game.

The child listens on a free loopback port with a store in a temporary folder (removed
afterwards); its log lines go to a file there, not onto the table. :meth:`LocalServer.start`
returns once ``GET /healthz`` answers 200; :meth:`LocalServer.stop` ends the child with
SIGTERM (the server's clean shutdown), then SIGKILL if it does not go.
"""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from client.errors import LocalServerError

__all__ = ["LocalServer", "free_port"]

_POLL_SECONDS = 0.05


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LocalServer:
    """A ``war-server`` child on 127.0.0.1 (use as a context manager)."""

    def __init__(self, *, start_timeout: float = 20.0) -> None:
        self.start_timeout = start_timeout
        self.port = 0
        self._folder: Path | None = None
        self._child: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``ws://`` address of the child."""
        return f"ws://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path | None:
        """The child's log file (while the temporary folder exists)."""
        return None if self._folder is None else self._folder / "server.log"

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> str:
        """Start the child and wait until it answers ``/healthz``; return its url.

        Raises:
            LocalServerError: the child exited, or did not answer in ``start_timeout``.
        """
        self._folder = Path(tempfile.mkdtemp(prefix="war-local-"))
        self.port = free_port()
        command = [
            sys.executable,
            "-m",
            "server.adapters.cli",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            str(self._folder / "war.sqlite3"),
            "--log-format",
            "json",
        ]
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
        log_path = self._folder / "server.log"
        with log_path.open("wb") as log:
            self._child = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env
            )
        self._wait_healthy()
        return self.url

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        child = self._child
        assert child is not None
        while time.monotonic() < deadline:
            if child.poll() is not None:
                self.stop()
                raise LocalServerError(
                    f"the local war-server exited with status {child.returncode}: "
                    f"{self._log_tail()}"
                )
            if self._healthy():
                return
            time.sleep(_POLL_SECONDS)
        tail = self._log_tail()
        self.stop()
        raise LocalServerError(
            f"the local war-server did not answer /healthz within {self.start_timeout:g} s: {tail}"
        )

    def _healthy(self) -> bool:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1.0)
        try:
            connection.request("GET", "/healthz")
            return connection.getresponse().status == 200
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()

    def _log_tail(self) -> str:
        path = self.log_path
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path else []
        except OSError:
            lines = []
        return lines[-1][:300] if lines else "no log output"

    def stop(self) -> None:
        """Stop the child (SIGTERM, then SIGKILL after 10 s) and remove the folder."""
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        folder, self._folder = self._folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
