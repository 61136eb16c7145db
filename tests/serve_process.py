"""``streamparse serve`` as its own process on a free 127.0.0.1 port (for what must be measured on the
server alone: its memory, its sockets), stopped on exit."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from typing import Any


class ServeProcess:
    """``with ServeProcess(upstream_url, "--flag", ...) as srv: srv.port, srv.pid``."""

    def __init__(self, upstream: str, *flags: str) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port: int = sock.getsockname()[1]
        self.argv = [sys.executable, "-m", "streamparse.cli", "serve", "--upstream", upstream,
                     "--port", str(self.port), "--log-level", "warning", *flags]  # fmt: skip

    def __enter__(self) -> ServeProcess:
        self.proc = subprocess.Popen(self.argv)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.__exit__()
                    raise RuntimeError("streamparse serve did not start") from None
                time.sleep(0.05)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def memory_kb(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) of the server process, in KiB."""
        with open(f"/proc/{self.pid}/status", encoding="utf-8") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])

    def reset_peak(self) -> None:
        """Make VmHWM start again from the current RSS (Linux: ``clear_refs`` value 5)."""
        with open(f"/proc/{self.pid}/clear_refs", "w", encoding="ascii") as f:
            f.write("5")

    def __exit__(self, *exc: Any) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
