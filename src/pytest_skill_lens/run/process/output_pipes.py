"""A started program's stdout and stderr as pipes the harness reads, each bounded by one cap.

Output goes through a pipe, never to a file: a file would take whatever the program
writes (``yes`` fills gigabytes in seconds) and the cap would bound only what is read
back. The harness reads each pipe as the program writes it, keeps at most the cap, and
the moment a stream passes the cap it is marked :attr:`Streams.over`, so the caller
stops the program then, not at its timeout. Nothing of the flood reaches the disk, and
memory holds at most the cap per stream plus one read.

The read ends are non-blocking: after the program's group is killed, :meth:`Streams.drain`
takes what is still buffered without waiting for a writer that escaped the group.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

Stream = Literal["stdout", "stderr"]
_CHUNK = 64 * 1024
_DRAIN_READS = 4096  # a drain never reads more than this many chunks (bounded by the cap too)


@dataclass(frozen=True)
class Captured:
    """One stream as read: at most the cap, and how many bytes were left out.

    ``stopped``: the stream passed the cap and the program was stopped there, so
    ``omitted`` counts only what was read past the cap before the stop.
    """

    data: bytes
    omitted: int
    stopped: bool = False

    def text(self) -> str:
        """The stream for the model: ``(empty)``, or its text with any cut stated."""
        if not self.data and not self.omitted:
            return "(empty)"
        body = self.data.decode("utf-8", errors="replace")
        if self.stopped:
            return f"{body}\n... [truncated at {len(self.data):,} bytes: the script was stopped]"
        if self.omitted:
            return f"{body}\n... [truncated, {self.omitted} bytes omitted]"
        return body.removesuffix("\n")


class Streams:
    """The read ends of a program's stdout and stderr pipes, and what came through them."""

    def __init__(self, stdout: int, stderr: int, cap: int) -> None:
        self.names: dict[int, Stream] = {stdout: "stdout", stderr: "stderr"}
        self.cap = cap
        self.over: Stream | None = None
        self.open: set[int] = {stdout, stderr}
        self._kept = {stdout: bytearray(), stderr: bytearray()}
        self._read = {stdout: 0, stderr: 0}
        for fd in self.names:
            os.set_blocking(fd, False)

    def pump(self, fd: int) -> bool:
        """Read what ``fd`` holds now (one chunk); ``False`` once it is at its end."""
        return self._take(fd) != 0

    def drain(self) -> None:
        """Everything still buffered in both pipes, without waiting for more.

        Called after the program's group is killed: what it wrote before is read; a
        writer that escaped the group cannot hold the harness, as the reads never
        block and stop at the cap.
        """
        for fd in list(self.open):
            for _ in range(_DRAIN_READS):
                if self._read[fd] > self.cap or self._take(fd) <= 0:
                    break

    def _take(self, fd: int) -> int:
        """One read of ``fd``: the bytes read, 0 at its end, -1 when nothing is there now."""
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return -1
        except OSError:
            chunk = b""
        if not chunk:
            self.open.discard(fd)
            return 0
        kept = self._kept[fd]
        kept += chunk[: max(0, self.cap - len(kept))]
        self._read[fd] += len(chunk)
        if self._read[fd] > self.cap and self.over is None:
            self.over = self.names[fd]
        return len(chunk)

    def captured(self, fd: int) -> Captured:
        data = bytes(self._kept[fd])
        return Captured(data, self._read[fd] - len(data), stopped=self.names[fd] == self.over)
