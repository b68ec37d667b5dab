"""A case item's three reports share one keywords dict while their keywords agree
(memory: pytest's terminal reporter keeps every report), and say the same keywords a
report of their own would."""

from __future__ import annotations

import json

import pytest
from skillfactory import make_skill
from test_fixtures import run_items

_CASES = [
    {
        "name": "greets",
        "task": "Say hello",
        "tags": ["smoke"],
        "assertions": [{"kind": "contains", "value": "hello"}],
    },
    {"name": "thanks", "task": "Say thanks", "assertions": [{"kind": "contains", "value": "fake"}]},
]

# Keeps every report as pytest made it and writes, per item, the keywords each phase's
# report holds and whether they are one object. A marker added in the call phase of
# "thanks" makes its teardown's keywords differ from its setup's.
_OBSERVER = """
import json

import pytest

_reports = {}


def pytest_runtest_call(item):
    if "thanks" in item.name:
        item.add_marker(pytest.mark.added_late)


def pytest_runtest_logreport(report):
    _reports.setdefault(report.nodeid, []).append(report)


def pytest_sessionfinish(session):
    seen = {
        nodeid: {
            "keywords": [sorted(r.keywords) for r in reports],
            "one_object": [r.keywords is reports[0].keywords for r in reports],
        }
        for nodeid, reports in _reports.items()
    }
    (session.config.rootpath / "seen.json").write_text(json.dumps(seen))
"""


def test_an_items_reports_share_one_keywords_dict_and_a_changed_one_stays_its_own(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "kw", _CASES)
    pytester.makeconftest(_OBSERVER)
    pytester.makeini("[pytest]\nmarkers =\n    added_late: added in the call phase\n")
    result = run_items(pytester)
    result.assert_outcomes(passed=2)
    seen = json.loads((pytester.path / "seen.json").read_text(encoding="utf-8"))
    greets = next(v for k, v in seen.items() if "greets" in k)
    thanks = next(v for k, v in seen.items() if "thanks" in k)
    assert greets["one_object"] == [True, True, True]
    setup_keywords = greets["keywords"][0]
    assert {"greets[fake]", "skill_lens", "smoke", "SKILL.md", "kw", "skills"} <= set(
        setup_keywords
    )
    assert greets["keywords"] == [setup_keywords] * 3
    # The call report holds the marker added during the call; setup's does not. Each
    # report keeps the keywords pytest gave it.
    assert thanks["one_object"] == [True, False, False]
    assert "added_late" not in thanks["keywords"][0]
    assert "added_late" in thanks["keywords"][1]
    assert thanks["keywords"][1] == thanks["keywords"][2]


def test_reports_from_xdist_workers_keep_their_keywords(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "kw", _CASES)
    pytester.makeconftest(_OBSERVER)
    pytester.makeini("[pytest]\nmarkers =\n    added_late: added in the call phase\n")
    result = run_items(pytester, "-n", "2")
    result.assert_outcomes(passed=2)
    seen = json.loads((pytester.path / "seen.json").read_text(encoding="utf-8"))
    greets = next(v for k, v in seen.items() if "greets" in k)
    assert greets["keywords"][0] == greets["keywords"][2]
    assert {"greets[fake]", "skill_lens", "smoke"} <= set(greets["keywords"][0])
