"""The placebo arm end to end: ``--skill-lens-baseline placebo`` beside the candidate.

The runner ``follower`` answers what its skill's instructions say after ``SAY:``, and
``nothing`` without such a line; it writes what it was handed (description,
instructions, whether a bundle ships) to ``handed-<arm>.json``, so the test reads the
placebo the agent saw. A case passes on ``PASS``: the candidate does, its placebo (same
length, none of its words) does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs import LensRun, Report
from skillfactory import make_skill, write_file

from pytest_skill_lens.suite.placebo import content_words, word_pieces

FOLLOWER = """
import json
import re
from pathlib import Path

from pytest_skill_lens.run.tools.bundle_tools import skill_bundle
from pytest_skill_lens.run.result import RunResult


class Follower:
    name = "follower"

    def run(self, skill, case, workspace):
        handed = {
            "description": skill.description,
            "instructions": skill.instructions,
            "bundle": bool(skill_bundle(skill)),
        }
        arm = "candidate" if skill.variant == "candidate" else "baseline"
        Path(f"handed-{arm}.json").write_text(json.dumps(handed), encoding="utf-8")
        said = re.search(r"^SAY: (.+)$", skill.instructions, re.M)
        return RunResult(output=said.group(1) if said else "nothing")


def pytest_skill_lens_runners(config):
    return {"follower": lambda context: Follower()}
"""

BODY = """\
# Greeting

SAY: PASS

Greet the visitor warmly by name, then offer the menu from references/menu.md.
"""


def _skill(root: Path) -> Path:
    cases = [{"name": "greets", "task": "t", "assertions": [{"kind": "contains", "value": "PASS"}]}]
    directory = make_skill(
        root / "skills",
        "greeter",
        cases,
        frontmatter="name: greeter\ndescription: Greets restaurant visitors by name.\n",
        body=BODY,
    )
    write_file(directory / "references" / "menu.md", "Soup, bread.\n")
    return directory


def _run(pytester: pytest.Pytester, runner: str, *args: str) -> pytest.RunResult:
    write_file(pytester.path / "conftest.py", FOLLOWER)
    _skill(pytester.path)
    return LensRun(runner=runner, json="out.json")(pytester, *args)


def _report(pytester: pytest.Pytester) -> Report:
    return Report.read(pytester.path / "out.json")


def test_the_placebo_arm_acts_with_neutral_text_of_the_same_length(
    pytester: pytest.Pytester,
) -> None:
    result = _run(pytester, "follower", "--skill-lens-baseline", "placebo", "-v")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*greets[[]follower[]] PASSED*", "*greets[[]follower-baseline[]] BASELINE FAILED*"]
    )
    report = _report(pytester)
    assert report["delta"]["baseline_kind"] == "placebo"
    assert report["delta"]["pass_rate_delta"] == 1.0
    candidate = json.loads((pytester.path / "handed-candidate.json").read_text("utf-8"))
    placebo = json.loads((pytester.path / "handed-baseline.json").read_text("utf-8"))
    assert candidate["bundle"] is True and placebo["bundle"] is False
    for key in ("description", "instructions"):
        assert word_pieces(placebo[key]) == word_pieces(candidate[key]) > 0
        assert not content_words(placebo[key]) & content_words(BODY + candidate["description"])
    result.stdout.fnmatch_lines(["Delta vs baseline (placebo): 1 of 1 case(s) comparable"])


def test_min_delta_holds_against_the_placebo_from_the_config_file(
    pytester: pytest.Pytester,
) -> None:
    write_file(pytester.path / "skill-lens.toml", 'baseline = "placebo"\nmin_delta = 1.0\n')
    assert _run(pytester, "follower").ret == 0
    assert _report(pytester)["run"]["baseline_kind"] == "placebo"


def test_the_fake_runner_wires_the_placebo_arm(pytester: pytest.Pytester) -> None:
    # fake answers the same line in both arms: wiring only, a delta of nothing.
    gate = ("--skill-lens-min-delta", "0", "--skill-lens-min-pass-rate", "0")
    result = _run(pytester, "fake", "--skill-lens-baseline", "placebo", *gate)
    assert result.ret == 0
    report = _report(pytester)
    arms = sorted((o["arm"], o["status"]) for o in report["outcomes"])
    assert arms == [("baseline", "failed"), ("candidate", "failed")]
    assert report["delta"]["baseline_kind"] == "placebo"
    assert report["delta"]["pass_rate_delta"] == 0.0


def test_an_unknown_baseline_names_placebo_among_the_choices(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "follower", "--skill-lens-baseline", "sham")
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        ["*--skill-lens-baseline must name arms from 'none', 'previous' and 'placebo'; 'sham'*"]
    )
