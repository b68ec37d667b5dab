"""Who arms the parent-death signal: the harness (a function between fork and exec, which
makes Python fork the whole harness: 6-7 ms a start), or bwrap's --die-with-parent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.process import start as start_module
from pytest_skill_lens.run.process.output_pipes import Captured
from pytest_skill_lens.run.process.start import Finished, run_process
from pytest_skill_lens.run.products import process
from pytest_skill_lens.run.products.process import RunDir
from pytest_skill_lens.run.sandbox.product_sandbox import PRODUCT_ISOLATION, ProductSandbox
from pytest_skill_lens.run.sandbox.script_sandbox import SandboxDecision
from pytest_skill_lens.run.tools import script_tool
from pytest_skill_lens.run.workspace.bundle import Bundle
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.settings import Settings

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")


def test_run_process_arms_the_signal_unless_told_the_program_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []
    real = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        seen.append(kwargs.get("preexec_fn"))
        return real(*args, **kwargs)

    monkeypatch.setattr(start_module.subprocess, "Popen", popen)
    for arm in (True, False):
        done = run_process(
            ["true"],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin"},
            timeout=10,
            max_output_bytes=100,
            arm_death_signal=arm,
        )
        assert done.exit_code == 0
    assert callable(seen[0])
    assert seen[1] is None


BWRAP = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")


@pytest.mark.parametrize(
    ("sandbox", "home_is_the_calls", "armed"),
    [
        (BWRAP, True, False),  # wrapped: bwrap's --die-with-parent arms it
        (BWRAP, False, True),  # the real home (product_sandbox off): not wrapped
        (None, True, True),  # no sandbox
        (
            ProductSandbox(
                "auto",
                "bwrap",
                True,
                executable="/usr/bin/bwrap",
                isolation=tuple(f for f in PRODUCT_ISOLATION if f != "--die-with-parent"),
            ),
            True,
            True,
        ),
    ],
)
def test_a_product_start_leaves_the_signal_to_bwrap_only_when_wrapped_with_die_with_parent(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sandbox: ProductSandbox | None,
    home_is_the_calls: bool,
    armed: bool,
) -> None:
    assert "--die-with-parent" in PRODUCT_ISOLATION
    calls: list[bool] = []

    def fake(argv: list[str], **kwargs: Any) -> Finished:
        calls.append(kwargs["arm_death_signal"])
        return Finished(0, Captured(b"", 0), Captured(b"", 0))

    monkeypatch.setattr(process, "run_process", fake)
    run = RunDir(tmp_path, tmp_path / "home", tmp_path / "work", sandbox)
    home = run.home if home_is_the_calls else tmp_path / "elsewhere"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    process.start(["true"], run=run, cwd=tmp_path, env=env, timeout=5, max_output_bytes=100)
    assert calls == [armed]


@pytest.mark.parametrize(
    ("decision", "armed"),
    [
        (SandboxDecision("bwrap", executable="/usr/bin/bwrap"), False),
        (SandboxDecision("none", detail="off"), True),
    ],
)
def test_a_bundled_script_leaves_the_signal_to_bwrap_only_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decision: SandboxDecision, armed: bool
) -> None:
    calls: list[bool] = []

    def fake(argv: list[str], **kwargs: Any) -> Finished:
        calls.append(kwargs["arm_death_signal"])
        return Finished(0, Captured(b"ok", 0), Captured(b"", 0))

    monkeypatch.setattr(script_tool, "run_process", fake)
    skill = tmp_path / "skill"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nRun it.\n")
    (skill / "scripts" / "go.py").write_text("print('ok')\n")
    workspace = Workspace.create("death-signal", {})
    try:
        settings = Settings(allow_scripts=True, script_interpreters={"py": [sys.executable]})
        said = script_tool.run_script(
            Bundle.of(skill), workspace, settings, "scripts/go.py", None, sandbox=decision
        )
    finally:
        workspace.cleanup()
    assert said.startswith("exit code: 0"), said
    assert calls == [armed]
