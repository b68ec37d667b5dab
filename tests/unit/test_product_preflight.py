"""The product preflight's ``--version`` probe (run/products/preflight.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from pytest_skill_lens.run.products import preflight, version_memo
from pytest_skill_lens.run.products.claude_code import PRESET
from pytest_skill_lens.run.sandbox.product_sandbox import ProductSandbox
from pytest_skill_lens.settings import Settings


def _claude(tmp_path: Path, exit_code: int) -> Path:
    """A stand-in ``claude`` that counts its --version starts in a file beside it."""
    script = tmp_path / "bin" / "claude"
    script.parent.mkdir(exist_ok=True)
    script.write_text(
        f'#!/bin/sh\necho start >> "{tmp_path}/starts"\necho "9.9.9 (Stand-in)"\nexit {exit_code}\n'
    )
    script.chmod(0o755)
    return script


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")  # home isolation signs in from it
    # This process's probes, kept apart from every other test's.
    monkeypatch.setattr(preflight, "_versions", {})
    monkeypatch.setattr(preflight, "_answered", {})
    # The versions remembered across sessions, in this test's own temp dir.
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return tmp_path


def another_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new process starts with: nothing probed yet."""
    monkeypatch.setattr(preflight, "_versions", {})
    monkeypatch.setattr(preflight, "_answered", {})


def test_an_executable_that_answered_is_not_started_again(on_path: Path) -> None:
    # One product as runner and judge is asked twice in one preflight.
    _claude(on_path, 0)
    settings = Settings(product_sandbox="off")
    assert preflight.start_problem(PRESET, settings, None) is None
    assert preflight.start_problem(PRESET, settings, None) is None
    assert (on_path / "starts").read_text().splitlines() == ["start"]
    assert preflight.probed_version("claude-code") == "9.9.9 (Stand-in)"


def test_a_failed_probe_is_asked_again_and_refused_each_time(on_path: Path) -> None:
    _claude(on_path, 3)
    settings = Settings(product_sandbox="off")
    for _ in range(2):
        problem = preflight.start_problem(PRESET, settings, None)
        assert problem is not None and "'--version' exited with code 3" in problem[0]
    assert (on_path / "starts").read_text().splitlines() == ["start", "start"]


def test_a_remembered_answer_spares_the_next_sessions_start(
    on_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(version_memo, "SETTLED_NS", 0)
    claude = _claude(on_path, 0)
    settings = Settings(product_sandbox="off")
    assert preflight.start_problem(PRESET, settings, None) is None
    another_session(monkeypatch)
    assert preflight.start_problem(PRESET, settings, None) is None
    assert (on_path / "starts").read_text().splitlines() == ["start"]
    assert preflight.probed_version("claude-code") == "9.9.9 (Stand-in)"
    info = claude.stat()  # the product reinstalled: asked again
    os.utime(claude, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
    another_session(monkeypatch)
    assert preflight.start_problem(PRESET, settings, None) is None
    assert (on_path / "starts").read_text().splitlines() == ["start", "start"]


def test_a_failed_probe_is_never_remembered(on_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(version_memo, "SETTLED_NS", 0)
    _claude(on_path, 3)
    settings = Settings(product_sandbox="off")
    assert preflight.start_problem(PRESET, settings, None) is not None
    another_session(monkeypatch)
    assert preflight.start_problem(PRESET, settings, None) is not None
    assert (on_path / "starts").read_text().splitlines() == ["start", "start"]


def test_a_remembered_answer_never_spares_the_sign_in_check(
    on_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(version_memo, "SETTLED_NS", 0)
    _claude(on_path, 0)
    sandbox = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    settings = Settings(product_sandbox="auto")
    assert preflight.start_problem(PRESET, settings, sandbox) is None
    another_session(monkeypatch)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    for name in PRESET.sign_in_variables:
        monkeypatch.delenv(name, raising=False)
    problem = preflight.start_problem(PRESET, settings, sandbox)
    assert problem is not None and "can sign in only from the environment" in problem[0]
    assert (on_path / "starts").read_text().splitlines() == ["start"]
