"""tracyc-capture on a terminal, for the tests that stop a capture once it has recorded
something: its stderr on a pseudo-terminal, where it writes a status line that counts what
it has received."""
import contextlib
import os
import pty
import re
import subprocess
import threading
import time


class StatusLine(threading.Thread):
    """Reads what tracyc-capture writes on a terminal (its stderr on a pseudo-terminal): its
    status line, "... | N zones | ...", and then what it says."""

    def __init__(self, master):
        super().__init__(daemon=True)
        self.master, self.text, self.ended, self.cond = master, b"", False, threading.Condition()
        self.start()

    def run(self):
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the capture has closed the terminal
                chunk = b""
            with self.cond:
                self.text += chunk
                self.ended = not chunk
                self.cond.notify_all()
            if not chunk:
                return

    def zones(self):
        counts = re.findall(rb"\| ([0-9,]+) zones \|", self.text)
        return int(counts[-1].replace(b",", b"")) if counts else 0

    def wait_for_zones(self, n, give_up_s=120):
        """Until the status line counts n zones (True), or the capture has ended or not got
        that far in give_up_s (False: a capture that never records fails its test rather
        than hang the file)."""
        deadline = time.monotonic() + give_up_s
        with self.cond:
            while self.zones() < n and not self.ended and time.monotonic() < deadline:
                self.cond.wait(timeout=1)
            return self.zones() >= n


@contextlib.contextmanager
def capture_on_terminal(args, **popen):
    """tracyc-capture started with `args`, its stderr on a pseudo-terminal: yields the process
    and its StatusLine; at the end, kills the capture if it still runs and waits for it, and
    for the status line's last words."""
    master, slave = pty.openpty()
    try:
        capture = subprocess.Popen(args, stderr=slave, **popen)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    status = StatusLine(master)
    try:
        yield capture, status
    finally:
        if capture.poll() is None:
            capture.kill()
        capture.communicate()
        status.join(timeout=60)
        os.close(master)
