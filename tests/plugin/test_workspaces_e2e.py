"""Workspaces end to end: a scripted runner writes files into the directory it is handed, and
file assertions, kept workspaces, sessions and judge artifacts come back through pytest."""

from __future__ import annotations

import errno
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from runs import SCRIPTED, LensRun
from skillfactory import make_skill, scripted_runner_conftest

_ECHO_JUDGE = """
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict


class Echo:
    \"\"\"Passes every rubric line, quoting the artifacts it was shown as its evidence.\"\"\"

    name = "echo"

    def judge(self, request):
        shown = " || ".join(f"{label} => {content}" for label, content in request.artifacts)
        return JudgeVerdict(checks=[JudgeCheck(i, True, shown) for i, _ in request.rubric])


def pytest_skill_lens_judges(config):
    return {"echo": lambda context: Echo()}
"""


@pytest.fixture
def temp_root(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system temp dir the inner run (and any xdist worker) creates workspaces in."""
    root = pytester.path / "system-tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))  # for xdist workers, which start fresh
    monkeypatch.setattr(tempfile, "tempdir", str(root))  # this process caches its answer
    return root


def made_in(root: Path) -> list[Path]:
    """What a run left in the temp dir: in the user's skill-lens parent, and beside it."""
    parent = root.resolve() / f"skill-lens-{os.getuid()}"
    inside = list(parent.iterdir()) if parent.is_dir() else []
    return sorted([*(p for p in root.resolve().iterdir() if p != parent), *inside])


def run_skill(
    pytester: pytest.Pytester,
    cases: list[dict[str, Any]],
    script: dict[str, dict[str, Any]],
    *args: str,
    toml: str = "",
    extra: str = "",
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run skill ``files`` under the scripted runner; the JSON outcomes (of the first
    repeat) by case name."""
    make_skill(pytester.path / "skills", "files", cases)
    pytester.makeconftest(scripted_runner_conftest(script, extra))
    (pytester.path / "skill-lens.toml").write_text(toml, encoding="utf-8")
    result = SCRIPTED(pytester, *args)
    outcomes = SCRIPTED.report(pytester).outcomes
    return result, {o["case_name"]: o for o in outcomes if o["repeat_index"] == 0}


def checks(outcome: dict[str, Any], evaluator: str = "assertion") -> dict[str, tuple[bool, str]]:
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == evaluator]
    return {c["id"]: (c["passed"], c["evidence"]) for c in score["checks"]}


_SEEDED = {"files": {"sales.csv": "region,units\nnorth,120\nsouth,80\n"}}


def test_a_planted_skill_lens_directory_in_temp_is_exit_2_before_any_case(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    elsewhere = pytester.path / "elsewhere"
    elsewhere.mkdir()
    planted = temp_root.resolve() / f"skill-lens-{os.getuid()}"
    planted.symlink_to(elsewhere)  # what another user of a shared /tmp could leave there
    make_skill(pytester.path / "skills", "files", [{"name": "c", "task": "t", "workspace": {}}])
    pytester.makeconftest(scripted_runner_conftest({"c": {"output": "never"}}))
    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "scripted")
    assert result.ret == 2
    assert (
        f"skill-lens: {planted} is a symbolic link: skill-lens keeps your temporary "
        "directories there"
    ) in result.stdout.str() + result.stderr.str()
    assert "fix: remove it, or set TMPDIR to a directory of your own" in (
        result.stdout.str() + result.stderr.str()
    )
    assert list(elsewhere.iterdir()) == [] and planted.is_symlink()


def test_file_assertions_read_what_the_runner_wrote(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [
        {
            "name": "writes-report",
            "task": "Summarise sales.csv into report.md",
            "workspace": _SEEDED,
            "assertions": [
                {"kind": "contains", "value": "total 200", "file": "report.md"},
                {"kind": "not_contains", "value": "error", "file": "report.md"},
                {"kind": "regex", "value": "(?m)^north", "file_glob": "out/*.md"},
                {"kind": "file-produced", "file_glob": ["report.md", "reports/*.md"]},
                {"kind": "contains", "value": "south,80", "file": "sales.csv"},
            ],
        },
        {
            "name": "writes-nothing",
            "task": "Summarise sales.csv into report.md",
            "workspace": _SEEDED,
            "assertions": [
                {"kind": "not_contains", "value": "error", "file": "report.md"},
                {"kind": "file-produced", "file": "report.md"},
            ],
        },
        {
            "name": "reads-the-seed",
            "task": "Echo sales.csv",
            "workspace": _SEEDED,
            "assertions": [{"kind": "contains", "value": "north,120"}],
        },
    ]
    script = {
        "writes-report": {
            "output": "done",
            "write": {"report.md": "total 200\n", "out/summary.md": "north 120\n"},
        },
        "writes-nothing": {"output": "I wrote report.md"},
        "reads-the-seed": {"show_file": "sales.csv"},
    }
    result, outcomes = run_skill(pytester, cases, script)

    assert result.ret == 1
    result.assert_outcomes(passed=2, failed=1)
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "writes-report": "passed",
        "writes-nothing": "failed",
        "reads-the-seed": "passed",
    }
    assert all(held for held, _ in checks(outcomes["writes-report"]).values())
    missing = "report.md was not produced: the workspace holds 1 file: sales.csv"
    assert checks(outcomes["writes-nothing"]) == {
        "not_contains[0]": (False, missing),
        "file-produced[1]": (False, missing),
    }
    result.stdout.fnmatch_lines([f"  not_contains[0]: {missing}"])
    # Deleted once scored, and so not recorded.
    assert [o["workspace"] for o in outcomes.values()] == [None, None, None]
    assert made_in(temp_root) == []
    assert "Kept workspaces" not in result.stdout.str()


@pytest.mark.parametrize("how", ["flag", "toml"])
def test_a_kept_workspace_is_listed_with_its_path(
    pytester: pytest.Pytester, temp_root: Path, how: str
) -> None:
    cases = [{"name": "keeps", "task": "t", "workspace": {}}]
    script = {"keeps": {"output": "ok", "write": {"report.md": "kept"}}}
    flags = ["--skill-lens-keep-workspace"] if how == "flag" else []
    toml = "keep_workspace = true\n" if how == "toml" else ""
    result, outcomes = run_skill(pytester, cases, script, *flags, toml=toml)

    assert result.ret == 0
    (kept,) = made_in(temp_root)
    assert kept.name.startswith("skill-lens-files-keeps-scripted-candidate-r1-")
    assert (kept / "report.md").read_text() == "kept"
    assert outcomes["keeps"]["workspace"] == str(kept)
    result.stdout.fnmatch_lines(["Kept workspaces:", f"  files :: keeps (scripted): {kept}"])


def test_sessions_share_one_workspace(pytester: pytest.Pytester, temp_root: Path) -> None:
    cases = [
        {
            "name": "resumes",
            "sessions": ["Plan it; do phase 1 only.", "Continue from where it stopped."],
            "workspace": {},
            "assertions": [
                {"kind": "equals", "value": "phase 1 done"},  # session 2 read session 1's file
                {"kind": "regex", "value": "(?m)^phase 2 done", "file": "plan.md"},
            ],
            "trajectory": {"order": ["write_file", "read_file"], "max_calls": 3},
        }
    ]
    script = {
        "resumes/Plan it; do phase 1 only.": {
            "show_file": "plan.md",  # nothing there yet: the workspace starts empty
            "write": {"plan.md": "phase 1 done"},
            "tool_calls": [["write_file", {"path": "plan.md"}]],
            "input_tokens": 10,
            "cost_usd": 0.25,
            "latency_ms": 100.0,
        },
        "resumes/Continue from where it stopped.": {
            "show_file": "plan.md",
            "write": {"plan.md": "phase 1 done\nphase 2 done\n"},
            "tool_calls": [["read_file", {"path": "plan.md"}], ["write_file", {"path": "plan.md"}]],
            "input_tokens": 5,
            "cost_usd": 0.5,
            "latency_ms": 50.0,
        },
    }
    result, outcomes = run_skill(pytester, cases, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["resumes"]
    assert outcome["status"] == "passed"
    assert outcome["output"] == "phase 1 done"
    assert [c["name"] for c in outcome["tool_calls"]] == ["write_file", "read_file", "write_file"]
    assert (outcome["tokens"], outcome["cost_usd"], outcome["latency_ms"]) == (15, 0.75, 150.0)
    assert made_in(temp_root) == []  # deleted once, after scoring


def test_an_errored_session_errors_the_case_and_the_rest_do_not_run(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [{"name": "three", "sessions": ["one", "two", "three"], "workspace": {}}]
    script = {
        "three/one": {"output": "1", "input_tokens": 10, "cost_usd": 0.25},
        "three/two": {"error": "the provider timed out", "input_tokens": 3, "cost_usd": 0.5},
        "three/three": {"output": "3", "input_tokens": 1000, "write": {"third.md": "ran"}},
    }
    result, outcomes = run_skill(pytester, cases, script, "--skill-lens-keep-workspace")

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["three"]
    assert outcome["status"] == "errored"
    assert outcome["error"] == "session 2 of 3: the provider timed out"
    assert (outcome["tokens"], outcome["cost_usd"]) == (13, 0.75)  # the spend that ran
    assert not (Path(outcome["workspace"]) / "third.md").exists()
    result.stdout.fnmatch_lines(["*session 2 of 3: the provider timed out*"])


def test_a_workspace_that_cannot_be_created_errors_the_case(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, temp_root: Path
) -> None:
    real_mkdtemp = tempfile.mkdtemp

    def disk_full(*args: Any, prefix: str | None = None, **kwargs: Any) -> str:
        if prefix and prefix.startswith("skill-lens-"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_mkdtemp(*args, prefix=prefix, **kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", disk_full)
    cases = [{"name": "nowhere", "task": "t", "workspace": {}}]
    result, outcomes = run_skill(pytester, cases, {"nowhere": {"output": "never"}})

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert outcomes["nowhere"]["error"] == (
        "WorkspaceError: cannot create a workspace under "
        f"{temp_root.resolve()}/skill-lens-{os.getuid()}: No space left on device"
    )
    result.stdout.fnmatch_lines(["*WorkspaceError: cannot create a workspace under*"])


def test_judge_artifacts_are_read_from_the_workspace(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [
        {
            "name": "graded",
            "task": "Write the report",
            "workspace": {},
            "judge": {
                "rubric": ["The report states a total of 200 units."],
                "artifacts": ["report.md", {"glob": "plans/*/plan.md"}, "missing.md"],
            },
        }
    ]
    script = {
        "graded": {"output": "done", "write": {"report.md": "Total: 200", "plans/q3/plan.md": "Q3"}}
    }
    result, outcomes = run_skill(
        pytester, cases, script, toml='judge = "echo"\n', extra=_ECHO_JUDGE
    )

    assert result.ret == 0, result.stdout.str()
    assert checks(outcomes["graded"], "judge") == {
        "r1": (
            True,
            "report.md => Total: 200 || plans/*/plan.md => Q3 || missing.md => (not produced)",
        )
    }


def test_xdist_workers_keep_and_report_workspaces(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    pytest.importorskip("xdist")
    cases = [
        {
            "name": f"case-{n}",
            "task": "t",
            "workspace": {},
            "assertions": [{"kind": "file-produced", "file": "out.md"}],
        }
        for n in (1, 2)
    ]
    script = {f"case-{n}": {"output": "ok", "write": {"out.md": str(n)}} for n in (1, 2)}
    result, outcomes = run_skill(pytester, cases, script, "-n", "2", "--skill-lens-keep-workspace")

    assert result.ret == 0, result.stdout.str()
    kept = {name: Path(o["workspace"]) for name, o in outcomes.items()}
    assert {name: (path / "out.md").read_text() for name, path in kept.items()} == {
        "case-1": "1",
        "case-2": "2",
    }
    assert made_in(temp_root) == sorted(kept.values())
    result.stdout.fnmatch_lines(["Kept workspaces:"])
    for name, path in kept.items():
        result.stdout.fnmatch_lines([f"  files :: {name} (scripted): {path}"])


# --- what a hostile run leaves where a check reads ------------------------------------------------

_PLANTING_RUNNER = """
import os

from pytest_skill_lens.run.result import RunResult


class Planting:
    \"\"\"Leaves what a hostile skill could: a link out, a FIFO, a sparse giant.\"\"\"

    name = "planting"

    def run(self, skill, case, workspace):
        (workspace / "passwd.md").symlink_to("/etc/passwd")
        os.mkfifo(workspace / "pipe.md")
        with open(workspace / "huge.log", "wb") as handle:
            handle.truncate(10 * 1024**3)  # 10 GB apparent, nothing on disk
        return RunResult(output="done")


def pytest_skill_lens_runners(config):
    return {"planting": lambda context: Planting()}
"""


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and links are POSIX here")
def test_a_link_out_a_fifo_and_a_sparse_giant_fail_their_checks_with_the_refusal(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [
        {
            "name": "planted",
            "task": "t",
            "workspace": {},
            "assertions": [
                {"kind": "not_contains", "value": "root:", "file": "passwd.md"},
                {"kind": "contains", "value": "x", "file_glob": "passwd.*"},
                {"kind": "not_contains", "value": "x", "file": "pipe.md"},
                {"kind": "file-produced", "file": "pipe.md"},
                {"kind": "contains", "value": "ERROR", "file": "huge.log"},
                {"kind": "file-produced", "file": "huge.log"},
            ],
            "judge": {"rubric": ["The files are fine."], "artifacts": ["passwd.md", "pipe.md"]},
        }
    ]
    make_skill(pytester.path / "skills", "files", cases)
    pytester.makeconftest(_PLANTING_RUNNER + _ECHO_JUDGE)
    (pytester.path / "skill-lens.toml").write_text('judge = "echo"\n', encoding="utf-8")

    # A subprocess with a timeout: a check that opened the FIFO would block forever.
    planting = LensRun(runner="planting", json="report.json", subprocess=True, timeout=120)
    result = planting(pytester)

    assert result.ret == 1, result.stdout.str()
    report = planting.report(pytester)
    (outcome,) = report.outcomes
    assert outcome["status"] == "failed"
    outside = "refused: passwd.md resolves outside the workspace through a symbolic link"
    assert checks(outcome) == {
        "not_contains[0]": (False, outside),
        "contains[1]": (False, f"passwd.md is the one file matching passwd.*; {outside}"),
        "not_contains[2]": (False, "refused: pipe.md is a FIFO (named pipe)"),
        "file-produced[3]": (False, "refused: pipe.md is a FIFO (named pipe), not a file"),
        "contains[4]": (
            False,
            "refused: huge.log is 10,737,418,240 bytes; max_file_bytes is 1,000,000",
        ),
        "file-produced[5]": (True, "huge.log exists (10,737,418,240 bytes)"),
    }
    refused = "(refused by the workspace: not a regular file inside it)"
    assert checks(outcome, "judge") == {
        "r1": (True, f"passwd.md => {refused} || pipe.md => {refused}")
    }
    assert "root:x:" not in json.dumps(report)
    assert made_in(temp_root) == []  # deleted, FIFO and giant included


_HARD_LINKING_RUNNER = """
import os
from pathlib import Path

from pytest_skill_lens.run.result import RunResult


class HardLinking:
    \"\"\"Leaves a hard link to a file outside the workspace under the name a check reads.\"\"\"

    name = "hard-linking"

    def run(self, skill, case, workspace):
        os.link(Path.cwd() / "secret.txt", workspace / "report.md")
        return RunResult(output="done")


def pytest_skill_lens_runners(config):
    return {"hard-linking": lambda context: HardLinking()}
"""


def test_a_hard_link_to_a_file_outside_fails_its_checks_and_the_file_stays_unread(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    # A hard link is another name for the same file: containment by path cannot see
    # that it lies outside, so a file with more than one link is never trusted.
    (pytester.path / "secret.txt").write_text("SECRET-1234 ERROR\n", encoding="utf-8")
    cases = [
        {
            "name": "linked",
            "task": "t",
            "workspace": {},
            "assertions": [
                {"kind": "contains", "value": "ERROR", "file": "report.md"},
                {"kind": "contains", "value": "ERROR", "file_glob": "*.md"},
                {"kind": "file-produced", "file": "report.md"},
            ],
            "judge": {"rubric": ["The report is fine."], "artifacts": ["report.md"]},
        }
    ]
    make_skill(pytester.path / "skills", "files", cases)
    pytester.makeconftest(_HARD_LINKING_RUNNER + _ECHO_JUDGE)
    (pytester.path / "skill-lens.toml").write_text('judge = "echo"\n', encoding="utf-8")

    linking = LensRun(runner="hard-linking", json="report.json", subprocess=True, timeout=120)
    result = linking(pytester)

    assert result.ret == 1, result.stdout.str()
    report = linking.report(pytester)
    (outcome,) = report.outcomes

    assert outcome["status"] == "failed"
    found = checks(outcome)
    assert set(found) == {"contains[0]", "contains[1]", "file-produced[2]"}
    for passed, evidence in found.values():
        assert not passed
        assert "report.md has 2 hard links" in evidence, evidence
    assert "SECRET-1234" not in json.dumps(report)
    assert "SECRET-1234" not in result.stdout.str()
    assert (pytester.path / "secret.txt").read_text(encoding="utf-8") == "SECRET-1234 ERROR\n"
    assert made_in(temp_root) == []


# --- a workspace per work item, and none without a block ------------------------------------------


def test_a_case_without_a_workspace_block_gets_no_directory(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [{"name": "plain", "task": "t", "assertions": [{"kind": "contains", "value": "x"}]}]
    result, outcomes = run_skill(
        pytester, cases, {"plain": {"output": "x"}}, "--skill-lens-keep-workspace"
    )

    assert result.ret == 0, result.stdout.str()
    assert outcomes["plain"]["workspace"] is None
    assert made_in(temp_root) == []
    assert "Kept workspaces" not in result.stdout.str()


def test_each_repeat_runs_every_session_in_a_fresh_workspace(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [
        {
            "name": "resumes",
            "sessions": ["start", "continue"],
            "workspace": {"files": {"plan.md": "seed\n"}},
            "assertions": [{"kind": "equals", "value": "seed\nstart"}],
        }
    ]
    script = {
        "resumes/start": {"write": {"plan.md": "seed\nstart\n"}},
        # Session 2 answers with what session 1 of the same repeat wrote: never another's.
        "resumes/continue": {"show_file": "plan.md", "write": {"continued.md": "yes"}},
    }
    result, _ = run_skill(
        pytester, cases, script, "--skill-lens-repeat", "2", "--skill-lens-keep-workspace"
    )

    assert result.ret == 0, result.stdout.str()
    report = SCRIPTED.report(pytester)
    kept = [Path(o["workspace"]) for o in report["outcomes"]]
    assert [o["repeat_index"] for o in report["outcomes"]] == [0, 1]
    assert [o["status"] for o in report["outcomes"]] == ["passed", "passed"]
    assert len(set(kept)) == 2 and made_in(temp_root) == sorted(kept)
    for path in kept:
        assert sorted(p.name for p in path.iterdir()) == ["continued.md", "plan.md"]
    assert [p.name.rsplit("-", 1)[0] for p in kept] == [
        "skill-lens-files-resumes-scripted-candidate-r1",
        "skill-lens-files-resumes-scripted-candidate-r2",
    ]


_RAISING_EVALUATOR = """
from pytest_skill_lens.suite.errors import AuthoringError


class Raising:
    name = "raising"

    def evaluate(self, case, result, context):
        assert context.workspace is not None and context.workspace.root.is_dir()
        raise AuthoringError("this evaluator refuses every case")


def pytest_skill_lens_evaluators(config):
    return [Raising()]
"""


def test_the_workspace_is_deleted_even_when_an_evaluator_raises(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [{"name": "scored", "task": "t", "workspace": {}}]
    script = {"scored": {"output": "ok", "write": {"out.md": "x"}}}
    result, outcomes = run_skill(pytester, cases, script, extra=_RAISING_EVALUATOR)

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["scored"]
    assert outcome["status"] == "errored"
    (raising,) = [s for s in outcome["scores"] if s["evaluator"] == "raising"]
    assert "this evaluator refuses every case" in raising["detail"]
    assert made_in(temp_root) == []


def test_one_unmeasured_session_leaves_the_token_budget_not_evaluated(
    pytester: pytest.Pytester, temp_root: Path
) -> None:
    cases = [
        {
            "name": "half measured",
            "sessions": ["one", "two"],
            "workspace": {},
            "budget": {"max_tokens": 1000},
        }
    ]
    script = {
        "half measured/one": {"output": "1", "input_tokens": 10},
        "half measured/two": {"output": "2", "usage_note": "the product reports no usage"},
    }
    result, outcomes = run_skill(pytester, cases, script)

    assert result.ret == 1
    outcome = outcomes["half measured"]
    assert outcome["status"] == "failed"
    assert outcome["usage_note"] == "the product reports no usage"
    assert checks(outcome, "budget") == {
        "max_tokens": (False, "token budget not evaluated: the product reports no usage")
    }
