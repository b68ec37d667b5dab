"""``pytest-skill-lens init``, used as an author would: scaffold a skill, watch the run refuse
it until every ``TODO(skill-lens)`` is filled, fill it, then collect and run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from skillfactory import QUIET_PLUGINS, make_skill, write_file

from pytest_skill_lens.cli import console
from scaffold_fill import fill

SCRIPT = Path(sys.executable).parent / "pytest-skill-lens"


def _init(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = console(["init", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_console_script_writes_a_scaffold(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "order-support")
    done = subprocess.run(
        [str(SCRIPT), "init", "skills/order-support"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Wrote skills/order-support/evals/order-support.eval.yaml",
        "Fill in every TODO(skill-lens), then run: "
        "pytest --skill-lens skills/order-support --collect-only",
    ]
    assert done.stderr == ""
    target = pytester.path / "skills" / "order-support" / "evals" / "order-support.eval.yaml"
    assert target.read_text(encoding="utf-8").startswith(
        "# Eval cases for the skill 'order-support', written by pytest-skill-lens init."
    )


def test_the_scaffold_is_refused_until_filled_then_runs_under_fake(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    make_skill(pytester.path / "skills", "order-support")
    assert _init(capsys, "skills/order-support")[0] == 0
    target = pytester.path / "skills" / "order-support" / "evals" / "order-support.eval.yaml"

    refused = pytester.runpytest("--skill-lens", "skills", "--collect-only", *QUIET_PLUGINS)
    assert refused.ret == 2
    text = refused.stdout.str()
    assert "order-support.eval.yaml:" in text
    assert "case 'handles a common request' (#1 in the file), field 'task'" in text
    assert "still holds the placeholder TODO(skill-lens)" in text

    target.write_text(fill(target.read_text(encoding="utf-8")), encoding="utf-8")
    listed = pytester.runpytest("--skill-lens", "skills", "--collect-only", "-q", *QUIET_PLUGINS)
    assert listed.ret == 0
    assert [line for line in listed.outlines if "::" in line] == [
        f"skills/order-support/SKILL.md::{name}[fake]"
        for name in (
            "handles a common request",
            "holds the line on a policy edge",
            "reaches for the skill when it applies",
            "leaves an unrelated request alone",
            "writes the expected file",
        )
    ]

    ran = pytester.runpytest("--skill-lens", "skills", *QUIET_PLUGINS)
    # fake answers with one fixed line and calls no tool: the common case and the negative
    # control hold, the tool, trigger and file checks do not. The run measured the wiring.
    ran.assert_outcomes(passed=2, failed=3)
    assert ran.ret == 1
    failed = {
        line.split("::")[1].split(" - ")[0] for line in ran.outlines if line.startswith("FAILED")
    }
    assert failed == {
        "holds the line on a policy edge[fake]",
        "reaches for the skill when it applies[fake]",
        "writes the expected file[fake]",
    }


def test_batch_mode_scaffolds_only_the_skills_without_eval_files(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    make_skill(pytester.path / "skills", "beta")
    make_skill(pytester.path / "skills", "alpha", [{"name": "c", "task": "t"}])
    make_skill(
        pytester.path / "skills", "gamma", [{"name": "c", "task": "t"}], evals_file="x.eval.yaml"
    )
    make_skill(pytester.path / "skills" / "group", "delta")
    code, out, err = _init(capsys, "skills")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Skipped alpha: already has 1 eval file(s)",
        "Wrote skills/beta/evals/beta.eval.yaml",
        "Wrote skills/group/delta/evals/delta.eval.yaml",
        "Skipped gamma: already has 1 eval file(s)",
        "Fill in every TODO(skill-lens), then run: pytest --skill-lens skills --collect-only",
    ]
    code, out, _ = _init(capsys, "skills")
    assert code == 0
    assert (
        out.splitlines()[-1] == "Nothing to do: every skill under skills already has an eval suite"
    )


def test_one_skill_writes_beside_skill_md_when_its_eval_files_are_there(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    make_skill(
        pytester.path, "Refund Desk", [{"name": "c", "task": "t"}], evals_file="old.eval.yaml"
    )
    code, out, _ = _init(capsys, "Refund Desk")
    assert code == 0
    assert out.splitlines()[0] == "Wrote Refund Desk/Refund-Desk.eval.yaml"
    assert "pytest --skill-lens 'Refund Desk' --collect-only" in out
    assert not (pytester.path / "Refund Desk" / "evals").exists()


def test_an_existing_scaffold_needs_force_and_force_replaces_it(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    make_skill(pytester.path, "s")
    target = write_file(pytester.path / "s" / "evals" / "s.eval.yaml", "cases: []\n")
    code, out, err = _init(capsys, "s")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "pytest-skill-lens init: s/evals/s.eval.yaml already exists",
        "  fix: edit it, or pass --force to replace it with a fresh scaffold",
    ]
    assert target.read_text(encoding="utf-8") == "cases: []\n"
    code, out, _ = _init(capsys, "s", "--force")
    assert code == 0
    assert "TODO(skill-lens)" in target.read_text(encoding="utf-8")


def test_a_planted_link_at_the_target_is_replaced_not_followed(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    make_skill(pytester.path, "s")
    victim = write_file(pytester.path / "victim.txt", "keep me\n")
    (pytester.path / "s" / "evals").mkdir()
    (pytester.path / "s" / "evals" / "s.eval.yaml").symlink_to(victim)
    assert _init(capsys, "s")[0] == 2  # exists: refused
    assert _init(capsys, "s", "--force")[0] == 0
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert not (pytester.path / "s" / "evals" / "s.eval.yaml").is_symlink()


@pytest.mark.parametrize(
    ("setup", "args", "message", "fix"),
    [
        (
            None,
            ["skills", "--force"],
            "--force rewrites one skill's scaffold; it is refused for a directory of skills",
            "name one skill's directory with --force",
        ),
        (None, ["nowhere"], "nowhere is not a directory", "name a skill's directory"),
        ("empty", ["empty"], "no SKILL.md under empty", "name a skill's directory"),
        ("broken", ["broken"], "broken/SKILL.md", "quote a value"),
        (
            "blocked",
            ["blocked"],
            "cannot write blocked/evals/blocked.eval.yaml",
            "make the directory writable",
        ),
    ],
    ids=["force-in-batch", "missing", "no-skills", "malformed-skill-md", "unwritable"],
)
def test_refusals_exit_2_with_the_reason_and_the_fix(
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    setup: str | None,
    args: list[str],
    message: str,
    fix: str,
) -> None:
    monkeypatch.chdir(pytester.path)
    make_skill(pytester.path / "skills", "a")
    if setup == "empty":
        (pytester.path / "empty" / "sub").mkdir(parents=True)
    elif setup == "broken":
        make_skill(pytester.path, "broken", frontmatter="name: [unclosed\n")
    elif setup == "blocked":
        make_skill(pytester.path, "blocked")
        write_file(pytester.path / "blocked" / "evals", "a file where a directory must go\n")
    code, out, err = _init(capsys, *args)
    assert (code, out) == (2, "")
    first, second = err.splitlines()
    assert first.startswith("pytest-skill-lens init: ")
    assert message in first
    assert second.startswith("  fix: ") and fix in second
