"""A run whose products had no skill-lens sandbox says so on the gate line and in the summary.

``product_sandbox = "auto"`` without a working backend runs products under home isolation
alone; the product line has always said so, and now the verdict says it too, where a
reader of a green run looks: ``Gate passed — products ran unsandboxed: ...`` and the
JSON summary's ``unsandboxed_products``. The product is a ``cli`` command (this test
run's Python printing a line); PATH without bwrap makes ``auto`` find no backend.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from product_harness import needs_bwrap, run_skill
from skillfactory import write_file

# slow: products started under a real bwrap where it works
pytestmark = pytest.mark.slow

AGENT = "import sys; print('got:', sys.argv[1])\n"
PASSING = {
    "name": "answers",
    "task": "say hi",
    "assertions": [{"kind": "contains", "value": "got:"}],
}
FAILING = {
    "name": "misses",
    "task": "say hi",
    "assertions": [{"kind": "contains", "value": "nope"}],
}


def run(
    pytester: pytest.Pytester, cases: Sequence[Mapping[str, Any]], sandbox: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    agent = write_file(pytester.path / "agent.py", AGENT)
    command = json.dumps([sys.executable, str(agent), "{prompt}"])
    toml = f'product_sandbox = "{sandbox}"\n[runners.cli]\ncommand = {command}\npass_env = []\n'
    return run_skill(pytester, "cli", cases, toml=toml)


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """PATH holding nothing: no bwrap to be found (the probe is cached per PATH)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def gate_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith(("Gate ", "Products ran"))]


@pytest.mark.usefixtures("no_bwrap")
def test_auto_without_a_backend_says_so_on_the_gate_line_and_in_the_summary(
    pytester: pytest.Pytester,
) -> None:
    result, report = run(pytester, [PASSING], "auto")

    assert result.ret == 0, result.stdout.str()
    assert gate_lines(result) == [
        "Gate passed — products ran unsandboxed: cli (bwrap not found on PATH)"
    ]
    assert report["summary"]["unsandboxed_products"] == ["cli"]


@pytest.mark.usefixtures("no_bwrap")
def test_a_failed_gate_says_it_too(pytester: pytest.Pytester) -> None:
    result, report = run(pytester, [FAILING], "auto")

    assert result.ret == 1
    lines = gate_lines(result)
    assert lines[0] == "Gate FAILED:"
    assert lines[-1] == "Products ran unsandboxed: cli (bwrap not found on PATH)"
    assert report["summary"]["unsandboxed_products"] == ["cli"]


def test_off_says_so_as_well(pytester: pytest.Pytester) -> None:
    result, report = run(pytester, [PASSING], "off")

    assert result.ret == 0, result.stdout.str()
    assert gate_lines(result) == [
        'Gate passed — products ran unsandboxed: cli (product_sandbox = "off")'
    ]
    assert report["summary"]["unsandboxed_products"] == ["cli"]


@needs_bwrap()
def test_under_bwrap_the_gate_line_is_plain(pytester: pytest.Pytester) -> None:
    result, report = run(pytester, [PASSING], "auto")

    assert result.ret == 0, result.stdout.str()
    assert gate_lines(result) == ["Gate passed"]
    assert report["summary"]["unsandboxed_products"] == []


def test_a_run_without_products_has_no_figure(pytester: pytest.Pytester) -> None:
    result, report = run_skill(pytester, "fake", [{"name": "c", "task": "t"}])
    assert report["summary"]["unsandboxed_products"] is None
    assert not any("unsandboxed" in line for line in result.outlines)
