"""A slow, lossy link in user space, for kernels without ``tc netem`` (sch_netem).

`LinkEmulator` delays, drops and paces the packets one network namespace sends to one
address, as ``tc qdisc add dev eth0 root netem delay 80ms loss 1% rate 10mbit`` on that
namespace's interface would (netem too acts on what an interface sends only):

- a TUN device in the namespace takes the route to ``target`` (``ip route``, with the
  namespace's own source address), so every packet for it is read here;
- each is dropped with probability ``loss``, else queued behind the packets before it at
  ``rate`` bits per second, and sent ``delay`` seconds later through a raw socket whose
  mark (``SO_MARK``) routes it out of the real interface (a policy rule and table of its
  own), unchanged;
- replies come straight back on the real interface (reverse-path filtering is switched
  off in the namespace for that).

Packets go in order (one delay for all). Linux only, as root; nothing outside the
namespace is touched. Used by bench/outside_remote.py where the kernel has no netem.
"""

from __future__ import annotations

import fcntl
import os
import random
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LinkEmulator"]

_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
_MARK = 0x77
_TABLE = "177"


@dataclass
class LinkEmulator:
    """Delay, loss and rate for what namespace ``ns`` of ``lab`` sends to ``target``
    (``source``: its own address on ``interface``)."""

    lab: Any
    ns: str
    target: str
    source: str
    interface: str = "eth0"
    delay: float = 0.08
    loss: float = 0.01
    rate_bits: float = 10e6
    sent: int = 0
    dropped: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _queue: deque[tuple[float, bytes]] = field(default_factory=deque)
    _ready: threading.Condition = field(default_factory=threading.Condition)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        with self.lab.inside(self.ns):
            self._tun = os.open("/dev/net/tun", os.O_RDWR)
            fcntl.ioctl(
                self._tun, _TUNSETIFF, struct.pack("16sH", b"wartun0", _IFF_TUN | _IFF_NO_PI)
            )
            self._raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
            self._raw.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, _MARK)
        run = self.lab.run
        run(self.ns, "ip", "link", "set", "wartun0", "up")
        run(self.ns, "ip", "rule", "add", "fwmark", str(_MARK), "lookup", _TABLE, "priority", "100")
        run(
            self.ns,
            "ip",
            "route",
            "add",
            f"{self.target}/32",
            "dev",
            self.interface,
            "table",
            _TABLE,
        )
        for conf in ("all", "default", self.interface, "wartun0"):
            run(self.ns, "sysctl", "-qw", f"net.ipv4.conf.{conf}.rp_filter=0")
        run(
            self.ns, "ip", "route", "add", f"{self.target}/32", "dev", "wartun0", "src", self.source
        )
        for target in (self._read, self._send):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        with self._ready:
            self._ready.notify_all()
        self.lab.run(
            self.ns, "ip", "route", "del", f"{self.target}/32", "dev", "wartun0", check=False
        )
        os.close(self._tun)
        self._raw.close()

    def _read(self) -> None:
        free_at = 0.0  # when the link has sent everything queued so far
        while not self._stop.is_set():
            try:
                packet = os.read(self._tun, 65536)
            except OSError:
                return
            if random.random() < self.loss:
                self.dropped += 1
                continue
            now = time.monotonic()
            free_at = max(free_at, now) + len(packet) * 8 / self.rate_bits
            with self._ready:
                self._queue.append((free_at + self.delay, packet))
                self._ready.notify()

    def _send(self) -> None:
        while not self._stop.is_set():
            with self._ready:
                while not self._queue and not self._stop.is_set():
                    self._ready.wait()
                if self._stop.is_set():
                    return
                due, packet = self._queue.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            destination = socket.inet_ntoa(packet[16:20])
            try:
                self._raw.sendto(packet, (destination, 0))
                self.sent += 1
            except OSError:
                self.dropped += 1
