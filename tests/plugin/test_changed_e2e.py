"""``--skill-lens-changed [REF]`` end to end, in real git repositories made here.

Each test commits a suite on ``main``, branches, changes something and runs pytest with
the flag: which skills run (the spy runner writes every call it gets to a file), what is
deselected and why, the exit code, the terminal's words and the JSON's ``changed`` block.
Skill ``alpha`` holds a case that fails whenever it runs, so a run that wrongly keeps an
unchanged ``alpha`` fails, and one that keeps it when it changed fails too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from git_repo import commit, git
from skillfactory import QUIET_PLUGINS, SPY_CALLS_FILE, make_skill, spy_runner_conftest, write_file

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

PASSES = {"assertions": [{"kind": "contains", "value": "hello"}]}
FAILS = {"assertions": [{"kind": "contains", "value": "never said"}]}
LIBRARY = """\
tools:
  - name: lookup
    description: Finds an order.
    parameters: {id: string}
"""


def suite(root: Path, *, library: bool = False) -> str:
    """alpha (a case that fails), beta and gamma (passing) on main; then branch ``pr``.

    With ``library``, alpha's and beta's cases import ``shared/tools.yaml``; gamma's do not.
    Returns main's commit."""
    git(root, "init", "-q", "-b", "main")
    write_file(root / ".gitignore", "/*.json\n/*.md\n/" + SPY_CALLS_FILE + "\n__pycache__/\n")
    write_file(root / "conftest.py", spy_runner_conftest())
    for name, case in (("alpha", FAILS), ("beta", PASSES), ("gamma", PASSES)):
        uses = library and name != "gamma"
        cases = [{"name": f"{name}-{n}", "task": "t", **case} for n in (1, 2)]
        if uses:
            cases = [{**c, "tools": [{"ref": "lookup", "returns": "found"}]} for c in cases]
            text = json.dumps({"tool_libraries": ["../../../shared/tools.yaml"], "cases": cases})
            make_skill(root / "skills", name, text)
        else:
            make_skill(root / "skills", name, cases)
    if library:
        write_file(root / "shared/tools.yaml", LIBRARY)
    write_file(root / "skill-lens.toml", "repeat = 1\n")
    main = commit(root, "the suite")
    git(root, "checkout", "-q", "-b", "pr")
    return main


def edit(path: Path, added: str = "\nOne more line.\n") -> None:
    path.write_text(path.read_text(encoding="utf-8") + added, encoding="utf-8")


def run(pytester: pytest.Pytester, *args: str, json_name: str = "out.json") -> pytest.RunResult:
    return pytester.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "spy",
        "--skill-lens-json",
        json_name,
        "-p",
        "no:cacheprovider",
        *QUIET_PLUGINS,
        *args,
    )


def calls(pytester: pytest.Pytester) -> list[str]:
    path = pytester.path / SPY_CALLS_FILE
    found = path.read_text(encoding="utf-8").split() if path.exists() else []
    path.unlink(missing_ok=True)
    return sorted(found)


def report(pytester: pytest.Pytester, name: str = "out.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / name).read_text(encoding="utf-8"))
    return data


def test_only_the_changed_skill_runs_and_the_rest_is_deselected_as_unchanged(
    pytester: pytest.Pytester,
) -> None:
    main = suite(pytester.path)
    edit(pytester.path / "skills/beta/SKILL.md")
    commit(pytester.path, "beta says more")

    everything = run(pytester)  # without the flag alpha's failing case runs
    assert everything.ret == 1
    assert len(calls(pytester)) == 6

    result = run(pytester, "--skill-lens-changed")

    assert result.ret == 0, result.stdout.str()
    assert calls(pytester) == ["beta::beta-1", "beta::beta-2"]
    result.assert_outcomes(passed=2, deselected=4)
    short = main[:8]
    result.stdout.fnmatch_lines(
        [
            f"skill-lens: comparing with main ({short}): the merge base of HEAD and main*",
            f"*2 skill(s) unchanged since main ({short}), deselected: alpha, gamma",
            "*changed: beta: skills/beta/SKILL.md modified (its own files)",
            "Gate passed*",
        ]
    )
    data = report(pytester)
    assert data["changed"] == {
        "ref": "main",
        "commit": main,
        "how": "the merge base of HEAD and main (no origin/HEAD; main exists)",
        "unchanged_reason": f"unchanged since main ({short})",
        "changed_skills": [
            {
                "skill_name": "beta",
                "reasons": ["skills/beta/SKILL.md modified (its own files)"],
                "moved_from": None,
            }
        ],
        "unchanged_skills": ["alpha", "gamma"],
        "nothing_to_evaluate": False,
    }
    # Deselected by the flag, not by -k/-m: the session does not call it a filter.
    assert data["deselected_skills"] == data["case_filtered_skills"] == []
    assert {o["skill_name"] for o in data["outcomes"]} == {"beta"}
    assert data["gate"] == {"passed": True, "exit_code": 0, "reasons": []}


def test_a_changed_failing_skill_fails_the_run_and_a_given_ref_is_used(
    pytester: pytest.Pytester,
) -> None:
    main = suite(pytester.path)
    edit(pytester.path / "skills/alpha/evals/cases.yaml", "# a comment\n")  # uncommitted

    result = run(pytester, "--skill-lens-changed=main")

    assert result.ret == 1
    assert calls(pytester) == ["alpha::alpha-1", "alpha::alpha-2"]
    changed = report(pytester)["changed"]
    assert (changed["ref"], changed["commit"], changed["how"]) == ("main", main, "given")
    assert changed["changed_skills"][0]["reasons"] == [
        "skills/alpha/evals/cases.yaml modified (its own files)"
    ]


def test_a_renamed_skill_is_followed(pytester: pytest.Pytester) -> None:
    suite(pytester.path)
    git(pytester.path, "mv", "skills/beta", "skills/beta-renamed")
    commit(pytester.path, "beta moves")

    result = run(pytester, "--skill-lens-changed")

    assert result.ret == 0, result.stdout.str()
    assert calls(pytester) == ["beta::beta-1", "beta::beta-2"]
    (entry,) = report(pytester)["changed"]["changed_skills"]
    assert entry["skill_name"] == "beta"
    assert entry["moved_from"] == "skills/beta"
    assert (
        "skills/beta-renamed/SKILL.md renamed from skills/beta/SKILL.md (its own files)"
        in entry["reasons"]
    )


def test_a_shared_tool_library_changed_marks_every_skill_using_it(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester.path, library=True)
    edit(pytester.path / "shared/tools.yaml", "# a new comment\n")
    commit(pytester.path, "the library changes")

    result = run(pytester, "--skill-lens-changed")

    assert result.ret == 1  # alpha reads the library, so its failing case runs
    assert calls(pytester) == ["alpha::alpha-1", "alpha::alpha-2", "beta::beta-1", "beta::beta-2"]
    changed = report(pytester)["changed"]
    assert changed["unchanged_skills"] == ["gamma"]
    assert [s["reasons"] for s in changed["changed_skills"]] == [
        ["shared/tools.yaml modified (a file its cases read)"]
    ] * 2


def test_the_configuration_file_changed_marks_every_skill(pytester: pytest.Pytester) -> None:
    suite(pytester.path)
    write_file(pytester.path / "skill-lens.toml", "repeat = 1\nmin_pass_rate = 0.5\n")
    commit(pytester.path, "a laxer gate")

    result = run(pytester, "--skill-lens-changed")

    assert result.ret == 0, result.stdout.str()  # alpha fails: 4 of 6 pass, above 50%
    assert len(calls(pytester)) == 6
    changed = report(pytester)["changed"]
    assert changed["unchanged_skills"] == []
    assert {tuple(s["reasons"]) for s in changed["changed_skills"]} == {
        ("skill-lens.toml modified (configuration)",)
    }


def test_nothing_changed_is_a_green_run_that_says_nothing_was_evaluated(
    pytester: pytest.Pytester,
) -> None:
    main = suite(pytester.path)
    write_file(pytester.path / "README.txt", "not a skill\n")
    commit(pytester.path, "docs only")

    result = run(pytester, "--skill-lens-changed", "--skill-lens-markdown", "out.md")

    assert result.ret == 0, result.stdout.str()  # not pytest's 5, not the gate's 1
    assert calls(pytester) == []
    result.assert_outcomes(deselected=6)
    said = f"no skill changed since main ({main[:8]}): nothing to evaluate"
    result.stdout.fnmatch_lines([f"*{said}*", f"Gate passed — {said}"])
    data = report(pytester)
    assert data["outcomes"] == []
    assert data["changed"]["nothing_to_evaluate"] is True
    assert data["changed"]["changed_skills"] == []
    assert data["gate"] == {"passed": True, "exit_code": 0, "reasons": []}
    markdown = (pytester.path / "out.md").read_text(encoding="utf-8")
    assert said in markdown


def test_a_shallow_clone_without_ref_is_exit_2_with_the_fix(pytester: pytest.Pytester) -> None:
    origin = pytester.path / "origin"
    origin.mkdir()
    suite(origin)
    clone = pytester.path / "clone"
    git(pytester.path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))

    result = pytester.runpytest(
        "--skill-lens", str(clone / "skills"), "--skill-lens-changed", *QUIET_PLUGINS
    )

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*skill-lens: the clone is shallow, so the merge base with the default branch "
            "cannot be found",
            "*fix: fetch the whole history: git fetch --unshallow*",
        ]
    )
    result.stdout.no_fnmatch_line("*passed*")


def test_no_git_repository_is_exit_2(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "beta", [{"name": "b", "task": "t", **PASSES}])

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-changed", *QUIET_PLUGINS)

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*is not inside a git repository*", "*fix: run in the*"])


def test_a_path_taken_as_the_ref_is_exit_2_saying_so(pytester: pytest.Pytester) -> None:
    suite(pytester.path)

    result = pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-changed", "skills", *QUIET_PLUGINS
    )

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*--skill-lens-changed 'skills' is not a commit in this repository",
            "*fix: 'skills' is a path: the flag took it as its REF*--skill-lens-changed=REF",
        ]
    )
    assert calls(pytester) == []


def _selection(data: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((o["skill_name"], o["case_name"]) for o in data["outcomes"])


@pytest.mark.slow  # pytest-xdist workers
def test_xdist_workers_make_the_same_selection(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    suite(pytester.path)
    edit(pytester.path / "skills/gamma/SKILL.md")
    commit(pytester.path, "gamma says more")
    plain = run(pytester, "--skill-lens-changed", json_name="plain.json")
    assert plain.ret == 0

    spread = run(pytester, "--skill-lens-changed", "-n", "2", json_name="spread.json")

    assert spread.ret == 0, spread.stdout.str()
    assert _selection(report(pytester, "spread.json")) == [
        ("gamma", "gamma-1"),
        ("gamma", "gamma-2"),
    ]
    assert report(pytester, "spread.json")["changed"] == report(pytester, "plain.json")["changed"]
    spread.stdout.fnmatch_lines(["*2 skill(s) unchanged since main (*), deselected: alpha, beta"])


def _merge(pytester: pytest.Pytester, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_skill_lens.merge", *args],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_shards_merged_equal_the_unsharded_selection(pytester: pytest.Pytester) -> None:
    suite(pytester.path)
    edit(pytester.path / "skills/beta/SKILL.md")
    edit(pytester.path / "skills/gamma/SKILL.md")
    commit(pytester.path, "beta and gamma say more")
    whole = run(pytester, "--skill-lens-changed", json_name="whole.json")
    assert whole.ret == 0
    shards = [
        run(
            pytester, "--skill-lens-changed", "--skill-lens-shard", f"{k}/2", json_name=f"s{k}.json"
        )
        for k in (1, 2)
    ]
    assert [s.ret for s in shards] == [0, 0]
    # The unchanged skill is left out before the cases are dealt: the shards split beta's
    # and gamma's four cases between them, and their selection holds nothing of alpha's.
    for k in (1, 2):
        run_block = report(pytester, f"s{k}.json")["run"]
        assert sorted(run_block["case_order"]) == ["beta", "gamma"]
        assert run_block["selection"]["items"] == 4
    assert calls(pytester).count("alpha::alpha-1") == 0

    merged = _merge(pytester, "s1.json", "s2.json", "--json", "merged.json")

    assert merged.returncode == 0, merged.stderr
    expected, got = report(pytester, "whole.json"), report(pytester, "merged.json")
    assert (
        _selection(got)
        == _selection(expected)
        == [
            ("beta", "beta-1"),
            ("beta", "beta-2"),
            ("gamma", "gamma-1"),
            ("gamma", "gamma-2"),
        ]
    )
    assert got["changed"] == expected["changed"]
    assert expected["changed"]["unchanged_skills"] == ["alpha"]

    # A shard that compared with another commit is not a shard of this run.
    other = report(pytester, "s2.json")
    other["changed"]["commit"] = "0" * 40
    other["changed"]["unchanged_reason"] = "unchanged since main (00000000)"
    (pytester.path / "s2.json").write_text(json.dumps(other), encoding="utf-8")
    refused = _merge(pytester, "s1.json", "s2.json")
    assert refused.returncode == 2
    assert "s2.json: its changed skills differ from s1.json's" in refused.stderr


def test_a_listing_shows_only_the_changed_skills_cases(pytester: pytest.Pytester) -> None:
    suite(pytester.path)
    edit(pytester.path / "skills/gamma/evals/cases.yaml", "# more\n")

    result = run(pytester, "--skill-lens-changed", "--collect-only", "-q")

    assert result.ret == 0
    listed = [line for line in result.stdout.lines if "::" in line]
    assert listed == [
        "skills/gamma/SKILL.md::gamma-1[spy]",
        "skills/gamma/SKILL.md::gamma-2[spy]",
    ]
    assert calls(pytester) == []


def test_every_arm_runner_and_repeat_of_an_unchanged_skill_is_deselected(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester.path)
    edit(pytester.path / "skills/beta/SKILL.md")

    result = run(
        pytester,
        "--skill-lens-changed",
        "--skill-lens-baseline",
        "none",
        "--skill-lens-repeat",
        "2",
        "--skill-lens-min-delta",
        "0",
    )

    assert result.ret == 0, result.stdout.str()
    # beta: 2 cases x 2 arms x 2 repeats run; alpha's and gamma's 16 items are deselected.
    result.stdout.fnmatch_lines(["*= 4 passed, 16 deselected, 4 baseline passed in *"])
    assert calls(pytester) == ["beta::beta-1"] * 4 + ["beta::beta-2"] * 4
    data = report(pytester)
    assert {(o["skill_name"], o["arm"]) for o in data["outcomes"]} == {
        ("beta", "candidate"),
        ("beta", "baseline"),
    }
    assert data["delta"]["comparable_cases"] == 2


def test_an_eval_file_deleted_from_the_evals_directory_given_marks_the_skill(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester.path)
    for name in ("cases", "old"):
        case = [{"name": f"{name}-1", "task": "t", **PASSES}]
        write_file(pytester.path / f"extra/{name}.yaml", json.dumps({"cases": case}))
    commit(pytester.path, "eval files kept apart")
    git(pytester.path, "checkout", "-q", "-b", "pr2")
    (pytester.path / "extra/old.yaml").unlink()  # still read at REF, gone now
    args = ("--skill-lens", "skills/beta", "--skill-lens-evals", "extra", *QUIET_PLUGINS)

    result = pytester.runpytest(*args, "--skill-lens-runner", "spy", "--skill-lens-changed=pr")

    assert result.ret == 0, result.stdout.str()
    assert calls(pytester) == ["beta::cases-1"]
    result.stdout.fnmatch_lines(["*changed: beta: extra/old.yaml deleted (a file its cases read)"])


def test_a_skill_path_given_twice_is_one_skill_in_the_block(pytester: pytest.Pytester) -> None:
    suite(pytester.path)
    edit(pytester.path / "skills/beta/SKILL.md")

    result = run(
        pytester, "--skill-lens", "skills/beta", "--keep-duplicates", "--skill-lens-changed"
    )

    assert result.ret == 0, result.stdout.str()
    changed = report(pytester)["changed"]
    assert [s["skill_name"] for s in changed["changed_skills"]] == ["beta"]
    assert changed["unchanged_skills"] == ["alpha", "gamma"]
    merged = _merge(pytester, "out.json")  # the report reads back
    assert merged.returncode == 0, merged.stderr


def test_a_neighbour_changed_marks_the_skill_whose_offered_cases_are_offered_it(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester.path)
    offered = [
        {"name": f"beta-{n}", "task": "t", "mode": "offered", "neighbours": ["../gamma"]}
        for n in (1, 2)
    ]
    make_skill(pytester.path / "skills", "beta", offered)
    commit(pytester.path, "beta's cases offer gamma beside it")
    edit(pytester.path / "skills/gamma/SKILL.md")  # its description is beta's competition
    commit(pytester.path, "gamma says more")

    result = run(pytester, "--skill-lens-changed", "HEAD~1")

    ran = calls(pytester)
    assert "beta::beta-1" in ran and "beta::beta-2" in ran, result.stdout.str()
    changed = {s["skill_name"]: s["reasons"] for s in report(pytester)["changed"]["changed_skills"]}
    assert changed["beta"] == ["skills/gamma/SKILL.md modified (a neighbour its cases offer)"]
    assert report(pytester)["changed"]["unchanged_skills"] == ["alpha"]
