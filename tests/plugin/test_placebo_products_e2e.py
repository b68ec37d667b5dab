"""The placebo arm under a product: the REAL Claude Code binary, offline.

Claude Code talks to the scripted Anthropic server on 127.0.0.1. A loaded case expands
``/greet`` into the delivered SKILL.md: the candidate's request carries the skill's
instructions, the placebo's carries the placebo's neutral text instead, under the same
name. (That a product is delivered the placebo's SKILL.md alone, no bundled file, is
tests/unit/test_placebo.py's.)
"""

from __future__ import annotations

import pytest
from anthropic_server import AnthropicServer, text
from product_harness import CLAUDE_TOML, ProductRun, anthropic_as_server, seen  # noqa: F401
from product_scenarios import GREETS_WARMLY
from skillfactory import write_file

from pytest_skill_lens.suite.placebo import placebo_skill
from pytest_skill_lens.suite.skill import parse_skill_text

# slow: starts the real Claude Code (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "claude_env")]

BODY = "Say GREET-INSTRUCTIONS, then hello. The layout is in references/style.md.\n"
run = ProductRun("claude-code", body=BODY, toml=CLAUDE_TOML)


def test_claude_code_is_given_the_placebo_in_the_skills_place(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    write_file(pytester.path / "skills" / "greet" / "references" / "style.md", "STYLE-FILE\n")
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(10, 5))]
    result, outcomes = run(pytester, [GREETS_WARMLY], "--skill-lens-baseline", "placebo")
    assert result.ret == 0, result.stdout.str()
    skill_md = pytester.path / "skills" / "greet" / "SKILL.md"
    placebo = placebo_skill(parse_skill_text(skill_md.read_text("utf-8"), skill_md))
    candidate, baseline = seen(server, "greet the team")
    assert "GREET-INSTRUCTIONS" in candidate
    assert "GREET-INSTRUCTIONS" not in baseline and "references/style.md" not in baseline
    # /greet was expanded into the placebo's own text, under the skill's name.
    assert placebo.instructions.split("\n\n")[-1] in baseline
    assert "<command-name>/greet</command-name>" in baseline
    # The server answers both arms alike: what differs is only what each was given.
    assert outcomes["greets warmly"]["status"] == "passed"
