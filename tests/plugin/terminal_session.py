"""A command run in a real terminal (tmux), for tests of what a person sees on a screen.

tmux is a terminal emulator: ``capture-pane`` returns the screen as rendered, cursor
moves and erasures applied, with the scrollback above it. So a test asserts what is
left on the screen, not which bytes were written. Each session has its own server
socket, so tests never share a tmux server (nor touch a person's own).
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

WAIT_LIMIT = 90.0  # seconds: generous, never reached unless something hangs


class TerminalSession:
    """``argv`` running in a ``width`` x ``height`` tmux pane, started in ``cwd``."""

    def __init__(
        self, argv: Sequence[str], cwd: Path, *, width: int = 120, height: int = 50
    ) -> None:
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed: `apt-get install tmux` (CI installs it)")
        self._dir = Path(tempfile.mkdtemp(prefix="skill-lens-tmux-"))  # a short socket path
        self._socket = self._dir / "socket"
        # env -u: the terminal's own size must decide pytest's width, and the outer run's
        # options must not leak in.
        #
        # The exit status is written by a shell around the command: tmux (3.3a) at times marks
        # the pane dead on its terminal's end of file and never records the status. The
        # shell's traps are handlers, not "ignore", so the command gets the default SIGINT
        # and SIGTERM back at exec and the status of a Ctrl-C is still written.
        self._status = self._dir / "status"
        wrapped = f'trap : INT TERM; "$@"; echo $? > {shlex.quote(str(self._status))}'
        command = [
            "env", "-u", "COLUMNS", "-u", "LINES", "-u", "PYTEST_ADDOPTS",
            "sh", "-c", wrapped, "sh", *argv,
        ]  # fmt: skip
        self._tmux(
            "start-server",
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",  # keep the pane after the command ends, to read its last screen
            ";",
            "new-session",
            "-d",
            "-s",
            "run",
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd),
            *command,
        )

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self._socket), "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout

    def screen(self) -> list[str]:
        """Every line of the pane, scrollback first, as rendered (wrapped lines joined)."""
        text = self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "run")
        return text.rstrip("\n").split("\n")

    def wait_for(
        self, seen: Callable[[list[str]], bool], what: str, limit: float = WAIT_LIMIT
    ) -> list[str]:
        """The first screen ``seen`` accepts; fails with the last screen after ``limit`` s."""
        deadline = time.monotonic() + limit
        while True:
            lines = self.screen()
            if seen(lines):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {what}; the screen:\n" + "\n".join(lines))
            time.sleep(0.1)

    def send_keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "run", *keys)

    def exit_status(self) -> int | None:
        """The command's exit status once it has ended, else ``None``."""
        try:
            written = self._status.read_text(encoding="ascii")
        except FileNotFoundError:
            return None
        return int(written) if written.endswith("\n") else None  # None: still being written

    def wait_for_exit(self, limit: float = WAIT_LIMIT) -> tuple[int, list[str]]:
        """The exit status and the last screen, once the command has ended."""
        deadline = time.monotonic() + limit
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                raise AssertionError("the command never ended:\n" + "\n".join(self.screen()))
            time.sleep(0.1)
        return status, self.screen()

    def close(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already gone
            self._tmux("kill-server")
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> TerminalSession:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
