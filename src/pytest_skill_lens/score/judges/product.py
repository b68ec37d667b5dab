"""``judge = "claude-code" | "copilot" | "cli"``: a rubric graded by an agent product.

The product is started exactly as its runner starts it (the same ``[runners.<name>]``
table, home isolation, process bounds and trace reader), with no skill at all: the
arm ``--baseline none`` gets, so nothing is delivered, the prompt goes in as typed,
and the call runs in a fresh empty directory that is removed after it. The prompt is
the shared judge prompt as one text turn, closed by the request for one JSON object;
a preset grades with its tool restriction appended after the table's args, so it has
nothing to act with while it reads an untrusted response. The verdict is the reply's
one JSON object (:mod:`.reply`). A product's failure (a timeout, a non-zero exit, a
reply over ``max_output_bytes``) is an errored verdict that keeps what the trace
reported as spent, with the runner's cost note when it reported nothing.
``judge_model`` and ``judge_temperature`` are not read: a product's model is set with
its table's ``args``, and no product takes a temperature.
"""

from __future__ import annotations

from dataclasses import replace
from os import devnull
from pathlib import Path
from typing import TYPE_CHECKING

from ...run.products.description import MAX_PROMPT_BYTES, Preset, delivers_no_skill
from ...run.result import RunResult
from ...settings import ProductTable, Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..judge import JudgeRequest, JudgeVerdict
from .product_names import ProductName
from .prompt import build_judge_prompt
from .reply import read_reply

if TYPE_CHECKING:
    from ...run.cassettes import KeyPart
    from ...run.products.cli import CliRunner
    from ...run.products.runner import TracedProductRunner

# The flag that sets which tools a preset's model sees, and the restriction built with
# it: Claude Code with an empty list, Copilot with one tool that does not exist (it
# ignores an empty list). cli has none: a command's flags are not known.
TOOL_FLAGS: dict[ProductName, str] = {"claude-code": "--tools", "copilot": "--available-tools"}
RESTRICTIONS: dict[ProductName, tuple[str, ...]] = {
    "claude-code": ("--tools", ""),
    "copilot": ("--available-tools=skill-lens-none",),
}
CLOSING = (
    "Reply with a single JSON object and nothing else: "
    '{"checks": [{"id": ..., "passed": ..., "evidence": ...}, ...]}, '
    "one entry per rubric check."
)
CLI_COST_NOTE = "the cli judge reports no cost: what the command spent is not measured"

# What the judge hands its runner: the skill of a --baseline none arm (nothing is
# delivered, the prompt is sent bare) and a case that is only the prompt.
NO_SKILL = Skill(
    name="skill-lens-judge", description="", instructions="", path=Path(devnull), variant="baseline"
)
assert delivers_no_skill(NO_SKILL)


def prompt_text(request: JudgeRequest) -> str:
    """The shared judge prompt as one user turn: the rules, the data, the closing request."""
    prompt = build_judge_prompt(request)
    return f"{prompt.instructions}\n\n{prompt.message}\n\n{CLOSING}"


def preset_of(name: ProductName) -> Preset:
    if name == "claude-code":
        from ...run.products.claude_code import PRESET as CLAUDE_CODE

        return CLAUDE_CODE
    if name == "copilot":
        from ...run.products.copilot import PRESET as COPILOT

        return COPILOT
    from ...run.products.cli import PRESET as CLI

    return CLI


def table_of(name: ProductName, settings: Settings) -> ProductTable:
    found = settings.runners.get(name)
    return found if found is not None else ProductTable()


def restriction(name: ProductName, table: ProductTable) -> tuple[str, ...]:
    """The flags that leave the judge no tools; none when ``command`` names a wrapper."""
    if name not in RESTRICTIONS or not preset_of(name).names_itself(table):
        return ()
    return RESTRICTIONS[name]


def judging_settings(name: ProductName, settings: Settings) -> Settings:
    """``settings`` with the restriction appended to the product's table ``args``."""
    table = table_of(name, settings)
    args = [*table.args, *restriction(name, table)]
    runners = {**settings.runners, name: table.model_copy(update={"args": args})}
    return settings.model_copy(update={"runners": runners})


def _runner(name: ProductName, settings: Settings) -> TracedProductRunner | CliRunner:
    # The judge's seat in the item's cassette: its start records and replays as a verdict.
    if name == "claude-code":
        from ...run.products.claude_code import ClaudeCodeRunner

        return ClaudeCodeRunner(settings, seat="judge")
    if name == "copilot":
        from ...run.products.copilot import CopilotRunner

        return CopilotRunner(settings, seat="judge")
    from ...run.products.cli import CliRunner

    return CliRunner(settings, seat="judge")


class ProductJudge:
    """Grades one request per product start; holds nothing between calls (thread-safe).

    Under ``--skill-lens-record`` the start is the judge's call in the item's cassette:
    the reply is recorded with the product's trace, and a replay reads the recorded
    trace and the verdict in it exactly as it read them live (docs/replay.md).
    """

    name: str
    records_cassettes = True  # its product's start goes through the item's cassette

    def __init__(self, name: ProductName, settings: Settings) -> None:
        self.name = name
        self._runner = _runner(name, judging_settings(name, settings))

    def cassette_parts(self) -> list[KeyPart]:
        """The judge's product as a cassette is keyed on it: its table (with the judge's
        tool restriction) and its version."""
        return self._runner.cassette_parts()

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        try:
            return self._judge(request)
        except Exception as exc:  # a judge never raises: a bug of ours is errored too
            return JudgeVerdict(
                checks=None, error=f"the {self.name} judge failed: {type(exc).__name__}: {exc}"
            )

    def _judge(self, request: JudgeRequest) -> JudgeVerdict:
        prompt = prompt_text(request)
        size = len(prompt.encode("utf-8", errors="surrogatepass"))
        if size > MAX_PROMPT_BYTES:  # nothing started, nothing spent: no cost note
            return JudgeVerdict(
                checks=None,
                error=(
                    f"the {self.name} judge's prompt is {size:,} bytes, over the "
                    f"{MAX_PROMPT_BYTES:,}-byte limit of one command-line argument; the "
                    "graded response and the artifacts the rubric names make it up"
                ),
                model=self.name,
            )
        result = self._runner.run(NO_SKILL, EvalCase(name="judge", task=prompt), None)
        spent = self._spent(result)
        if result.error is not None:
            return replace(spent, error=result.error)
        checks, why = read_reply(result.output)
        return replace(spent, checks=checks, error=why)

    def _spent(self, result: RunResult) -> JudgeVerdict:
        """What the trace reported as spent, and its note when it reported nothing."""
        note = result.cost_note
        if self.name == "cli" and note is not None:  # the command ran: say so as a judge
            note = CLI_COST_NOTE
        return JudgeVerdict(
            checks=None,
            cost_usd=result.cost_usd,
            cost_note=note,
            price_source=result.price_source,
            tokens=result.tokens,
            model=result.model or self.name,
        )
