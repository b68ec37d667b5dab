"""neighbours: under every product, driving the REAL binary offline.

skill-lens installs each neighbour beside the skill, where the product discovers skills,
and reads which of them the model loaded from the product's own load signal. The scripted
server plays a model that loads the neighbour instead of the skill: the neighbour's
instructions reach the model (so it was delivered and loaded), the positive control fails
naming it, a negative control that loads nothing passes, and the JSON report and its
confusion matrix say which skill took which case.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import anthropic_server
import gemini_server
import model_server
import pytest
import responses_server
from product_servers import CLAUDE_TOML, CODEX_TOML, GEMINI_TOML, OFFLINE
from scripted_server import ScriptedServer
from skillfactory import QUIET_PLUGINS, make_skill, write_file

# slow: starts the real products (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path")]

Reply = Mapping[str, Any]
FAREWELL_BODY = "Say FAREWELL-INSTRUCTIONS, then goodbye.\n"


@dataclass(frozen=True)
class Product:
    name: str
    server: Callable[[], Any]
    toml: str
    load: Callable[[str], Reply]  # the model's call that loads the skill of that name
    answer: Callable[[str], Reply]


PRODUCTS = {
    "claude-code": Product(
        "claude-code",
        anthropic_server.AnthropicServer,
        CLAUDE_TOML,
        lambda name: anthropic_server.tool_use([("Skill", {"skill": name})]),
        anthropic_server.text,
    ),
    "copilot": Product(
        "copilot",
        anthropic_server.AnthropicServer,
        "",
        lambda name: anthropic_server.tool_use([("skill", {"skill": name})]),
        anthropic_server.text,
    ),
    "codex": Product(
        "codex",
        responses_server.ResponsesServer,
        CODEX_TOML,
        lambda name: responses_server.calls(
            [("exec_command", {"cmd": f"cat .agents/skills/{name}/SKILL.md"})]
        ),
        responses_server.text,
    ),
    "gemini-cli": Product(
        "gemini-cli",
        gemini_server.GeminiServer,
        GEMINI_TOML,
        lambda name: gemini_server.function_calls([("activate_skill", {"name": name})]),
        gemini_server.text,
    ),
    "opencode": Product(
        "opencode",
        model_server.ScriptedModelServer,
        "",
        lambda name: model_server.tool_calls([("skill", json.dumps({"name": name}))]),
        model_server.text,
    ),
}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Product], ScriptedServer]]:
    with ExitStack() as stack:

        def serve(product: Product) -> ScriptedServer:
            server: ScriptedServer = stack.enter_context(product.server())
            OFFLINE[product.name].point_at(monkeypatch, getattr(server, "url"))  # noqa: B009
            return server

        yield serve


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_a_neighbour_the_model_loads_instead_fails_the_case_naming_it(
    pytester: pytest.Pytester, served: Callable[[Product], ScriptedServer], name: str
) -> None:
    product = PRODUCTS[name]
    server = served(product)
    server.by_content["welcome the guest"] = [
        product.load("farewell"),
        product.answer("Goodbye, guest."),
    ]
    server.by_content["two plus two"] = [product.answer("Four.")]
    cases = [
        {
            "name": case_name,
            "task": task,
            "mode": "offered",
            "neighbours": ["../../others/farewell"],
            "trajectory": {"skill_triggered": expected},
        }
        for case_name, task, expected in (
            ("positive", "welcome the guest", True),
            ("negative", "what is two plus two", False),
        )
    ]
    make_skill(pytester.path / "skills", "greet", cases, body="Say GREET-INSTRUCTIONS.\n")
    make_skill(
        pytester.path / "others",
        "farewell",
        frontmatter="name: farewell\ndescription: Says goodbye to people.\n",
        body=FAREWELL_BODY,
    )
    write_file(pytester.path / "skill-lens.toml", product.toml)

    result = pytester.runpytest(
        *("--skill-lens", "skills", "--skill-lens-runner", name),
        *("--skill-lens-json", "report.json", *QUIET_PLUGINS),
    )

    assert result.ret == 1, result.stdout.str()
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    outcomes = {o["case_name"]: o for o in report["outcomes"]}
    positive, negative = outcomes["positive"], outcomes["negative"]
    assert (positive["status"], positive["skill_triggered"], positive["skills_triggered"]) == (
        "failed",
        False,
        ["farewell"],
    ), positive
    (score,) = [s for s in positive["scores"] if s["evaluator"] == "trajectory"]
    assert score["checks"][0]["evidence"].startswith(
        "the agent loaded the neighbour 'farewell' instead;"
    )
    assert (negative["status"], negative["skills_triggered"]) == ("passed", []), negative
    # The product was given the neighbour and loaded it: its text reached the model.
    told = [json.dumps(r.body) for r in server.requests if "welcome the guest" in r.task]
    assert any("FAREWELL-INSTRUCTIONS" in body for body in told[1:])
    assert not any("GREET-INSTRUCTIONS" in body for body in told)
    cells = report["triggering"]["cells"]
    assert {"written_for": "greet", "took": "farewell", "runs": 1} in cells
    assert {"written_for": "none", "took": "none", "runs": 1} in cells
