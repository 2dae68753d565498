"""Issue 11's transport attacks, in a process of their own (so that the attacker's own
work never slows the load generator that measures the honest rooms).

    python -m bench._attack nonreader --port P --count 2 --watch-code CODE [--forwarded]
    python -m bench._attack trickle --port P --count 400

``nonreader``: ``count`` connections that each watch a room with a small receive buffer,
stop reading, and send pings as fast as the server reads them (each asks for a pong
they never read); when one is dropped, another takes its place.
``trickle``: ``count`` connections kept open that each send the start of an upgrade
request and never finish it, from `TRICKLE_SOURCE` (another loopback address: the
server's per-address caps then count the attacker apart from the honest load, which
comes from 127.0.0.1); when one is dropped, another takes its place.

Runs until SIGTERM or SIGINT, then prints one JSON line: how many connections were
made and how each ended. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import socket
from collections import Counter

from bench._rawws import HandshakeError, connect
from protocol import WatchRoom, encode

__all__ = ["TRICKLE_SOURCE", "main"]

HOST = "127.0.0.1"
TRICKLE_SOURCE = "127.0.0.2"
_PINGS = b"".join(b"\x89\xfd" + bytes(4) + bytes(125) for _ in range(256))
"""256 masked pings (key 0) of the largest control payload, 125 bytes"""
_CLIENT_BUFFER = 1 << 20  # the nonreader's own unsent bytes it lets pile up at most
_HALF_REQUEST = b"GET / HTTP/1.1\r\nHost: war\r\nUpgrade: websocket\r\n"


def _ignore(payload: bytes, is_text: bool) -> None:
    return None


async def nonreader(port: int, code: str, address: str | None, ends: Counter[str]) -> None:
    """One non-reading client after another."""
    headers = [("X-Forwarded-For", address)] if address else []
    while True:
        try:
            ws = await connect(HOST, port, _ignore, rcvbuf=2048, within=30, headers=headers)
        except HandshakeError as error:
            ends["429" if " 429 " in str(error) else "refused"] += 1
            await asyncio.sleep(0)
            continue
        except OSError as error:
            ends[type(error).__name__] += 1
            continue
        ws.send(encode(WatchRoom(code=code)))
        ws.pause_reading()
        try:
            while not ws.closed.done():
                transport = ws.transport
                if transport is None or transport.is_closing():
                    break
                if transport.get_write_buffer_size() > _CLIENT_BUFFER:
                    await asyncio.sleep(0.01)  # the server stopped reading: wait for it
                    continue
                ws.send_raw(_PINGS)
                await asyncio.sleep(0)
            ends["dropped"] += 1
        finally:
            ws.abort()


async def trickle(port: int, ends: Counter[str]) -> None:
    """One half-finished upgrade after another."""
    loop = asyncio.get_running_loop()
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((TRICKLE_SOURCE, 0))
            await loop.sock_connect(sock, (HOST, port))
            await loop.sock_sendall(sock, _HALF_REQUEST)
            await loop.sock_recv(sock, 1)  # until the server drops it
            ends["dropped"] += 1
        except OSError as error:
            ends[type(error).__name__] += 1
        finally:
            sock.close()


async def _run(args: argparse.Namespace) -> Counter[str]:
    ends: Counter[str] = Counter()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if args.kind == "nonreader":
        tasks = [
            asyncio.create_task(
                nonreader(
                    args.port,
                    args.watch_code[n % len(args.watch_code)],
                    f"203.0.113.{200 + n % 50}" if args.forwarded else None,
                    ends,
                )
            )
            for n in range(args.count)
        ]
    else:
        tasks = [asyncio.create_task(trickle(args.port, ends)) for _ in range(args.count)]
    await stop.wait()
    for task in tasks:
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.gather(*tasks, return_exceptions=True)
    return ends


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench._attack", description=__doc__)
    parser.add_argument("kind", choices=("nonreader", "trickle"))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=2)
    parser.add_argument("--watch-code", action="append", default=[])
    parser.add_argument("--forwarded", action="store_true", help="X-Forwarded-For addresses")
    args = parser.parse_args()
    if args.kind == "nonreader" and not args.watch_code:
        parser.error("nonreader needs --watch-code")
    ends = asyncio.run(_run(args))
    print(json.dumps({"kind": args.kind, "ends": dict(ends)}), flush=True)


if __name__ == "__main__":
    main()
