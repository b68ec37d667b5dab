"""Under pytest-xdist the workers run the cases and the controller alone gates and reports:
the verdicts, the exit code and every report must be those of a plain run."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_scripted_skills, make_skill

# slow: pytest-xdist workers (-m "not slow" skips it)
pytestmark = pytest.mark.slow

pytest.importorskip("xdist")


def _step(case: str) -> dict[str, Any]:
    """pass-* passes, fail-* fails, error-* errors; slow-* first sleeps, so that under
    xdist the cases finish in another order than the planned one."""
    step: dict[str, Any] = {"sleep": 0.8} if case.startswith("slow") else {}
    if case.startswith("error"):
        return {**step, "error": "the provider timed out", "latency_ms": 5.0}
    return {
        **step,
        "output": "nope" if case.startswith("fail") else "PASS",
        "tool_calls": [["lookup", {"q": case}]],
        "input_tokens": 10,
        "output_tokens": len(case),
        "cost_usd": 0.001,
        "latency_ms": 100.0,
        "model": "acme",
    }


_SKILLS: dict[str, list[str] | None] = {
    "alpha": ["slow-pass-1", "pass-2", "fail-3", "error-4"],
    "beta": ["pass-1", "fail-2", "slow-pass-3"],
    "empty": None,
}


def _folder(pytester: pytest.Pytester, skills: dict[str, list[str] | None], toml: str = "") -> None:
    """``skills/<name>`` with a case per name (None: no evals), answered by ``_step``."""
    case = {
        "tools": [{"name": "lookup", "description": "Look up", "parameters": {"q": "string"}}],
        "assertions": [{"kind": "contains", "value": "PASS"}],
    }
    make_scripted_skills(pytester.path, skills, _step, case)
    (pytester.path / "skill-lens.toml").write_text(textwrap.dedent(toml), encoding="utf-8")


def _reporting_to(out: str) -> LensRun:
    """The scripted run, writing its JSON, Markdown and JUnit reports under ``out``."""
    return LensRun(
        runner="scripted",
        json=f"{out}/report.json",
        markdown=f"{out}/report.md",
        junit=f"{out}/junit.xml",
    )


lens = _reporting_to("out")
plain_lens, spread_lens = _reporting_to("plain"), _reporting_to("spread")


def _section(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    headers = [i for i, line in enumerate(lines) if line.startswith("=") and " skill-lens " in line]
    assert len(headers) == 1, f"expected one skill-lens section, found {len(headers)}"
    start = headers[0]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("==")), len(lines))
    return lines[start + 1 : end]


def _junit(path: Path) -> tuple[dict[str, str | None], dict[tuple[str, str], Any]]:
    root = ET.parse(path).getroot()
    (suite,) = root.iter("testsuite")
    counts = {key: suite.get(key) for key in ("tests", "failures", "errors", "skipped")}
    cases = {}
    for case in root.iter("testcase"):
        kinds = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
        texts = [c.text for c in case if c.tag in ("failure", "error")]
        props = sorted((p.get("name"), p.get("value")) for p in case.iter("property"))
        cases[(case.get("classname", ""), case.get("name", ""))] = (kinds, texts, props)
    return counts, cases


def _without_worker_lines(texts: list[str | None]) -> list[str]:
    # xdist prefixes a failure text with the worker that ran it ("[gw0] linux -- ...").
    return [
        "\n".join(line for line in (t or "").splitlines() if not line.startswith("[gw"))
        for t in texts
    ]


def test_xdist_run_agrees_with_a_plain_run(pytester: pytest.Pytester) -> None:
    _folder(pytester, _SKILLS, toml="min_pass_rate = 0.5\n")
    plain = plain_lens(pytester)
    spread = spread_lens(pytester, "-n", "2")

    assert plain.ret == spread.ret == 1
    assert plain.parseoutcomes() == spread.parseoutcomes()
    spread.assert_outcomes(passed=4, failed=2, errors=1, skipped=1)
    # The same section, but for where each wrote its reports (named with their paths).
    in_plain = [line.replace("/plain/", "/<dir>/") for line in _section(plain)]
    assert in_plain == [line.replace("/spread/", "/<dir>/") for line in _section(spread)]
    assert f"JSON report written: {pytester.path / 'spread' / 'report.json'}" in _section(spread)
    assert "4 passed, 2 failed, 1 errored — pass rate 57%" in _section(spread)
    assert "  - 1 case errored" in _section(spread)

    path = pytester.path
    plain_json, spread_json = plain_lens.report(pytester), spread_lens.report(pytester)

    # Planned order (skill, then the file's order), never the order the workers finished in.
    planned = [(s, c) for s, cases in _SKILLS.items() for c in cases or []]
    assert [(o["skill_name"], o["case_name"]) for o in spread_json["outcomes"]] == planned
    assert [o["status"] for o in spread_json["outcomes"]] == [
        o["status"] for o in plain_json["outcomes"]
    ]
    assert spread_json["summary"] == plain_json["summary"]
    assert spread_json["gate"] == plain_json["gate"]
    assert spread_json["skipped_skills"] == plain_json["skipped_skills"] == ["empty"]
    assert spread_json == plain_json  # nothing else differs either

    assert (path / "spread" / "report.md").read_text(encoding="utf-8") == (
        path / "plain" / "report.md"
    ).read_text(encoding="utf-8")

    # pytest writes JUnit test cases as they finish: the workers did finish out of order,
    # so the planned order above was restored by the controller, not found by luck.
    finished = [c.get("name") for c in ET.parse(path / "spread" / "junit.xml").iter("testcase")]
    assert finished[:2] != ["slow-pass-1[scripted]", "pass-2[scripted]"]

    plain_counts, plain_cases = _junit(path / "plain" / "junit.xml")
    spread_counts, spread_cases = _junit(path / "spread" / "junit.xml")
    assert spread_counts == plain_counts
    assert spread_cases.keys() == plain_cases.keys()
    for key, (kinds, texts, props) in plain_cases.items():
        spread_kinds, spread_texts, spread_props = spread_cases[key]
        assert (spread_kinds, spread_props) == (kinds, props), key
        assert _without_worker_lines(spread_texts) == _without_worker_lines(texts), key


def test_xdist_gate_can_pass_a_run_with_failures(pytester: pytest.Pytester) -> None:
    _folder(pytester, {"alpha": ["pass-1", "pass-2", "fail-3"]})
    result = lens(pytester, "-n", "2", "--skill-lens-min-pass-rate", "0.6")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == 0
    assert "2 passed, 1 failed, 0 errored — pass rate 67%" in _section(result)


def test_xdist_authoring_error_exits_2(pytester: pytest.Pytester) -> None:
    _folder(pytester, {"alpha": ["pass-1"]})
    (pytester.path / "skills" / "alpha" / "evals" / "broken.yaml").write_text(
        "cases:\n  - name: typo\n    task: t\n    assertion:\n      - {kind: contains, value: x}\n",
        encoding="utf-8",
    )
    result = lens(pytester, "-n", "2")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*skill-lens authoring error: *broken.yaml:4*unknown key*"])
    # The controller writes a report that says the run was aborted, never a verdict.
    report = lens.report(pytester)
    assert report["aborted"] is True and report["gate"]["passed"] is False
    assert "broken.yaml:4" in report["aborted_reason"]


def test_xdist_selection_of_no_case_exits_1_with_the_reason(pytester: pytest.Pytester) -> None:
    _folder(pytester, {"alpha": ["pass-1", "pass-2"]})
    result = lens(pytester, "-n", "2", "-k", "nomatch")
    assert result.ret == 1
    section = _section(result)
    assert "Gate FAILED:" in section
    assert (
        "  - no eval cases ran: the -k/-m selection deselected every case (skill(s): alpha)"
        in section
    )
    report = lens.report(pytester)
    assert report["summary"]["total"] == 0
    assert report["gate"]["exit_code"] == 1


def test_xdist_stopped_by_x_lists_each_item_once_as_ran_or_not_run(
    pytester: pytest.Pytester,
) -> None:
    # The first failure stops the run; items the workers had already started still finish.
    cases = ["fail-1", *(f"slow-pass-{i}" for i in range(2, 9))]
    _folder(pytester, {"alpha": cases})
    result = lens(pytester, "-n", "2", "-x")
    assert result.ret == 1
    report = lens.report(pytester)
    ran = [o["case_name"] for o in report["outcomes"]]
    waiting = [entry["case_name"] for entry in report["not_run"]]
    assert "fail-1" in ran
    assert waiting, "-x stopped the run before every case ran"
    assert sorted(ran + waiting) == sorted(cases)  # each once: ran, or owed and not run
    assert all("the session stopped before they ran" in e["reason"] for e in report["not_run"])


def test_xdist_a_case_whose_worker_crashed_is_listed_as_not_run(
    pytester: pytest.Pytester,
) -> None:
    # The crashed worker sends nothing; the others' collection facts still owe its case.
    cases = ["pass-1", "crash-2", "pass-3", "pass-4"]
    _folder(pytester, {"alpha": cases})
    conftest = pytester.path / "conftest.py"  # beside the scripted runner's registration
    conftest.write_text(
        conftest.read_text(encoding="utf-8")
        + textwrap.dedent(
            """
            import os

            def pytest_runtest_setup(item):
                if "crash-2" in item.nodeid:
                    os._exit(1)
            """
        ),
        encoding="utf-8",
    )
    result = lens(pytester, "-n", "2")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*crashed while running*crash-2*"])
    report = lens.report(pytester)
    assert sorted(o["case_name"] for o in report["outcomes"]) == ["pass-1", "pass-3", "pass-4"]
    (owed,) = report["not_run"]
    assert owed["case_name"] == "crash-2"
    assert owed["skill_name"] == "alpha" and owed["runner"] == "scripted"
    assert "a crash" in owed["reason"]


def test_xdist_controller_freezes_the_outcomes_it_holds(pytester: pytest.Pytester) -> None:
    # It collects no items to freeze; without this, every full cyclic-GC pass (and
    # pytest's closing ones) walked every report and outcome received so far again.
    cases = [{"name": f"c{i}", "task": "t"} for i in range(600)]
    make_skill(pytester.path / "skills", "alpha", cases)
    pytester.makeconftest(
        """
        import gc

        def pytest_unconfigure(config):
            if not hasattr(config, "workerinput"):
                (config.rootpath / "frozen.txt").write_text(str(gc.get_freeze_count()))
        """
    )
    result = LensRun()(pytester, "-n", "2")
    result.assert_outcomes(passed=600)
    assert int((pytester.path / "frozen.txt").read_text()) > 0


def test_xdist_outcome_travels_packed_and_is_plain_data_on_the_controller(
    pytester: pytest.Pytester,
) -> None:
    # A worker packs each outcome into one JSON text for execnet; a reader on the
    # controller that serialises reports itself (--report-log does) gets plain data.
    _folder(pytester, {"alpha": ["pass-1", "fail-2"]})
    conftest = pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text(encoding="utf-8")
        + textwrap.dedent(
            """
            import os
            import pytest

            seen = []

            @pytest.hookimpl(wrapper=True, tryfirst=True)
            def pytest_report_to_serializable(config, report):
                data = yield
                if hasattr(config, "workerinput") and data.get("when") == "call":
                    seen.append(type(data["skill_lens_outcome"]).__name__)
                return data

            def pytest_configure(config):
                seen.append(config)

            def pytest_runtest_logreport(report):
                config = seen[0]
                if not hasattr(config, "workerinput") and report.when == "call":
                    data = config.hook.pytest_report_to_serializable(config=config, report=report)
                    seen.append("controller " + type(data["skill_lens_outcome"]).__name__)

            def pytest_unconfigure(config):
                name = config.workerinput["workerid"] if hasattr(config, "workerinput") else "c"
                (config.rootpath / f"seen-{name}.txt").write_text(" ".join(seen[1:]))
            """
        ),
        encoding="utf-8",
    )
    result = lens(pytester, "-n", "2")
    assert result.ret == 1  # fail-2 fails
    sent = " ".join((pytester.path / f"seen-gw{i}.txt").read_text() for i in (0, 1)).split()
    assert sent == ["str", "str"]
    assert (pytester.path / "seen-c.txt").read_text() == "controller dict controller dict"
