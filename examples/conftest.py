"""A scripted stand-in for a model, so the examples run offline, free and the same every time.

This is NOT a model and it measures nothing about the skills. It answers each
(skill, case) with the steps written in ``SCRIPTS`` below: it calls the case's
real mock tools, and in a workspace case the real built-in tools a framework runner
offers (``list_files``, ``write_file``, ``read_skill_file``, ``run_script``, ... from
``pytest_skill_lens.run.tools.toolkit.builtin_tools``, the same code path), with the
arguments the script names, then writes the script's answer, filling in fields from
the tool replies. ``run_script`` really runs the skill's bundled script (sandboxed as
configured); its stdout is what the answer quotes. A case with no script comes
back errored, never passed. The scripted judge grades a rubric entry by looking
for the phrases ``RUBRIC_SCRIPTS`` lists for it, and fails an entry it has no
script for.

A second table, ``WITHOUT_SKILL_SCRIPTS``, is played when the stand-in is handed a
skill with no description and no instructions: the emptied skill of the ``none``
baseline arm (``--skill-lens-baseline none``). Those scripts are our guess at what
an agent that never read the skill would do, written by hand from the skills' own
text: it opens a greeting its own way, refunds an order outside the 30-day window it
was never told about, counts log levels with a substring search because it never
learnt of the bundled script. Some of its cases still pass, because the task alone
is enough for them, and those show up as low-signal checks. The delta such a run
prints is therefore the difference between two scripts we wrote: it demonstrates the
report, and says nothing about whether the skills help a real model. Only a real
runner (``--skill-lens-runner pydantic-ai``) can say that.

Its usage figures are stand-in figures, computed rather than invented: tokens
are whitespace-separated words of what it read (skill, tool declarations, task,
tool replies) and of what it wrote (tool-call arguments, the answer); cost is
those counts at the nominal prices below, and every report says so (its
``price_source`` is ``SCRIPTED_COST``): it is no price anyone paid; latency is measured.

To run the same examples against a real model, see ``skill-lens.toml`` at the
repository root.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.run.runner import RunnerContext, RunnerFactory
from pytest_skill_lens.run.sandbox.script_sandbox import SandboxDecision
from pytest_skill_lens.run.tools.mocktools import build_mock_tools
from pytest_skill_lens.run.tools.toolkit import builtin_tools
from pytest_skill_lens.run.workspace.workspace import Limits, Workspace
from pytest_skill_lens.score.judge import (
    JudgeCheck,
    JudgeContext,
    JudgeFactory,
    JudgeRequest,
    JudgeVerdict,
)
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill

STAND_IN_MODEL = "scripted-stand-in"
# Nominal prices (US dollars per million tokens) for the stand-in's own figures, of the
# same order as a small hosted model, so that budget: max_cost_usd has a number to check.
INPUT_USD_PER_MILLION = 0.15
OUTPUT_USD_PER_MILLION = 0.60
# Where the stand-in's cost figures come from, said beside them in every report.
SCRIPTED_COST = "scripted: computed from word counts at nominal prices, not a price"


@dataclass(frozen=True)
class Call:
    """One tool call the script makes; its reply is kept under ``save_as``.

    With ``fill``, each text argument is a ``str.format`` template over the replies
    saved so far (a report written from what a script printed, say).
    """

    tool: str
    arguments: dict[str, Any]
    save_as: str | None = None
    fill: bool = False


@dataclass(frozen=True)
class Script:
    """What the stand-in does for one case.

    When the script saves tool replies, ``answer`` is a ``str.format`` template
    over them (a JSON reply is parsed, so ``{order[total_usd]:.2f}`` works);
    otherwise it is used as written.
    """

    answer: str
    calls: tuple[Call, ...] = field(default=())


SCRIPTS: dict[tuple[str, str], Script] = {
    ("greeting", "greets-a-named-person"): Script(
        "Hello, Ada Lovelace! We are all looking forward to your first day with the team on Monday."
    ),
    ("greeting", "asks-who-to-greet-when-no-name-is-given"): Script(
        "Hello! Who would you like me to greet?"
    ),
    ("greeting", "greeting-card-as-json"): Script(
        '{"to": "Grace Hopper", "message": "Hello, Grace Hopper! Happy birthday, and every '
        'good wish for the year ahead.", "language": "en"}'
    ),
    ("greeting", "greets-in-french"): Script(
        "Bonjour, Marie Curie ! Nous avons hâte de vous accueillir au laboratoire demain. "
        "(Hello, Marie Curie! We look forward to welcoming you to the lab tomorrow.)"
    ),
    ("order-support", "refund-within-window"): Script(
        "I'm sorry the lid on order {order[id]} arrived cracked. It was delivered "
        "{order[days_since_delivery]} days ago, inside our 30-day window, so I have refunded "
        "the full ${refund[amount_usd]:.2f}. Your refund id is {refund[refund_id]}, and the "
        "order's status is now {confirmed[status]}.",
        calls=(
            Call("lookup_order", {"order_id": "1234"}, save_as="order"),
            Call("issue_refund", {"order_id": "1234", "amount_usd": 42.5}, save_as="refund"),
            Call("lookup_order", {"order_id": "1234"}, save_as="confirmed"),
        ),
    ),
    ("order-support", "refund-refused-outside-window"): Script(
        "I looked up order {order[id]}: it was delivered {order[days_since_delivery]} days "
        "ago, so the 30-day return window has closed and I can't refund it. I can offer you "
        "store credit for the full ${order[total_usd]:.2f} instead, if that helps.",
        calls=(Call("lookup_order", {"order_id": "5678"}, save_as="order"),),
    ),
    ("log-triage", "counts-levels-with-the-script"): Script(
        "Counted by scripts/count_levels.py:\n{levels[stdout]}\nThe full report is in triage.md.",
        calls=(
            Call(
                "run_script",
                {"path": "scripts/count_levels.py", "args": ["app.log"]},
                save_as="levels",
            ),
            Call("read_skill_file", {"path": "references/report-format.md"}),
            Call(
                "write_file",
                {
                    "path": "triage.md",
                    "content": "# Log triage: app.log\n\n## Counts\n{levels[stdout]}\n\n"
                    "## Verdict\nneeds attention\n",
                },
                fill=True,
            ),
        ),
    ),
    ("order-support", "eligibility-check-for-two-orders"): Script(
        "Order {first[id]} can still be refunded: it was delivered "
        "{first[days_since_delivery]} days ago, inside the 30-day window. Order {second[id]} "
        "was delivered {second[days_since_delivery]} days ago, so its 30-day return window "
        "has closed, though store credit is possible. I haven't refunded anything; just say "
        "the word if you want the refund for order {first[id]}.",
        calls=(
            Call("lookup_order", {"order_id": "1001"}, save_as="first"),
            Call("lookup_order", {"order_id": "1002"}, save_as="second"),
        ),
    ),
}

# What the stand-in does when the skill is empty (the `none` baseline): an agent with
# the same task and tools but none of the skill's rules. Each entry says which rule of
# the skill it misses; the ones that miss none still pass, and are flagged low-signal.
WITHOUT_SKILL_SCRIPTS: dict[tuple[str, str], Script] = {
    # The task alone is enough: "Hello, <name>!" is an ordinary opening. Passes.
    ("greeting", "greets-a-named-person"): Script(
        "Hello, Ada Lovelace! Welcome to the team, we can't wait to see you on Monday."
    ),
    # Rule 4 (ask who to greet, in exactly one line) is the skill's own: fails.
    ("greeting", "asks-who-to-greet-when-no-name-is-given"): Script(
        "Hello there! I hope you're having a wonderful day."
    ),
    # Rule 6 (a bare JSON object with to, message and language) is the skill's own: a
    # fenced object without `language` fails both checks.
    ("greeting", "greeting-card-as-json"): Script(
        '```json\n{"to": "Grace Hopper", "message": "Happy birthday, Grace Hopper! '
        'Wishing you a wonderful year ahead."}\n```'
    ),
    # Rule 5 (the French opening with its space before "!", then the English in
    # parentheses) is the skill's own: fails both checks.
    ("greeting", "greets-in-french"): Script(
        "Bonjour Marie Curie! Nous avons hâte de vous accueillir au laboratoire demain."
    ),
    # Refunding a recent order needs no policy; the confirming lookup (step 3) is
    # skipped, which no check of this case asks for. Passes.
    ("order-support", "refund-within-window"): Script(
        "Sorry about the cracked lid! I've refunded ${refund[amount_usd]:.2f} for order "
        "{order[id]}; your refund id is {refund[refund_id]}.",
        calls=(
            Call("lookup_order", {"order_id": "1234"}, save_as="order"),
            Call("issue_refund", {"order_id": "1234", "amount_usd": 42.5}, save_as="refund"),
        ),
    ),
    # The 30-day window is the skill's policy: without it the order is refunded. Fails.
    ("order-support", "refund-refused-outside-window"): Script(
        "Sorry the jacket doesn't fit! I've refunded ${refund[amount_usd]:.2f} for order "
        "{order[id]}; your refund id is {refund[refund_id]}.",
        calls=(
            Call("lookup_order", {"order_id": "5678"}, save_as="order"),
            Call("issue_refund", {"order_id": "5678", "amount_usd": 89.0}, save_as="refund"),
        ),
    ),
    # Looking both orders up and refunding nothing follows from the task (the trajectory
    # checks hold, and show as low-signal); whether they are eligible needs the policy.
    ("order-support", "eligibility-check-for-two-orders"): Script(
        "Order {first[id]} was delivered {first[days_since_delivery]} days ago and order "
        "{second[id]} {second[days_since_delivery]} days ago. I don't know the shop's "
        "return policy, so I can't say whether either can still be returned; I haven't "
        "refunded anything.",
        calls=(
            Call("lookup_order", {"order_id": "1001"}, save_as="first"),
            Call("lookup_order", {"order_id": "1002"}, save_as="second"),
        ),
    ),
    # The bundled script and the report layout are the skill's own (an emptied skill has
    # no bundle, so neither run_script nor read_skill_file is offered): the log is read
    # and every line mentioning a level is counted, as `grep -c LEVEL app.log` would.
    # That miscounts ERROR and WARN and writes the report in a layout of its own. Fails.
    ("log-triage", "counts-levels-with-the-script"): Script(
        "Lines per level in app.log:\nERROR: 5\nWARN: 4\nINFO: 6\nDEBUG: 2\n"
        "I wrote a summary to triage.md.",
        calls=(
            Call("read_file", {"path": "app.log"}),
            Call(
                "write_file",
                {
                    "path": "triage.md",
                    "content": "Triage of app.log\n\nERROR: 5\nWARN: 4\nINFO: 6\nDEBUG: 2\n",
                },
            ),
        ),
    ),
}

# The scripted judge: a rubric entry (by its exact text) holds when every phrase
# appears in the output, ignoring letter case.
RUBRIC_SCRIPTS: dict[str, tuple[str, ...]] = {
    "The reply names order 5678": ("order 5678",),
    "The reply explains that the 30-day return window has closed": (
        "30-day return window has closed",
    ),
    "The reply offers store credit instead of a refund": ("store credit",),
}


def words(*texts: str) -> int:
    """The stand-in's token count: whitespace-separated words."""
    return sum(len(text.split()) for text in texts)


def price(input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * INPUT_USD_PER_MILLION + output_tokens * OUTPUT_USD_PER_MILLION) / 1e6


def context_text(skill: Skill, case: EvalCase, builtins: dict[str, Any]) -> str:
    """What a model would be shown before the task: the skill and the tool declarations."""
    parts = [f"# {skill.name}", skill.description, skill.instructions]
    for tool in case.tools:
        schema = json.dumps(tool.json_schema(), sort_keys=True)
        parts.append(f"tool {tool.name}: {tool.description} {schema}")
    for builtin in builtins.values():
        schema = json.dumps(builtin.schema, sort_keys=True)
        parts.append(f"tool {builtin.name}: {builtin.description} {schema}")
    return "\n\n".join(parts)


def parsed_reply(reply: str) -> Any:
    """A JSON reply parsed; a ``run_script`` reply split into its exit line and streams."""
    script = re.fullmatch(r"(?s)exit code: (-?\d+)\nstdout:\n(.*)\nstderr:\n(.*)", reply)
    if script is not None:
        code, stdout, stderr = script.groups()
        return {"exit_code": int(code), "stdout": stdout, "stderr": stderr}
    try:
        return json.loads(reply)
    except ValueError:
        return reply


def is_empty(skill: Skill) -> bool:
    """The skill says nothing: the ``none`` baseline, which plays ``WITHOUT_SKILL_SCRIPTS``."""
    return not skill.description and not skill.instructions


def offered_builtins(
    skill: Skill, workspace: Path | None, settings: Settings, sandbox: SandboxDecision | None
) -> dict[str, Any]:
    """The built-in tools a framework runner would offer for this case, by name."""
    if workspace is None:
        return {}
    opened = Workspace.attach(workspace, Limits.from_settings(settings))
    return {tool.name: tool for tool in builtin_tools(skill, opened, settings, sandbox)}


class ScriptedRunner:
    """Plays the script for a case against the case's own mock tools."""

    name = "scripted"

    def __init__(self, settings: Settings, sandbox: SandboxDecision | None = None) -> None:
        self.settings = settings
        self.sandbox = sandbox  # where run_script runs scripts (the skill_lens_sandbox fixture)

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        started = time.perf_counter()
        # What the stand-in read and wrote; nothing until it has a script to play.
        read: list[str] = []
        written: list[str] = []
        calls: list[ToolCall] = []
        transcript: list[dict[str, Any]] = []

        def result(output: str = "", error: str | None = None) -> RunResult:
            input_tokens, output_tokens = words(*read), words(*written)
            return RunResult(
                output=output,
                tool_calls=calls,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cost_usd=price(input_tokens, output_tokens),
                price_source=SCRIPTED_COST,
                latency_ms=(time.perf_counter() - started) * 1000,
                model=STAND_IN_MODEL,
                transcript=transcript,
                error=error,
            )

        where = f"skill {skill.name!r}, case {case.name!r}"
        table = "WITHOUT_SKILL_SCRIPTS" if is_empty(skill) else "SCRIPTS"
        scripts = WITHOUT_SKILL_SCRIPTS if is_empty(skill) else SCRIPTS
        script = scripts.get((skill.name, case.name))
        if script is None:
            return result(error=f"no script for {where}: add one to {table} in {__file__}")
        if case.mode != "loaded":
            return result(error=f"the scripted stand-in does not support mode: {case.mode}")

        builtins = offered_builtins(skill, workspace, self.settings, self.sandbox)
        read += [context_text(skill, case, builtins), *case.tasks]
        transcript.append({"role": "system", "content": read[0]})
        transcript += [{"role": "user", "content": task} for task in case.tasks]
        tools: dict[str, Any] = {**builtins, **build_mock_tools(case.tools)}
        saved: dict[str, Any] = {}
        for step in script.calls:
            tool = tools.get(step.tool)
            if tool is None:
                not_offered = (
                    f"the script for {where} calls {step.tool!r}, which this case does not "
                    f"offer (offered: {', '.join(tools) or 'no tools'})"
                )
                return result(error=not_offered)
            try:
                arguments = filled(step, saved)
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                return result(
                    error=f"the script for {where} could not fill the {step.tool} call from "
                    f"the tool replies: {type(exc).__name__}: {exc}"
                )
            calls.append(ToolCall(step.tool, dict(arguments)))
            written.append(json.dumps(arguments, sort_keys=True))
            transcript.append(
                {"role": "assistant", "tool_call": {"name": step.tool, "arguments": arguments}}
            )
            reply = tool.call(arguments)
            read.append(reply)
            transcript.append({"role": "tool", "name": step.tool, "content": reply})
            if step.save_as is not None:
                saved[step.save_as] = parsed_reply(reply)

        try:
            answer = script.answer.format_map(saved) if saved else script.answer
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            # The mock replied with something the script did not expect: say so.
            return result(
                error=f"the script for {where} could not fill its answer from the tool replies: "
                f"{type(exc).__name__}: {exc}"
            )
        written.append(answer)
        transcript.append({"role": "assistant", "content": answer})
        return result(output=answer)


def filled(step: Call, saved: dict[str, Any]) -> dict[str, Any]:
    if not step.fill:
        return step.arguments
    return {
        key: value.format_map(saved) if isinstance(value, str) else value
        for key, value in step.arguments.items()
    }


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentence_with(output: str, phrase: str) -> str | None:
    """The first sentence of the output that contains ``phrase`` (ignoring case)."""
    for sentence in _SENTENCE_END.split(output):
        if phrase.casefold() in sentence.casefold():
            return sentence.strip()
    return None


class ScriptedJudge:
    """Grades each rubric entry by the phrases ``RUBRIC_SCRIPTS`` lists for it."""

    name = "scripted"

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        checks: list[JudgeCheck] = []
        for check_id, text in request.rubric:
            phrases = RUBRIC_SCRIPTS.get(text)
            if phrases is None:
                evidence = f"the scripted judge has no script for this rubric entry: {text!r}"
                checks.append(JudgeCheck(check_id, False, evidence))
                continue
            quotes = [sentence_with(request.output, phrase) for phrase in phrases]
            missing = [p for p, q in zip(phrases, quotes, strict=True) if q is None]
            if missing:
                evidence = f"the output never says {missing[0]!r}"
            else:
                evidence = "the output says: " + " / ".join(f'"{q}"' for q in quotes)
            checks.append(JudgeCheck(check_id, not missing, evidence))
        rubric = (text for _, text in request.rubric)
        read = words(*request.tasks, request.expected or "", request.output, *rubric)
        written = words(*(check.evidence for check in checks))
        return JudgeVerdict(
            checks=checks,
            cost_usd=price(read, written),
            price_source=SCRIPTED_COST,
            tokens=read + written,
            model=STAND_IN_MODEL,
        )


def _runner(context: RunnerContext) -> ScriptedRunner:
    return ScriptedRunner(context.settings, context.sandbox)


def _judge(context: JudgeContext) -> ScriptedJudge:
    return ScriptedJudge()


# optionalhook: this file stays importable when the plugin is disabled (-p no:skill_lens).
@pytest.hookimpl(optionalhook=True)
def pytest_skill_lens_runners(config: pytest.Config) -> dict[str, RunnerFactory]:
    return {"scripted": _runner}


@pytest.hookimpl(optionalhook=True)
def pytest_skill_lens_judges(config: pytest.Config) -> dict[str, JudgeFactory]:
    return {"scripted": _judge}
