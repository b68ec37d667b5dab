"""``pytest-skill-lens init``, used as an author would: scaffold a skill, watch the run refuse
it until every ``TODO(skill-lens)`` is filled, fill it, then collect and run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

from pytest_skill_lens.cli import console
from scaffold_fill import fill

SCRIPT = Path(sys.executable).parent / "pytest-skill-lens"

lens = LensRun()  # the skills under skills/, in process


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

    refused = lens(pytester, "--collect-only")
    assert refused.ret == 2
    text = refused.stdout.str()
    assert "order-support.eval.yaml:" in text
    assert "case 'handles a common request' (#1 in the file), field 'task'" in text
    assert "still holds the placeholder TODO(skill-lens)" in text

    target.write_text(fill(target.read_text(encoding="utf-8")), encoding="utf-8")
    listed = lens(pytester, "--collect-only", "-q")
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

    ran = lens(pytester)
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
        ("file", ["notes.txt"], "notes.txt is not a directory", "name a skill's directory"),
        (
            None,
            ["Release Notes"],
            "'Release Notes' cannot name a new skill: a skill takes its directory's name, and "
            "'Release Notes' is not a valid Agent Skills name: it holds characters other than "
            "lowercase a-z, 0-9 and '-' ('R', ' ', 'N')",
            "name the directory release-notes",
        ),
        ("empty", ["empty"], "no SKILL.md under empty", "name a skill's directory"),
        ("broken", ["broken"], "broken/SKILL.md", "quote a value"),
        (
            "blocked",
            ["blocked"],
            "cannot write blocked/evals/blocked.eval.yaml",
            "make the directory writable",
        ),
    ],
    ids=[
        "force-in-batch",
        "not-a-directory",
        "new-skill-bad-name",
        "no-skills",
        "malformed-skill-md",
        "unwritable",
    ],
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
    if setup == "file":
        write_file(pytester.path / "notes.txt", "not a skill\n")
    elif setup == "empty":
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
    assert not (pytester.path / "Release Notes").exists()  # a refusal writes nothing


NEW_SKILL_TODOS = {
    # What an author writes in a new skill's SKILL.md, per placeholder.
    "TODO(skill-lens) what the skill does, and when an agent should use it": (
        "Writes release notes from merged pull requests. Use when asked for release notes."
    ),
    "TODO(skill-lens) the instructions the agent follows when it uses the skill": (
        "List each merged change under Added, Changed or Fixed."
    ),
}


def test_init_on_a_new_directory_scaffolds_a_skill_refused_until_filled(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    code, out, err = _init(capsys, "skills/release-notes")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Wrote skills/release-notes/SKILL.md",
        "Wrote skills/release-notes/evals/release-notes.eval.yaml",
        "Fill in every TODO(skill-lens), then run: "
        "pytest --skill-lens skills/release-notes --collect-only",
    ]
    skill_md = pytester.path / "skills" / "release-notes" / "SKILL.md"
    evals = skill_md.parent / "evals" / "release-notes.eval.yaml"
    text = skill_md.read_text(encoding="utf-8")
    assert text.startswith("---\nname: release-notes\ndescription: TODO(skill-lens) ")

    refused = LensRun(skills="skills/release-notes")(pytester)
    assert refused.ret == 2
    shown = refused.stdout.str()
    assert f"{skill_md}:3, field 'description': still holds the placeholder TODO(skill-lens)" in (
        shown
    )
    assert f"{skill_md}:7: the instructions still hold the placeholder TODO(skill-lens)" in shown
    assert "release-notes.eval.yaml:" in shown  # the eval file's placeholders, in the same run

    for placeholder, value in NEW_SKILL_TODOS.items():
        assert placeholder in text
        text = text.replace(placeholder, value)
    skill_md.write_text(text, encoding="utf-8")
    evals.write_text(fill(evals.read_text(encoding="utf-8")), encoding="utf-8")
    ran = LensRun(skills="skills/release-notes")(pytester)
    ran.assert_outcomes(passed=2, failed=3, warnings=0)  # as for an existing skill, no warning
    assert ran.ret == 1

    # Run again, it is an existing skill: only its eval file may be rewritten, with --force.
    code, _, err = _init(capsys, "skills/release-notes")
    assert code == 2
    assert "release-notes.eval.yaml already exists" in err
