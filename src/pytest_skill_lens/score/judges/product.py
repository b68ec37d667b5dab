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
from .prompt import build_judge_prompt
from .reply import read_reply

if TYPE_CHECKING:
    from ...run.cassettes import KeyPart
    from ...run.sandbox.product_sandbox import ProductSandbox

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


def restriction(product: Preset, table: ProductTable) -> tuple[str, ...]:
    """The flags that leave the judge no tools (the product's ``judge_restriction``);
    none when ``command`` names a wrapper, or for ``cli``, whose flags are not known."""
    if not product.names_itself(table):
        return ()
    return product.judge_restriction


def judging_settings(product: Preset, settings: Settings) -> Settings:
    """``settings`` with the restriction appended to the product's table ``args``."""
    table = product.table(settings)
    args = [*table.args, *restriction(product, table)]
    runners: dict[str, ProductTable] = {
        str(name): found for name, found in settings.runners.items()
    }
    runners[product.name] = table.model_copy(update={"args": args})
    return settings.model_copy(update={"runners": runners})


class ProductJudge:
    """Grades one request per product start; holds nothing between calls (thread-safe).

    Under ``--skill-lens-record`` the start is the judge's call in the item's cassette:
    the reply is recorded with the product's trace, and a replay reads the recorded
    trace and the verdict in it exactly as it read them live (docs/replay.md).
    """

    name: str
    records_cassettes = True  # its product's start goes through the item's cassette

    def __init__(
        self, product: Preset, settings: Settings, *, sandbox: ProductSandbox | None
    ) -> None:
        from ...run.products.runner import ProductRunner

        self.name = product.name
        # The judge's seat in the item's cassette: its start records and replays as a verdict.
        judging = judging_settings(product, settings)
        self._runner = ProductRunner(product, judging, sandbox=sandbox, seat="judge")

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
