"""Running an inner pytest as root or as an ordinary user, for the sandbox end-to-end tests.

A root test process keeps every capability, so what bwrap does for an ordinary user
(an unprivileged user namespace, no way to write what the uid may not) is seen only by
starting the run as another uid: ``setpriv`` to nobody (65534). That user needs a
directory of its own (the fixture ``user_dir``, outside pytest's root-only temporary tree) and an
interpreter that can import the plugin: the checkout's venv when it can read it, else a
readable copy of the venv's packages and of the plugin (a CI clone often sits where only
root may enter).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Literal

import pytest

__all__ = [
    "ORDINARY_UID",
    "RUN_TIMEOUT",
    "User",
    "as_user",
    "made_for_the_user",
    "run_as",
    "uid_of",
]

ORDINARY_UID = 65534  # nobody: the uid the ordinary-user run takes when the test is root
RUN_TIMEOUT = 300.0  # seconds: a hang guard for the inner run, not a performance figure
User = Literal["root", "ordinary"]


def uid_of(user: User) -> int:
    """The uid the inner run has: 0, or nobody's when the test is root (else the test's)."""
    if user == "root":
        return 0
    return ORDINARY_UID if os.geteuid() == 0 else os.getuid()


def run_as(
    user: User,
    made: Path,
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    timeout: float = RUN_TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    """``python -m <argv>`` in ``made`` as ``user``; everything under ``made`` becomes theirs.

    Root needs a root test process (CI runs as root); the ordinary user needs
    ``setpriv`` when the test process is root. Either missing is a skip that says so.
    """
    prefix, python, inner_env = _start(user, made, dict(env))
    return subprocess.run(
        [*prefix, *python, "-m", *argv],
        cwd=made,
        env=inner_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def as_user(user: User) -> list[str]:
    """The prefix that starts a command as ``user`` (empty: as the test process)."""
    if user == "root" or os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot run as an ordinary user")
    return [setpriv, f"--reuid={ORDINARY_UID}", f"--regid={ORDINARY_UID}", "--clear-groups"]


def _start(
    user: User, made: Path, env: dict[str, str]
) -> tuple[list[str], list[str], dict[str, str]]:
    if user == "root" and os.geteuid() != 0:
        pytest.skip("the root variant needs a root test process (CI runs as root)")
    python = [sys.executable]
    prefix = as_user(user)
    if prefix:
        if not _importable_by(prefix, python, env):
            python, env = _staged(made, env)
            if not _importable_by(prefix, python, env):
                pytest.skip(f"uid {ORDINARY_UID} cannot run {python[0]} with the project staged")
        for path in [made, *made.rglob("*")]:
            os.chown(path, ORDINARY_UID, ORDINARY_UID, follow_symlinks=False)
    return prefix, python, env


def _importable_by(prefix: list[str], python: list[str], env: Mapping[str, str]) -> bool:
    probe = [*prefix, *python, "-c", "import pytest_skill_lens, pytest"]
    return subprocess.run(probe, env=env, capture_output=True, check=False).returncode == 0


# What the inner run never imports: the frameworks and the tools around the suite.
_NOT_STAGED: tuple[str, ...] = (
    "pydantic_ai*",
    "langchain*",
    "langsmith*",
    "openai*",
    "anthropic*",
    "mypy*",
)
_NOT_STAGED += ("*mypyc*", "pip*", "zstandard*", "hypothesis*", "__editable__*", "*.pth")


def _staged(made: Path, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """A readable copy of the venv's packages and of the plugin, and the base interpreter.

    On ``PYTHONPATH`` with ``-S`` (no site directories), so the copy alone is seen; its
    dist-info still declares the pytest11 entry point, now leading to the copied plugin.
    ``/usr/bin`` and ``/bin`` come first on PATH, so a script's ``python3`` is one every
    user may run; the rest of PATH (the products) follows.
    """
    import pytest_skill_lens

    site = made / "staged-site"
    for directory in sys.path:
        if directory.endswith("site-packages") and Path(directory).is_dir():
            shutil.copytree(
                directory,
                site,
                ignore=shutil.ignore_patterns(*_NOT_STAGED),
                dirs_exist_ok=True,
                symlinks=True,
            )
    shutil.copytree(Path(pytest_skill_lens.__file__).parent, site / "pytest_skill_lens")
    for path in [site, *site.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    path_var = os.pathsep.join(p for p in ("/usr/bin", "/bin", env.get("PATH", "")) if p)
    staged_env = env | {"PYTHONPATH": str(site), "PATH": path_var}
    return [os.path.realpath(sys.executable), "-S"], staged_env


@pytest.fixture(name="user_dir")
def made_for_the_user() -> Iterator[Path]:
    """A directory the ordinary user can own, outside pytest's root-only temporary tree."""
    made = Path(tempfile.mkdtemp(prefix="sandbox-as-user-")).resolve()
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)
