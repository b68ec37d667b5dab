"""An item lets its parsed case go once its run protocol is over (memory: every item
would keep it to the end of the session). A rerun inside the protocol still finds it;
a second run after it is an error, never a verdict."""

from __future__ import annotations

import json

import pytest
from skillfactory import make_skill
from test_fixtures import ITEMS, run_items

_CASES = [
    {"name": "greets", "task": "Say hello", "assertions": [{"kind": "contains", "value": "hello"}]},
    {"name": "thanks", "task": "Say thanks", "assertions": [{"kind": "contains", "value": "fake"}]},
]

# Runs every item twice inside its protocol, as pytest-rerunfailures does, and counts
# at the end how many items still hold their case.
_RERUN_WITHIN = """
import pytest
from _pytest.runner import runtestprotocol


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem, log=False)  # the first attempt, not reported
    for report in runtestprotocol(item, nextitem=nextitem, log=False):
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def pytest_sessionfinish(session):
    from pytest_skill_lens.plugin.items import CaseItem

    items = [i for i in session.items if isinstance(i, CaseItem)]
    kept = {
        "holding": [i.nodeid for i in items if i._loaded],
        # What another plugin's report may still ask of an item at the end.
        "said": [[str(i.reportinfo()[0].name), i.reportinfo()[1], i.case_name] for i in items],
    }
    (session.config.rootpath / "kept.json").write_text(__import__("json").dumps(kept))
"""

# Runs the first item's protocol again after the whole run.
_RUN_AGAIN_AFTER = """
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    for i, item in enumerate(session.items):
        nextitem = session.items[i + 1] if i + 1 < len(session.items) else None
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
    first = session.items[0]
    first.config.hook.pytest_runtest_protocol(item=first, nextitem=None)
    return True
"""


def _run(pytester: pytest.Pytester, conftest: str) -> pytest.RunResult:
    make_skill(pytester.path / "skills", "greeter", _CASES)
    pytester.makeconftest(conftest)
    return run_items(pytester)


def test_a_rerun_within_the_protocol_finds_the_case_and_none_is_kept_after(
    pytester: pytest.Pytester,
) -> None:
    result = _run(pytester, _RERUN_WITHIN)
    result.assert_outcomes(passed=2)
    assert result.ret == 0
    assert [o["status"] for o in ITEMS.report(pytester).outcomes] == ["passed", "passed"]
    kept = json.loads((pytester.path / "kept.json").read_text(encoding="utf-8"))
    assert kept == {
        "holding": [],
        "said": [["cases.yaml", 1, "greets"], ["cases.yaml", 6, "thanks"]],
    }


def test_an_item_run_again_after_its_protocol_errors_and_never_passes(
    pytester: pytest.Pytester,
) -> None:
    result = _run(pytester, _RUN_AGAIN_AFTER)
    result.assert_outcomes(passed=2, errors=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*greets*already ran in this session*new pytest session*"])
