"""Container health check for war-server: exit 0 if GET /healthz answers 200 with JSON.

The Docker image runs this as its HEALTHCHECK (python:*-slim ships no curl). It uses the
standard library only, reads the same environment as war-server (WAR_HOST, WAR_PORT,
WAR_CERTFILE) and asks the server on its own machine:

- a wildcard WAR_HOST (0.0.0.0, ::, empty) is asked on loopback, any other on itself;
- with WAR_CERTFILE set the server speaks TLS, so the check does too. The certificate is
  for the public domain, not for loopback, so it is not verified: the check only asks
  "is the server I share a machine with answering?".

Exit status: 0 healthy, 1 unhealthy (one line on stderr says why).
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import ssl
import sys
from collections.abc import Mapping

__all__ = ["UnhealthyError", "check", "main", "target"]

DEFAULT_PORT = 8765
TIMEOUT_SECONDS = 4.0
# WAR_HOST values that mean "every address"; the check asks loopback of the same family.
_WILDCARD_TO_LOOPBACK = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "::1"}  # noqa: S104


class UnhealthyError(Exception):
    """The server did not answer /healthz with 200 and a JSON object."""


def target(env: Mapping[str, str]) -> tuple[str, int, bool]:
    """Return (host, port, use_tls) to ask, from war-server's environment variables.

    Raises UnhealthyError if WAR_PORT is not a port number.
    """
    host = env.get("WAR_HOST", "").strip()
    host = _WILDCARD_TO_LOOPBACK.get(host, host)
    raw_port = env.get("WAR_PORT", "").strip() or str(DEFAULT_PORT)
    try:
        port = int(raw_port)
    except ValueError:
        raise UnhealthyError(f"WAR_PORT is not a number: {raw_port!r}") from None
    if not 0 < port < 65536:
        raise UnhealthyError(f"WAR_PORT out of range: {port}")
    return host, port, bool(env.get("WAR_CERTFILE", "").strip())


def _bracketed(host: str) -> str:
    try:
        return f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        return host


def check(host: str, port: int, *, use_tls: bool, timeout: float = TIMEOUT_SECONDS) -> object:
    """Ask GET /healthz on host:port; return the decoded JSON object it answered.

    Raises UnhealthyError on a connection failure, a status other than 200, or a body
    that is not a JSON object.
    """
    conn: http.client.HTTPConnection
    if use_tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # the server on this machine, see module doc
        conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
    where = f"{_bracketed(host)}:{port}"
    try:
        conn.request("GET", "/healthz", headers={"Connection": "close"})
        response = conn.getresponse()
        body = response.read(65536)
    except OSError as exc:
        raise UnhealthyError(f"no answer from {where}: {exc}") from None
    except http.client.HTTPException as exc:
        raise UnhealthyError(f"bad answer from {where}: {exc!r}") from None
    finally:
        conn.close()
    if response.status != 200:
        raise UnhealthyError(f"/healthz on {where} answered {response.status}")
    try:
        status = json.loads(body)
    except ValueError:
        raise UnhealthyError(f"/healthz on {where} answered non-JSON: {body[:80]!r}") from None
    if not isinstance(status, dict):
        raise UnhealthyError(f"/healthz on {where} answered JSON that is not an object")
    return status


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the check against the environment; return the exit status (0 healthy, 1 not)."""
    try:
        host, port, use_tls = target(os.environ if env is None else env)
        check(host, port, use_tls=use_tls)
    except UnhealthyError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
