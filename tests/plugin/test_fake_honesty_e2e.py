"""Under runner ``fake`` a suite can come out green having measured nothing; every report
says so where its verdict is read, and budget evidence never reads as a measurement.

The verdicts themselves are not changed: ``forbidden:``, ``not_contains``,
``skill_triggered: false`` and budgets still hold under fake (docs/runners.md, the fake
runner, says why); what changes is what a person reads beside them.
"""

from __future__ import annotations

import pytest
from runs import LensRun, Report
from skillfactory import make_skill, scripted_runner_conftest

from pytest_skill_lens.merge.cli import main as merge_main

# Every check here holds trivially under fake: nothing was done, so nothing forbidden was.
_TRIVIAL = """
cases:
  - name: polite
    task: say hello
    assertions:
      - {kind: not_contains, value: sorry}
    budget: {max_tokens: 500, max_cost_usd: 0.01, max_latency_ms: 1000}
  - name: never-refunds
    task: say hello
    tools:
      - name: issue_refund
        description: Refund an order
        parameters: {order_id: string}
    trajectory:
      forbidden: [issue_refund]
  - name: not-for-small-talk
    task: how is the weather
    mode: offered
    trajectory:
      skill_triggered: false
"""

_WIRING_ALL = (
    "Gate passed — wiring only: every candidate outcome (3) came from runner fake, "
    "which measures the suite's wiring, not the skill"
)
_WHAT_HOLDS = (
    "  Under fake, forbidden, not_contains and skill_triggered: false checks hold trivially "
    "and budgets are met at 0 tokens, $0 and 0 ms: none of it is a measurement. To measure "
    "the skill, name a real runner (--skill-lens-runner pydantic-ai, langchain or a product; "
    "docs/runners.md)."
)
_NOT_MEASURED = "not measured under fake (the fake runner calls no model): "


lens = LensRun(json="out/report.json", markdown="out/report.md")


def _summary_section(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "= skill-lens =" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return lines[start + 1 : end]


def test_a_green_fake_run_says_at_the_verdict_that_it_measured_wiring(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "greet", _TRIVIAL)
    result = lens(pytester)

    # The verdicts stand: every trivially holding check still passes, the gate too.
    assert result.ret == 0
    result.assert_outcomes(passed=3)
    assert _summary_section(result)[-2:] == [_WIRING_ALL, _WHAT_HOLDS]

    summary = lens.report(pytester).summary
    assert summary["fake_outcomes"] == 3
    assert summary["fake_note"] == (
        "Wiring only: every candidate outcome (3) came from runner fake, which measures the "
        "suite's wiring, not the skill. " + _WHAT_HOLDS.strip()
    )

    markdown = (pytester.path / "out" / "report.md").read_text(encoding="utf-8")
    head = markdown.split("### Per skill")[0]
    assert head.startswith("## skill-lens — ✅ gate passed\n")
    assert "> ⚠️ Wiring only: every candidate outcome (3) came from runner fake" in head
    assert "not\\_contains and skill\\_triggered: false checks hold trivially" in head


def test_budget_evidence_under_fake_says_its_zeros_are_not_measurements(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "greet", _TRIVIAL)
    lens(pytester, "-k", "polite")

    (outcome,) = lens.report(pytester).outcomes
    assert outcome["status"] == "passed"
    budget = {s["evaluator"]: s for s in outcome["scores"]}["budget"]
    assert budget["passed"] is True
    assert budget["detail"] == (
        "limits compared with the fake runner's figures, which are not measurements: "
        "max_tokens held, max_cost_usd held, max_latency_ms held"
    )
    assert [(c["id"], c["passed"], c["evidence"]) for c in budget["checks"]] == [
        ("max_tokens", True, _NOT_MEASURED + "used 0 tokens, limit is 500"),
        ("max_cost_usd", True, _NOT_MEASURED + "cost $0, limit is $0.01"),
        ("max_latency_ms", True, _NOT_MEASURED + "took 0 ms, limit is 1000 ms"),
    ]


def test_a_failed_gate_under_fake_says_it_after_the_reasons(pytester: pytest.Pytester) -> None:
    cases = """
    cases:
      - name: answers
        task: say hello
        assertions:
          - {kind: contains, value: "Hello, Ada"}
    """
    make_skill(pytester.path / "skills", "greet", cases)
    result = lens(pytester)

    assert result.ret == 1
    assert _summary_section(result)[-4:] == [
        "Gate FAILED:",
        "  - pass rate 0% is below the required 100%",
        "Wiring only: every candidate outcome (1) came from runner fake, which measures the "
        "suite's wiring, not the skill",
        _WHAT_HOLDS,
    ]
    assert lens.report(pytester).summary["fake_outcomes"] == 1


_MIXED = """
cases:
  - name: first
    task: t
    assertions:
      - {kind: not_contains, value: sorry}
    budget: {max_tokens: 500}
  - name: second
    task: t
"""

_SCRIPT = {
    "first": {"output": "done", "input_tokens": 40, "output_tokens": 10, "model": "acme-small"},
    "second": {"output": "done", "model": "acme-small"},
}


def test_a_run_partly_under_fake_names_the_share(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "mixed", _MIXED)
    pytester.makeconftest(scripted_runner_conftest(_SCRIPT))
    result = lens(pytester, "--skill-lens-runner", "fake", "--skill-lens-runner", "scripted")

    assert result.ret == 0
    assert _summary_section(result)[-2:] == [
        "Gate passed — partly wiring: 2 of 4 candidate outcomes (50%) came from runner fake, "
        "which measures the suite's wiring, not the skill",
        _WHAT_HOLDS,
    ]
    report = lens.report(pytester)
    assert report["summary"]["fake_outcomes"] == 2
    assert report["summary"]["fake_note"].startswith("Partly wiring: 2 of 4 candidate outcomes")
    # The scripted runner's budget is a measurement; the fake's is not.
    evidence = {
        o["runner"]: {s["evaluator"]: s for s in o["scores"]}["budget"]["checks"][0]["evidence"]
        for o in report["outcomes"]
        if o["case_name"] == "first"
    }
    assert evidence == {
        "fake": _NOT_MEASURED + "used 0 tokens, limit is 500",
        "scripted": "used 50 tokens, limit is 500",
    }


def test_a_run_without_fake_says_nothing_of_wiring(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "mixed", _MIXED)
    pytester.makeconftest(scripted_runner_conftest(_SCRIPT))
    result = lens(pytester, "--skill-lens-runner", "scripted")

    assert result.ret == 0
    assert _summary_section(result)[-1] == "Gate passed"
    assert "runner fake" not in result.stdout.str()
    summary = lens.report(pytester).summary
    assert (summary["fake_outcomes"], summary["fake_note"]) == (0, None)
    assert "runner fake" not in (pytester.path / "out" / "report.md").read_text(encoding="utf-8")


def test_a_fixture_replacing_the_runner_named_fake_is_not_called_wiring(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "mixed", _MIXED)
    pytester.makeconftest(
        """
        import pytest

        from pytest_skill_lens.run.result import RunResult


        class Measured:
            name = "measured"

            def run(self, skill, case, workspace):
                return RunResult(output="done", input_tokens=30, output_tokens=5, model="acme")


        @pytest.fixture
        def skill_lens_runner():
            return Measured()
        """
    )
    result = lens(pytester, "-k", "first")

    assert result.ret == 0
    assert _summary_section(result)[-1] == "Gate passed"
    (outcome,) = lens.report(pytester).outcomes
    assert outcome["runner"] == "fake" and outcome["model"] == "acme"
    budget = {s["evaluator"]: s for s in outcome["scores"]}["budget"]
    assert budget["checks"][0]["evidence"] == "used 35 tokens, limit is 500"


def test_the_note_survives_a_markdown_size_limit(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "greet", _TRIVIAL)
    lens(pytester, "--skill-lens-markdown-max-chars", "560")

    markdown = (pytester.path / "out" / "report.md").read_text(encoding="utf-8")
    assert len(markdown) <= 560
    assert "### Per skill" not in markdown  # detail was dropped to fit, the note was not
    assert "> ⚠️ Wiring only: every candidate outcome (3) came from runner fake" in markdown


def test_a_merge_of_fake_shards_says_it_too(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    make_skill(pytester.path / "skills", "greet", _TRIVIAL)
    for shard in ("1/2", "2/2"):
        name = shard.replace("/", "-of-")
        LensRun(json=f"{name}.json")(pytester, "--skill-lens-shard", shard)
    capsys.readouterr()

    code = merge_main(["1-of-2.json", "2-of-2.json", "--json", "merged.json"])

    assert code == 0
    assert _WIRING_ALL in capsys.readouterr().out.splitlines()
    merged = Report.read(pytester.path / "merged.json")
    assert merged.summary["fake_outcomes"] == 3
