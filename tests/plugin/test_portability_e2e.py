"""The portability matrix end to end: one suite under two runners that disagree, offline.

Runner ``fake`` answers ``[fake] greet handled: <task>``; runner ``cli`` runs a small
Python script that answers ``got: <task>``, exits 3 on a task holding ``fail`` and, as
every ``cli`` run, measures no tokens. So each case's cells are known before the run:

| case        | fake   | cli            |
|-------------|--------|----------------|
| both        | passed | passed         |
| fake-only   | passed | failed         |
| cli-only    | failed | passed         |
| unmeasured  | passed | not evaluated  |  (a token budget cli cannot measure)
| crashes     | passed | errored        |

fake passes 4 of its 5 scored cases, cli 2 of its 3; over the 3 cases both scored, each
passes 2, so the paired difference is 0, with one case passed only under each.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, Report, run_merge, run_module
from skillfactory import make_skill, write_file

from pytest_skill_lens.gate.intervals import paired_delta_interval, wilson_interval

AGENT = """\
import sys
prompt = sys.argv[1]
if "fail" in prompt:
    sys.stderr.write("the agent gave up\\n")
    sys.exit(3)
print("got:", prompt)
"""

CASES: list[dict[str, Any]] = [
    {"name": "both", "task": "say hi", "assertions": [{"kind": "contains", "value": "say hi"}]},
    {
        "name": "fake-only",
        "task": "say hi",
        "assertions": [{"kind": "contains", "value": "handled"}],
    },
    {"name": "cli-only", "task": "say hi", "assertions": [{"kind": "contains", "value": "got:"}]},
    {
        "name": "unmeasured",
        "task": "say hi",
        "assertions": [{"kind": "contains", "value": "say hi"}],
        "budget": {"max_tokens": 1000},
    },
    {"name": "crashes", "task": "fail now", "assertions": [{"kind": "contains", "value": "fail"}]},
]
RUNNERS = ("fake", "cli")
OUTPUTS = ("--json", "merged.json", "--markdown", "merged.md")
TITLE = "Portability across runners (candidate arm): 2 runner(s), 5 case(s)"


def suite(pytester: pytest.Pytester, cases: list[dict[str, Any]] = CASES) -> None:
    make_skill(pytester.path / "skills", "greet", cases)
    script = write_file(pytester.path / "agent.py", AGENT)
    command = json.dumps([sys.executable, str(script), "{prompt}"])
    write_file(
        pytester.path / "skill-lens.toml", f"[runners.cli]\ncommand = {command}\npass_env = []\n"
    )


run = LensRun(runner=RUNNERS)


def load(pytester: pytest.Pytester, name: str) -> Report:
    return Report.read(pytester.path / name)


def interval(low: float, high: float) -> tuple[float, float]:
    return (round(low, 9), round(high, 9))


def test_two_runners_print_the_matrix_and_write_it_to_json_and_markdown(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester)
    result = run(pytester, "--skill-lens-json", "report.json", "--skill-lens-markdown", "report.md")
    assert result.ret == 1  # cases failed: the gate reads every outcome, as ever
    out = result.stdout.str()
    fake_span = wilson_interval(4, 5)
    assert TITLE in out
    assert (
        f"  runner fake: pass rate 80% over 5 case(s), 95% interval "
        f"[{fake_span.low:.0%}, {fake_span.high:.0%}], confidence low"
    ) in out
    assert (
        "  runner cli: pass rate 67% over 3 case(s), 95% interval [21%, 94%], confidence low; "
        "no verdict: 1 errored, 1 not evaluated"
    ) in out
    assert "  fake - cli: 67% vs 67% over 3 paired case(s), difference +0% [" in out
    assert "passed only under fake: 1, only under cli: 1" in out
    assert "    greet :: unmeasured  fake passed 1/1 | cli not evaluated (1)" in out
    assert "    greet :: crashes  fake passed 1/1 | cli errored (1)" in out
    assert "  Pass in one runner, fail in another (2):" in out
    assert "    - greet :: fake-only: passed under fake; failed under cli" in out
    assert "    - greet :: cli-only: passed under cli; failed under fake" in out
    assert "  Not comparable, no verdict under some runner (2):" in out
    assert "    - greet :: unmeasured: cli not evaluated" in out

    matrix = load(pytester, "report.json")["portability"]
    assert matrix["arm"] == "candidate"
    assert matrix["pairing"] == "every pair"
    fake, cli = matrix["runners"]
    assert (fake["runner"], fake["cases"], fake["passed"], fake["judged"]) == ("fake", 5, 4, 5)
    assert interval(fake["interval"]["low"], fake["interval"]["high"]) == interval(
        fake_span.low, fake_span.high
    )
    assert (cli["cases"], cli["passed"], cli["judged"]) == (3, 2, 3)
    assert cli["without_verdict"] == {
        "errored": 1,
        "not_evaluated": 1,
        "not_run": 0,
        "not_selected": 0,
    }
    (pair,) = matrix["pairs"]
    expected = paired_delta_interval([(1.0, 1.0), (1.0, 0.0), (0.0, 1.0)])
    assert expected is not None
    assert (pair["first"], pair["second"], pair["cases"], pair["difference"]) == (
        "fake",
        "cli",
        3,
        0.0,
    )
    assert interval(pair["interval"]["low"], pair["interval"]["high"]) == interval(
        expected.low, expected.high
    )
    assert (pair["first_only"], pair["second_only"]) == (1, 1)
    grid = {c["case_name"]: [cell["verdict"] for cell in c["cells"]] for c in matrix["cases"]}
    assert grid == {
        "both": ["passed", "passed"],
        "fake-only": ["passed", "failed"],
        "cli-only": ["failed", "passed"],
        "unmeasured": ["passed", "not_evaluated"],
        "crashes": ["passed", "errored"],
    }
    assert [(d["case_name"], d["passed_in"], d["failed_in"]) for d in matrix["divergent"]] == [
        ("fake-only", ["fake"], ["cli"]),
        ("cli-only", ["cli"], ["fake"]),
    ]
    assert [(n["case_name"], n["cells"]) for n in matrix["not_comparable"]] == [
        ("unmeasured", [{"runner": "cli", "verdict": "not_evaluated"}]),
        ("crashes", [{"runner": "cli", "verdict": "errored"}]),
    ]

    markdown = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert "### Portability across runners (candidate arm)" in markdown
    assert "| fake | 5 | 80% [" in markdown
    assert "| cli | 3 | 67% [21%, 94%] | low | 1 errored, 1 not evaluated |" in markdown
    assert "| fake − cli | 3 | 67% vs 67% | **+0%** [" in markdown
    assert "| Case | fake | cli |" in markdown
    assert "| greet :: cli-only | failed 0/1 | passed 1/1 |" in markdown


def test_with_a_baseline_and_repeats_the_grid_reads_the_candidate_arm_once_per_case(
    pytester: pytest.Pytester,
) -> None:
    # Without the skill, fake's answer still says "handled" and cli's still "got:": the
    # baseline arm would pass where the candidate does, so only the arm read shows here.
    suite(pytester, CASES[:3])
    result = run(
        pytester,
        "--skill-lens-baseline",
        "none",
        "--skill-lens-repeat",
        "2",
        "--skill-lens-json",
        "report.json",
    )
    assert result.ret == 1
    out = result.stdout.str()
    assert "Portability across runners (candidate arm): 2 runner(s), 3 case(s)" in out
    assert "    greet :: fake-only  fake passed 2/2 | cli failed 0/2" in out
    matrix = load(pytester, "report.json")["portability"]
    assert [(r["runner"], r["cases"], r["passed"], r["judged"]) for r in matrix["runners"]] == [
        ("fake", 3, 4, 6),
        ("cli", 3, 4, 6),
    ]
    # Each case is one unit of the interval, however often it repeated.
    low = wilson_interval(2, 3)
    assert interval(matrix["runners"][0]["interval"]["low"], 0) == interval(low.low, 0)
    assert [c["cells"][0]["passed"] + c["cells"][0]["failed"] for c in matrix["cases"]] == [2] * 3


def test_one_runner_has_no_matrix_anywhere(pytester: pytest.Pytester) -> None:
    suite(pytester)
    result = LensRun(runner="fake", json="report.json", markdown="report.md")(pytester)
    assert result.ret == 1
    assert "Portability" not in result.stdout.str()
    assert load(pytester, "report.json")["portability"] is None
    assert "Portability" not in (pytester.path / "report.md").read_text(encoding="utf-8")


def test_merged_shards_give_the_matrix_of_the_whole_run(pytester: pytest.Pytester) -> None:
    suite(pytester)
    run(pytester, "--skill-lens-json", "whole.json")
    for k in (1, 2):
        run(pytester, "--skill-lens-json", f"s{k}.json", "--skill-lens-shard", f"{k}/2")
    shards = [load(pytester, f"s{k}.json")["portability"] for k in (1, 2)]
    assert shards[0] != shards[1]  # each shard's matrix holds only its own cases
    merged = run_merge(pytester, "s1.json", "s2.json", *OUTPUTS)
    assert merged.returncode == 1, merged.stderr
    assert (
        load(pytester, "merged.json")["portability"] == load(pytester, "whole.json")["portability"]
    )
    assert TITLE in merged.stdout
    assert "    - greet :: fake-only: passed under fake; failed under cli" in merged.stdout
    assert "### Portability across runners (candidate arm)" in (
        pytester.path / "merged.md"
    ).read_text(encoding="utf-8")


def test_a_forged_matrix_is_refused_by_the_reader(pytester: pytest.Pytester) -> None:
    suite(pytester)
    run(pytester, "--skill-lens-json", "report.json")
    data = load(pytester, "report.json")
    data["portability"]["cases"][0]["cells"][0]["verdict"] = "<b>passed</b>"
    write_file(pytester.path / "forged.json", json.dumps(data))
    html = run_module(pytester, "pytest_skill_lens.cli", "html", "forged.json", "-o", "p.html")
    assert html.returncode == 2, html.stdout + html.stderr
    assert "portability.cases[0].cells[0].verdict" in html.stdout + html.stderr
    assert not (pytester.path / "p.html").exists()


# A judge whose words happen to open as score/ words an unmeasurable check: it did grade.
WORDY_JUDGE = """\
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict


class Wordy:
    def judge(self, request):
        if "got:" in request.output:
            return JudgeVerdict([JudgeCheck("r1", False, "not evaluated as a greeting: no hi")])
        return JudgeVerdict([JudgeCheck("r1", True, "greets")])


def pytest_skill_lens_judges(config):
    return {"wordy": lambda context: Wordy()}
"""


def test_a_graded_check_whose_evidence_opens_with_not_evaluated_is_a_failure(
    pytester: pytest.Pytester,
) -> None:
    judged = {"name": "judged", "task": "say hi", "judge": {"rubric": ["Greets"]}}
    suite(pytester, [CASES[0], judged])
    write_file(pytester.path / "conftest.py", WORDY_JUDGE)
    toml = pytester.path / "skill-lens.toml"
    toml.write_text('judge = "wordy"\n' + toml.read_text(encoding="utf-8"), encoding="utf-8")
    result = run(pytester, "--skill-lens-json", "report.json")
    assert result.ret == 1, result.stdout.str()
    assert "    greet :: judged  fake passed 1/1 | cli failed 0/1" in result.stdout.str()
    merged = run_merge(pytester, "report.json", "--json", "merged.json")
    assert merged.returncode == 1, merged.stderr
    for name in ("report.json", "merged.json"):
        matrix = load(pytester, name)["portability"]
        grid = {c["case_name"]: [cell["verdict"] for cell in c["cells"]] for c in matrix["cases"]}
        assert grid == {"both": ["passed", "passed"], "judged": ["passed", "failed"]}, name
        assert matrix["runners"][1]["without_verdict"]["not_evaluated"] == 0, name


def html_page(pytester: pytest.Pytester) -> Path:
    """The page of a two-runner run whose one case has a name made of markup."""
    hostile = '<img src=x onerror="window.pwned=1">'
    cases = [*CASES[:3], {**CASES[2], "name": hostile}]
    suite(pytester, cases)
    run(pytester, "--skill-lens-html", "report.html")
    return pytester.path / "report.html"
