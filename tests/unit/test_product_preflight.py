"""The product preflight's ``--version`` probe (run/products/preflight.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.products import preflight
from pytest_skill_lens.run.products.claude_code import PRESET
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
    return tmp_path


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
