"""The placebo arm under a framework runner: a real PydanticAI agent against 127.0.0.1.

The server answers the candidate's request with PASS and the placebo's with nothing;
the test reads what each request carried: the candidate's system prompt holds the
skill's text and its bundle tools, the placebo's neutral text of the same length, none
of the skill's words and no bundle tool.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text
from runs import LensRun, served_by
from skillfactory import make_skill, write_file

from pytest_skill_lens.suite.placebo import content_words, word_pieces

# slow: a real agent framework against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

DESCRIPTION = "Greets restaurant visitors by name."
BODY = "Greet the visitor warmly by name, then offer the menu from references/menu.md.\n"


def _system(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages("system"))


def _tools(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


def test_the_placebo_prompt_is_neutral_text_of_the_same_length(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    directory = make_skill(
        pytester.path / "skills",
        "greeter",
        [
            {
                "name": "greets",
                "task": "greet Ana",
                "workspace": {"files": {"guests.txt": "Ana\n"}},  # bundle tools need one
                "assertions": [{"kind": "contains", "value": "PASS"}],
            }
        ],
        frontmatter=f"name: greeter\ndescription: {DESCRIPTION}\n",
        body=BODY,
    )
    write_file(directory / "references" / "menu.md", "Soup, bread.\n")
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")
    server.script["greet Ana"] = [text("PASS"), text("nothing")]
    lens = LensRun(runner="pydantic-ai", json="out.json")
    gate = ("--skill-lens-baseline", "placebo", "--skill-lens-min-delta", "1")
    result = lens(pytester, *served_by(server.url), *gate)
    assert result.ret == 0, result.stdout.str()
    candidate, placebo = server.for_task("greet Ana")
    assert "Greet the visitor warmly" in _system(candidate)
    assert "list_skill_files" in _tools(candidate)
    said = _system(placebo)
    assert "list_skill_files" not in _tools(placebo)
    assert "greeter" in said  # the name is the one thing kept
    skill_words = content_words(DESCRIPTION + BODY)
    assert not content_words(said.replace("greeter", "")) & skill_words
    # The prompt's frame is the runners' own; what stands for the skill is as long.
    frame = _system(candidate)
    for part in (DESCRIPTION, BODY.strip()):
        frame = frame.replace(part, "")
    assert word_pieces(said) == word_pieces(_system(candidate))
    assert word_pieces(frame) < word_pieces(said)
    report = lens.report(pytester)
    assert report["delta"]["baseline_kind"] == "placebo"
    assert [o["status"] for o in report.outcomes] == ["passed", "failed"]
