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

Packets go in order (one delay for all). One thread does everything (read, wait, send:
no hand-over between threads, no lock), waiting in ``select`` for the next packet or the
next one due, and it runs under the real-time scheduler (``SCHED_FIFO``) where it may:
netem works in the kernel, so a busy machine does not delay the packets it holds, and
this must not either. What the emulator itself adds is measured, not assumed:
`LinkEmulator.report` gives, for every packet sent, how late it left (its send time
minus the time it was due), and the time of every packet dropped (a bench matches them
to what it timed). Linux only, as root; nothing outside the namespace is touched. Used by
bench/outside_remote.py where the kernel has no netem.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import select
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LinkEmulator", "LinkReport"]

_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
_MARK = 0x77
_TABLE = "177"
_PRIORITY = 50
"""The emulator thread's SCHED_FIFO priority (1–99; above any normal process)."""


@dataclass(frozen=True, slots=True)
class LinkReport:
    """What the link did: packets sent and dropped, how late each sent one left (seconds
    after it was due), when each was dropped (``time.monotonic()``), whether it ran
    real-time."""

    sent: int
    dropped: int
    late: tuple[float, ...]
    drops: tuple[float, ...]
    realtime: bool


@dataclass
class LinkEmulator:
    """Delay, loss and rate for what namespace ``ns`` of ``lab`` sends to ``target``
    (``source``: its own address on ``interface``); ``seed``: the loss's random numbers
    (None: the system's)."""

    lab: Any
    ns: str
    target: str
    source: str
    interface: str = "eth0"
    delay: float = 0.08
    loss: float = 0.01
    rate_bits: float = 10e6
    seed: int | None = None
    _late: list[float] = field(default_factory=list)
    _drops: list[float] = field(default_factory=list)
    _realtime: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        with self.lab.inside(self.ns):
            self._tun = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
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
        self._thread = threading.Thread(target=self._run, name="linkemu", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.lab.run(
            self.ns, "ip", "route", "del", f"{self.target}/32", "dev", "wartun0", check=False
        )
        os.close(self._tun)
        self._raw.close()

    def report(self) -> LinkReport:
        """What the link has done so far."""
        late, drops = tuple(self._late), tuple(self._drops)
        return LinkReport(len(late), len(drops), late, drops, self._realtime)

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # not allowed here: a normal thread, reported
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(_PRIORITY))
            self._realtime = True
        chance = random.Random(self.seed).random
        queue: deque[tuple[float, bytes]] = deque()
        free_at = 0.0  # when the link has sent everything queued so far
        while not self._stop.is_set():
            timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else 0.2
            readable, _, _ = select.select([self._tun], [], [], timeout)
            if readable:
                while True:
                    try:
                        packet = os.read(self._tun, 65536)
                    except BlockingIOError:
                        break
                    except OSError:
                        return
                    now = time.monotonic()
                    if chance() < self.loss:
                        self._drops.append(now)
                        continue
                    free_at = max(free_at, now) + len(packet) * 8 / self.rate_bits
                    queue.append((free_at + self.delay, packet))
            now = time.monotonic()
            while queue and queue[0][0] <= now:
                due, packet = queue.popleft()
                try:
                    self._raw.sendto(packet, (socket.inet_ntoa(packet[16:20]), 0))
                except OSError:
                    self._drops.append(now)
                    continue
                self._late.append(time.monotonic() - due)
