"""Real git repositories for the tests that compare a skill with its history."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

AUTHOR = {
    "GIT_AUTHOR_NAME": "Ann",
    "GIT_AUTHOR_EMAIL": "ann@example.org",
    "GIT_COMMITTER_NAME": "Ann",
    "GIT_COMMITTER_EMAIL": "ann@example.org",
}


def git(cwd: Path, *args: str) -> str:
    """``git args`` in ``cwd``, its output stripped; a failure fails the test."""
    done = subprocess.run(
        ["git", "-c", "core.fsmonitor=false", *args],
        cwd=cwd,
        env={**os.environ, **AUTHOR},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def commit(cwd: Path, message: str) -> str:
    """Everything in ``cwd`` committed (an empty commit too); the new commit's hash."""
    git(cwd, "add", "-A")
    git(cwd, "commit", "-q", "--allow-empty", "-m", message)
    return git(cwd, "rev-parse", "HEAD")
