"""A case may not seed a file where an agent product reads its own configuration (issue 29,
item 1): exit 2 at collection, naming the file, line, case, field, the path and the fix,
before any runner is called, whichever runner the run names (the same eval file runs
under every runner). The real products' side is tests/plugin/
test_product_config_isolation_e2e.py.
"""

from __future__ import annotations

import pytest
from test_authoring_rules import BAD, Expect, assert_refused, bad_case_file, run, write_skill

FIX = "seed the workspace with the files the skill works on"


@pytest.mark.parametrize(
    ("path", "products"),
    [
        (".claude/settings.json", "claude-code and copilot"),
        (".claude/settings.local.json", "claude-code and copilot"),
        (".mcp.json", "claude-code and copilot"),
        (".github/hooks/pre.json", "copilot"),
        (".github/copilot/settings.json", "copilot"),
        ("./.claude/settings.json", "claude-code and copilot"),
        (".codex/config.toml", "codex"),
        (".gemini/settings.json", "gemini-cli"),
        (".gemini/commands/go.toml", "gemini-cli"),
        (".env", "gemini-cli"),
        ("opencode.json", "opencode"),
    ],
)
def test_a_seeded_file_at_a_products_configuration_path_is_exit_2_naming_it(
    pytester: pytest.Pytester, path: str, products: str
) -> None:
    body = f"workspace:\n  files:\n    notes.md: fine\n    {path!r}: '{{}}'\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    problem = f"the path {path!r} is where {products} "
    message = assert_refused(
        result, pytester, Expect("evals/cases.yaml", problem, FIX, "workspace.files", BAD)
    )
    assert "evals/cases.yaml:7, " in message  # the line of the files: mapping


def test_the_same_name_below_another_directory_is_plain_data(pytester: pytest.Pytester) -> None:
    body = "workspace:\n  files:\n    sub/.claude/settings.json: '{}'\n    docs/.mcp.json: '{}'\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
