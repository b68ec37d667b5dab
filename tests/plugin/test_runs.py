"""The test helpers of runs.py: a report is read strictly and keyed only when unambiguous."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs import LensRun, Report
from skillfactory import QUIET_PLUGINS


def _outcome(case: str, arm: str = "candidate") -> dict[str, object]:
    return {"case_name": case, "arm": arm, "status": "passed"}


def test_a_report_with_nan_or_bad_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text('{"summary": {"pass_rate": NaN}}', encoding="utf-8")
    with pytest.raises(AssertionError, match="holds NaN"):
        Report.read(path)
    path.write_bytes(b'{"outcomes": ["\xff"]}')
    with pytest.raises(UnicodeDecodeError):
        Report.read(path)
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(AssertionError, match="not a JSON object"):
        Report.read(path)


def test_outcomes_are_keyed_by_case_only_when_no_name_repeats(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"outcomes": [_outcome("a"), _outcome("b")]}), encoding="utf-8")
    assert Report.read(path).statuses() == {"a": "passed", "b": "passed"}

    both_arms = [_outcome("a"), _outcome("a", "baseline"), _outcome("b")]
    path.write_text(json.dumps({"outcomes": both_arms}), encoding="utf-8")
    with pytest.raises(AssertionError, match=r"case names repeat in the outcomes: \['a'\]"):
        Report.read(path).by_case()


def test_a_run_names_its_skills_runners_and_reports_before_the_call_arguments() -> None:
    run = LensRun(runner=("left", "right"), json="o.json", junit="j.xml", options=("-v",))
    assert run.argv("-x") == [
        *("--skill-lens", "skills", "--skill-lens-runner", "left", "--skill-lens-runner", "right"),
        *("--skill-lens-json", "o.json", "--junitxml", "j.xml", "-v", *QUIET_PLUGINS, "-x"),
    ]
    assert LensRun(skills="here", quiet=False).argv() == ["--skill-lens", "here"]
