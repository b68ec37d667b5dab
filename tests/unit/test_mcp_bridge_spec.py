"""The bridge's spec reader against the eval files' own model (``ToolSpec``).

The bridge starts for every product session with tools, so it reads its spec without
pydantic (about 85 ms of imports a start); these tests hold its reader to the model's
rules: what the model refuses the bridge refuses, and what both accept answers alike.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_skill_lens.run.tools.bridge_spec import SpecError, encode_spec, parse_spec
from pytest_skill_lens.run.tools.mocktools import build_mock_tools
from pytest_skill_lens.suite.model import ToolSpec

SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}}
TOOLS: list[dict[str, Any]] = [
    {"name": "one", "input_schema": SCHEMA, "returns": "always this"},
    {"name": "empty", "input_schema": SCHEMA},
    {"name": "seq", "description": "a sequence", "parameters": {"id": "string"}, "returns": []},
    {"name": "seq2", "parameters": {"id": "string", "n": "integer"}, "returns": ["a", "b"]},
    {
        "name": "lookup",
        "input_schema": SCHEMA,
        "returns": [
            {"when": {"id": "A-1"}, "value": "shipped"},
            {"when": {"id": "A-2", "deep": {"x": [1, 2.5, None, True]}}, "value": "deep"},
            {"when": {"n": float("nan")}, "value": "never"},
            {"value": "fallback"},
        ],
    },
    {"name": "no_fallback", "input_schema": SCHEMA, "returns": [{"when": {}, "value": "all"}]},
]
CALLS: list[dict[str, Any]] = [
    {},
    {"id": "A-1"},
    {"id": "A-2", "deep": {"x": [1, 2.5, None, True], "y": 0}},
    {"id": "A-2", "deep": {"x": [1, 2.5, None, 1]}},
    {"n": float("nan")},
    {"id": 1},
]


def entry(**fields: Any) -> dict[str, Any]:
    return {"name": "t", "input_schema": {"type": "object"}, **fields}


BAD_ENTRIES: list[dict[str, Any]] = [
    {"name": 1, "input_schema": {"type": "object"}},
    {"name": None, "input_schema": {"type": "object"}},
    entry(description=3),
    entry(description=None),
    entry(input_schema=[]),
    entry(input_schema={1: "x"}),
    entry(returns=1),
    entry(returns=None),
    entry(returns=[1]),
    entry(returns=["a", {"value": "b"}]),
    entry(returns=[{"when": {"a": 1}}]),
    entry(returns=[{"value": 1}]),
    entry(returns=[{"when": 1, "value": "x"}]),
    entry(returns=[{"when": [], "value": "x"}]),
    entry(returns=[{"when": {}, "value": "x", "then": "y"}]),
    entry(returns={"value": "x"}),
    entry(typo=1),
]


@pytest.mark.parametrize("bad", BAD_ENTRIES, ids=lambda bad: json.dumps(bad, default=str)[:60])
def test_an_entry_the_eval_model_refuses_the_bridge_refuses(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ToolSpec.model_validate(bad)
    with pytest.raises(SpecError) as raised:
        parse_spec({"skill_lens_bridge": 1, "tools": [bad]})
    assert str(raised.value).startswith("tools[0]")
    assert "\n" not in str(raised.value)


def test_every_tool_answers_every_call_as_the_eval_models_mock_tools_do() -> None:
    models = [ToolSpec.model_validate(tool) for tool in TOOLS]
    spec = parse_spec(json.loads(encode_spec(models)))
    served = build_mock_tools(spec.tools)
    expected = build_mock_tools(models)
    assert list(served) == list(expected)
    for name, tool in served.items():
        assert tool.schema == expected[name].schema
        assert tool.description == expected[name].description
        for arguments in CALLS * 2:  # twice: a sequence moves on, then repeats its last
            assert tool.call(arguments) == expected[name].call(arguments), (name, arguments)


def test_the_bridge_serves_without_importing_pydantic(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(encode_spec([ToolSpec.model_validate(tool) for tool in TOOLS]))
    code = (
        "import sys\n"
        "from pytest_skill_lens.mcp_bridge.cli import main\n"
        f"code = main(['--spec', {str(spec)!r}, '--check'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'yaml'))\n"
        "print(code, heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr
