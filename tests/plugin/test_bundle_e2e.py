"""The bundle tools end to end: a real PydanticAI agent against a scripted server on 127.0.0.1.

The model lists the skill's files and reads them; the test asserts exactly what the
server got back as tool results (a shipped file's text, the refusal for an eval file)
and which tools each request offered: a case without a workspace, and a skill that
ships nothing besides SKILL.md and its evals, get no bundle tools.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text, tool_calls
from runs import LensRun, served_by
from skillfactory import make_skill, write_file

FRONTMATTER = "name: log-triage\ndescription: Triage a log file.\n"
BODY = "Read references/format.md for the report layout.\n"
FORMAT = "# Report\n\nOne line per level: LEVEL: count\n"
NOT_SHIPPED = (
    "refused: 'evals/cases.yaml' is not a file the skill ships; SKILL.md, eval files "
    "(evals/, *.eval.yaml, evals.json), version control, dependency directories and "
    "secret files (.env, .npmrc, ...) are never readable"
)
BUNDLE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_skill_files",
            "description": "List the bundled files, one path per line, relative to the "
            "skill's directory",
            "parameters": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_skill_file",
            "description": "Read one bundled text file, e.g. `references/style.md`. `path` is "
            "relative to the skill's directory, as list_skill_files shows it",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
    },
]


# slow: real agent frameworks against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]


def skill(
    root: Path,
    cases: Sequence[Mapping[str, Any]],
    *,
    bundle: bool = True,
    evals_file: str = "evals/cases.yaml",
) -> Path:
    directory = make_skill(
        root / "skills",
        "log-triage",
        cases,
        frontmatter=FRONTMATTER,
        body=BODY,
        evals_file=evals_file,
    )
    write_file(directory / "evals" / "expected.md", "ERROR: 4\n")  # the answer key
    write_file(directory / ".env", "OPENAI_API_KEY=sk-real\n")
    if bundle:
        write_file(directory / "references" / "format.md", FORMAT)
        write_file(directory / "scripts" / "count_levels.py", "print('ERROR: 4')\n")
    return directory


def run(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    script: Mapping[str, Sequence[Mapping[str, Any]]],
    *args: str,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    server.script.update({task: list(replies) for task, replies in script.items()})
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")
    lens = LensRun(runner="pydantic-ai", json="report.json")
    return lens(pytester, *served_by(server.url), *args), lens.outcomes_by_case(pytester)


def tool_names(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


def test_the_agent_lists_and_reads_the_bundle_and_never_the_answer_key(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [
        {
            "name": "reads the format",
            "task": "triage the log",
            "workspace": {"files": {"app.log": "ERROR x\n"}},
            "trajectory": {"called": ["list_skill_files", "read_skill_file"]},
            "assertions": [{"kind": "contains", "value": "LEVEL"}],
        }
    ]
    skill(pytester.path, cases)
    script = {
        "triage the log": [
            tool_calls([("list_skill_files", "{}")]),
            tool_calls(
                [
                    ("read_skill_file", '{"path": "references/format.md"}'),
                    ("read_skill_file", '{"path": "evals/cases.yaml"}'),
                    ("read_skill_file", '{"path": "EVALS/expected.md"}'),
                    ("read_skill_file", '{"path": ".env"}'),
                    ("read_skill_file", "{}"),
                ]
            ),
            text("The report layout is LEVEL: count."),
        ]
    }

    result, outcomes = run(pytester, server, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["reads the format"]
    assert outcome["status"] == "passed"
    assert [c["name"] for c in outcome["tool_calls"]] == [
        "list_skill_files",
        *["read_skill_file"] * 5,
    ]
    first, second, third = server.requests
    # Offered after the three workspace tools, with the descriptions and closed schemas.
    assert tool_names(first) == [
        "list_files",
        "read_file",
        "write_file",
        "list_skill_files",
        "read_skill_file",
    ]
    assert first.body["tools"][3:] == BUNDLE_TOOLS
    assert "log-triage" not in json.dumps(first.body["tools"])
    assert second.messages("tool") == [
        {
            "role": "tool",
            "tool_call_id": "call_0",
            "content": "references/format.md\nscripts/count_levels.py",
        }
    ]
    replies = [m["content"] for m in third.messages("tool")[1:]]
    assert replies == [
        FORMAT,
        NOT_SHIPPED,
        NOT_SHIPPED.replace("evals/cases.yaml", "EVALS/expected.md"),
        NOT_SHIPPED.replace("evals/cases.yaml", ".env"),
        "refused: read_skill_file needs path (missing: path)",
    ]
    assert "sk-real" not in json.dumps(third.body)
    assert "ERROR: 4" not in json.dumps(third.body)


@pytest.mark.parametrize(
    ("evals_file", "given"),
    [
        pytest.param("answers.yaml", "skills/log-triage/answers.yaml", id="a-file"),
        pytest.param("qa/answers.yaml", "skills/log-triage/qa", id="a-directory"),
        pytest.param("answers.yaml", "skills/log-triage", id="the-skill-directory"),
    ],
)
def test_an_eval_file_given_with_skill_lens_evals_is_never_shipped(
    pytester: pytest.Pytester, server: ScriptedModelServer, evals_file: str, given: str
) -> None:
    # Neither under evals/ nor named *.eval.yaml: only --skill-lens-evals says it is one.
    cases = [{"name": "peeks", "task": "peek at the answers", "workspace": {}}]
    skill(pytester.path, cases, evals_file=evals_file)
    script = {
        "peek at the answers": [
            tool_calls([("list_skill_files", "{}")]),
            tool_calls([("read_skill_file", json.dumps({"path": evals_file}))]),
            text("nothing to see"),
        ]
    }

    result, outcomes = run(pytester, server, script, "--skill-lens-evals", given)

    assert result.ret == 0, result.stdout.str()
    assert outcomes["peeks"]["status"] == "passed"
    listed, refused = (r.messages("tool")[-1]["content"] for r in server.requests[1:])
    assert listed == "references/format.md\nscripts/count_levels.py"
    assert refused == NOT_SHIPPED.replace("evals/cases.yaml", evals_file)
    assert "peek at the answers" not in json.dumps(server.requests[-1].messages("tool"))


def test_a_case_without_a_workspace_gets_no_bundle_tools(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [
        {
            "name": "no workspace",
            "task": "just answer",
            "tools": [{"name": "lookup", "description": "Look something up", "returns": "x"}],
        }
    ]
    skill(pytester.path, cases)

    result, outcomes = run(pytester, server, {"just answer": [text("done")]})

    assert result.ret == 0, result.stdout.str()
    assert outcomes["no workspace"]["status"] == "passed"
    (request,) = server.requests
    assert tool_names(request) == ["lookup"]


def test_a_skill_that_ships_nothing_else_gets_no_bundle_tools(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [{"name": "bare", "task": "look around", "workspace": {}}]
    skill(pytester.path, cases, bundle=False)  # SKILL.md, evals/ and a .env only

    result, outcomes = run(pytester, server, {"look around": [text("nothing here")]})

    assert result.ret == 0, result.stdout.str()
    assert outcomes["bare"]["status"] == "passed"
    (request,) = server.requests
    assert tool_names(request) == ["list_files", "read_file", "write_file"]


def test_naming_a_bundle_tool_without_a_workspace_is_exit_2_before_any_request(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [
        {"name": "no workspace", "task": "read it", "trajectory": {"called": ["read_skill_file"]}}
    ]
    skill(pytester.path, cases)

    result, _ = run(pytester, server, {"read it": [text("done")]})

    assert result.ret == 2
    out = result.stdout.str()
    assert (
        "the trajectory names 'read_skill_file', which the case does not declare in tools: "
        "(a built-in tool exists only in a case with a workspace: block)"
    ) in out, out
    assert server.requests == []
