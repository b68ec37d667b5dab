"""The example suites of examples/gemini-cli and examples/copilot, run as a user runs them,
under the REAL products, offline.

Each suite is copied as it is and run with ``--skill-lens-runner <product>`` against the
product's scripted server on 127.0.0.1, so an example cannot drift from what its runner
does. The suites of examples/claude-code, codex and opencode are run the same way by
their products' own end-to-end modules.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, text, tool_use
from gemini_harness import GEMINI_TOML, point_gemini_at
from gemini_server import GeminiServer, function_calls
from gemini_server import text as gemini_text
from product_harness import seen
from skillfactory import QUIET_PLUGINS, write_file

# slow: starts the real products (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path")]

EXAMPLES = Path(__file__).parents[2] / "examples"
MESSAGE = "fix(auth): raise the login timeout to 30 seconds\n\nSlow links were cut off."
BODY_PHRASE = "imperative mood"  # in the skill's body only: it reached the model when loaded


def run_example(pytester: pytest.Pytester, product: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    """examples/<product>/commit-message copied under skills/ and run under ``product``,
    with the run's JSON report."""
    shutil.copytree(
        EXAMPLES / product / "commit-message", pytester.path / "skills" / "commit-message"
    )
    result = pytester.runpytest(
        *("--skill-lens", "skills", "--skill-lens-runner", product),
        *("--skill-lens-json", "report.json", *QUIET_PLUGINS),
    )
    report = pytester.path / "report.json"
    return result, json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}


def loaded_by_case(report: dict[str, Any]) -> dict[str, bool | None]:
    return {o["case_name"]: o["skill_loaded"] for o in report.get("outcomes", [])}


def test_the_example_suite_runs_under_gemini_cli_offline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    activate = function_calls([("activate_skill", {"name": "commit-message"})])
    with GeminiServer() as server:
        point_gemini_at(monkeypatch, server.url)
        server.by_content.update(
            {
                "login form": [activate, gemini_text(MESSAGE)],
                "--dry-run": [activate, gemini_text("feat(deploy): add a --dry-run flag")],
                "capital of France": [gemini_text("Paris")],
            }
        )
        write_file(pytester.path / "skill-lens.toml", GEMINI_TOML)
        result, report = run_example(pytester, "gemini-cli")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)
    assert loaded_by_case(report) == {
        "a-fix-gets-a-fix-type": True,
        "reaches-for-the-skill-when-asked-for-a-commit-message": True,
        "leaves-the-skill-alone-for-an-unrelated-question": False,
    }
    # The loaded case's budget holds a cost: the tokens were priced, not left at $0.
    first = next(o for o in report["outcomes"] if o["case_name"] == "a-fix-gets-a-fix-type")
    assert first["cost_usd"] > 0 and first["price_source"].startswith("list price of google:")
    answered = [str(r.body) for r in server.requests if "login form" in r.task]
    assert BODY_PHRASE not in answered[0] and BODY_PHRASE in answered[-1]


@pytest.mark.usefixtures("copilot_env")
def test_the_example_suite_runs_under_copilot_offline(
    pytester: pytest.Pytester, anthropic_server: AnthropicServer
) -> None:
    load = tool_use([("skill", {"skill": "commit-message"})])
    anthropic_server.by_content.update(
        {
            "login form": [load, text(MESSAGE)],
            "--dry-run": [load, text("feat(deploy): add a --dry-run flag")],
            "capital of France": [text("Paris")],
        }
    )
    result, report = run_example(pytester, "copilot")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)
    assert loaded_by_case(report) == {
        "a-fix-gets-a-fix-type": True,
        "reaches-for-the-skill-when-asked-for-a-commit-message": True,
        "leaves-the-skill-alone-for-an-unrelated-question": False,
    }
    answered = seen(anthropic_server, "login form")
    assert BODY_PHRASE not in answered[0] and BODY_PHRASE in answered[-1]
