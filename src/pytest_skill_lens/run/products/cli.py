"""The ``cli`` runner: any command a ``[runners.cli]`` table names, its stdout the output.

The command gets the prompt as one argument (the ``{prompt}`` element of ``command``,
no shell; a task starting with ``-`` only where ``--`` comes right before it, so the
command never reads it as one of its options, else the case is errored unstarted), the
skill delivered under ``skills_dir`` (default ``.agents/skills``) in its working
directory, and the environment of home isolation. What the command reads as its own
configuration is its own: none of it is neutralised (docs/security.md). It has no trace: the
output is what it wrote to stdout, the latency is measured, and tokens and cost never
are (each carries a note, so a budget on them fails "not evaluated", never passes).
It cannot report tool calls or a skill's load either, so ``tools:``, ``trajectory:``
and ``mode: offered`` are authoring errors under it (run/catalog.py). Under
``--skill-lens-record`` its start goes through the item's cassette like any product's
(:mod:`.product_cassette`).
"""

from __future__ import annotations

import os
import shutil
import string
from pathlib import Path

from ...settings import ProductTable, Settings
from ...suite.model import EvalCase
from ...suite.paths import path_problem
from ...suite.skill import Skill
from ..cassettes import KeyPart
from ..cassettes.files import Seat
from ..cassettes.product import Capture, stderr_tail
from ..result import RunResult
from .cassette import (
    NotStarted,
    Started,
    key_parts,
    secrets_of,
    start_taped,
    table_key,
    watch_from,
    watched,
)
from .delivery import DeliveryFailed, deliver
from .description import (
    PROMPT_PLACEHOLDER,
    Preset,
    Problem,
    command_problem,
    delivers_no_skill,
    exposed_prompt_problem,
    pass_env_problem,
    prompt_problem,
    with_flags,
)
from .env import isolation_of, make_home, product_env
from .process import RunDirFailed, StartFailed, run_dir, start

NAME = "cli"
KEY = f"[runners.{NAME}]"
DEFAULT_SKILLS_DIR = ".agents/skills"
DEFAULT_INVOKE = "{task}"
STDERR_TAIL = 500  # characters of stderr an error message quotes
_INVOKE_FIELDS = ("name", "task")

# No executable, flags or sign-in of its own: the table names all of it.
PRESET = Preset(
    name=NAME,
    executable="",
    flags=(),
    skills_dir=DEFAULT_SKILLS_DIR,
    install="the command [runners.cli] names",
    auth_hint="the variables the command needs, named in pass_env",
)
COST_NOTE = f"the {NAME} runner reports no cost: what the command spent is not measured"
USAGE_NOTE = f"the {NAME} runner reports no token usage: the command's output is plain text"


def table_of(settings: Settings) -> ProductTable | None:
    found: ProductTable | None = settings.runners.get("cli")
    return found


def settings_problem(settings: Settings) -> Problem | None:
    """The ``[runners.cli]`` table's rules, read from the configuration alone."""
    table = table_of(settings)
    if table is None or table.command is None:
        return (
            f"the {NAME} runner runs the command you name, and {KEY} names none",
            f'add {KEY} with command = ["your-agent", "--prompt", "{PROMPT_PLACEHOLDER}"] to '
            "skill-lens.toml; see docs/products.md",
        )
    problem = command_problem(table.command)
    if problem is not None:
        return (
            f"{KEY} command {problem}",
            f"write the argv as a list with the prompt as an element of its own, e.g. "
            f'command = ["your-agent", "--prompt", "{PROMPT_PLACEHOLDER}"]',
        )
    if any(PROMPT_PLACEHOLDER in arg for arg in table.args):
        return (
            f"{KEY} args may not hold {PROMPT_PLACEHOLDER}: args are appended after the command",
            f"put {PROMPT_PLACEHOLDER} in {KEY} command instead",
        )
    return _skills_dir_problem(table) or _invoke_problem(table) or _env_problem(settings, table)


def _skills_dir_problem(table: ProductTable) -> Problem | None:
    if table.skills_dir is None:
        return None
    problem = path_problem(table.skills_dir)
    if problem is None:
        return None
    return (
        f"{KEY} skills_dir {table.skills_dir!r} cannot name a directory inside the working "
        f"directory: {problem}",
        f'write a relative path such as skills_dir = "{DEFAULT_SKILLS_DIR}"',
    )


def invoke_problem(invoke: str) -> str | None:
    """Why ``invoke`` is no template of ``{name}`` and ``{task}``, or ``None``."""
    try:
        parts = list(string.Formatter().parse(invoke))
    except ValueError as exc:
        return f"is not a template: {exc}"
    fields = []
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if field not in _INVOKE_FIELDS:
            return f"uses {{{field}}}; only {{name}} and {{task}} are filled in"
        if spec or conversion:
            return f"formats {{{field}}}; write it plain, with no conversion or format spec"
        fields.append(field)
    if "task" not in fields:
        return "never uses {task}, so the task would not reach the command"
    return None


def _invoke_problem(table: ProductTable) -> Problem | None:
    if table.invoke is None:
        return None
    problem = invoke_problem(table.invoke)
    if problem is None:
        return None
    return (
        f"{KEY} invoke {table.invoke!r} {problem}",
        'write it with {task} and, if wanted, {name}, e.g. invoke = "/{name} {task}"; '
        "a literal brace is written twice",
    )


def _env_problem(settings: Settings, table: ProductTable) -> Problem | None:
    problem = pass_env_problem(PRESET, table)
    if problem is not None:
        return problem
    if isolation_of(settings.product_sandbox) == "home" and table.pass_env is None:
        return (
            f"the {NAME} runner runs under home isolation, where the command gets only an "
            f"allowlisted environment, and {KEY} does not set pass_env",
            f"list the variables the command needs in {KEY} pass_env (pass_env = [] for "
            'none), or set product_sandbox = "off" to give it your whole environment',
        )
    return None


def start_problem(settings: Settings) -> Problem | None:
    """The command's executable on ``PATH`` (a ``cli`` command has no version to probe);
    not looked for when replaying only, which starts no command (docs/replay.md)."""
    if settings.record == "none":
        return None
    table = table_of(settings)
    if table is None or not table.command:
        return None  # refused by settings_problem already
    executable = table.command[0]
    if shutil.which(executable) is None:
        return (
            f"the {NAME} runner needs {executable!r}, which is not on PATH",
            f"install the command {KEY} command names, or fix its path",
        )
    return None


def prompt_for(skill: Skill, case: EvalCase, invoke: str) -> str:
    """``mode: loaded`` fills ``invoke`` with the skill's name and the task; a baseline arm
    without a skill (and ``offered``, refused in preflight) gets the bare task."""
    task = case.task if case.task is not None else ""
    if case.mode == "offered" or delivers_no_skill(skill):
        return task
    return invoke.format(name=skill.name, task=task)


class CliRunner:
    """Runs one task through the named command; never raises (a failure is errored).

    ``seat`` is whose call it is in the item's cassette (the runner's, or the cli judge's).
    """

    name = NAME
    records_cassettes = True  # every start goes through the item's cassette

    def __init__(self, settings: Settings, *, seat: Seat = "runner") -> None:
        table = table_of(settings)
        assert table is not None and table.command  # settings_problem refused it otherwise
        self.seat: Seat = seat
        self._settings = settings
        self._table = table
        self._command = _anchored(table.command)
        self._isolation = isolation_of(settings.product_sandbox)
        self._timeout = min(table.timeout_seconds, settings.case_timeout_seconds)
        self._skills_dir = table.skills_dir or DEFAULT_SKILLS_DIR
        self._invoke = table.invoke or DEFAULT_INVOKE

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        try:
            return self._run(skill, case, workspace)
        except Exception as exc:  # a runner never raises; the case is errored
            return RunResult(error=f"{NAME} runner failed: {type(exc).__name__}: {exc}")

    def cassette_parts(self) -> list[KeyPart]:
        """What of the command a cassette is recorded under: its table (a command has
        no version to ask, docs/replay.md)."""
        table = table_key(self._table, self._timeout, self._settings.product_sandbox)
        return key_parts(self.seat, NAME, table, None, self._settings)

    def _run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        prompt = prompt_for(skill, case, self._invoke)
        problem = prompt_problem(prompt)
        exposed = exposed_prompt_problem(KEY, self._command, prompt)
        if exposed is not None:
            problem = f"{exposed[0]}; {exposed[1]}"
        if problem is not None:
            return RunResult(error=problem)  # nothing started, nothing spent: no notes
        command = [prompt if arg == PROMPT_PLACEHOLDER else arg for arg in self._command]
        command = with_flags(command, self._table.args)
        secrets = secrets_of(PRESET, self._table)
        taped = start_taped(
            self.seat,
            NAME,
            prompt,
            command,
            lambda watch: self._start(skill, workspace, command, watch, secrets),
            workspace=workspace,
            deliver_again=lambda: deliver(skill, workspace or Path(), self._skills_dir),
            tools=(),
            secrets=secrets,
        )
        if isinstance(taped, RunResult):
            return taped
        return taped.finish(self._read(taped.started.capture))

    def _start(
        self,
        skill: Skill,
        workspace: Path | None,
        command: list[str],
        watch: bool,
        secrets: list[str],
    ) -> Started:
        """Start the command (``watch``: and keep what it did to the workspace)."""
        try:
            with run_dir(NAME) as run:
                cwd = workspace if workspace is not None else run.work
                deliver(skill, cwd, self._skills_dir)
                before = watch_from(workspace, watch)
                make_home(run.home)
                ran = start(
                    command,
                    run=run,
                    cwd=cwd,
                    env=product_env(PRESET, self._table, self._isolation, run.home),
                    timeout=self._timeout,
                    max_output_bytes=self._table.max_output_bytes,
                )
        except (DeliveryFailed, RunDirFailed) as exc:
            raise NotStarted(str(exc)) from None
        except StartFailed as exc:
            raise NotStarted(f"{NAME} could not start {command[0]!r}: {exc}") from None
        changes, unkept = watched(workspace, before, secrets)
        finished = ran.finished
        capture = Capture(
            stdout=finished.stdout.data,
            exit_code=finished.exit_code,
            cut=finished.stdout.omitted > 0,
            stderr=stderr_tail(finished.stderr.data),
            changes=changes,
        )
        return Started(capture, None, ran.latency_ms, unkept)

    def _read(self, capture: Capture) -> RunResult:
        """The run the command's stdout and end describe (the cli runner's reader)."""
        # The command ran: however it ended, its spend is unknown, never zero.
        result = RunResult(cost_note=COST_NOTE, usage_note=USAGE_NOTE)
        stderr = capture.stderr.strip()[-STDERR_TAIL:]
        tail = f"; stderr ends: {stderr}" if stderr else "; stderr was empty"
        if capture.exit_code is None:
            result.error = (
                f"{NAME} timed out after {self._timeout:g} s "
                f"(timeout_seconds in {KEY}, or the case timeout)"
            )
        elif capture.cut:
            result.error = (
                f"the {NAME} output was cut at max_output_bytes "
                f"({self._table.max_output_bytes:,} bytes); raise max_output_bytes in {KEY} "
                "if the command is expected to write more"
            )
        elif capture.exit_code != 0:
            result.error = f"{NAME} exited with code {capture.exit_code}{tail}"
        else:
            result.output = capture.stdout.decode("utf-8", errors="replace")
        return result


def _anchored(command: list[str]) -> list[str]:
    """``command`` with a relative executable path made absolute: the command starts in
    the case's working directory, where a path relative to the run would not resolve."""
    executable = command[0]
    if os.sep in executable or (os.altsep is not None and os.altsep in executable):
        executable = os.path.abspath(executable)
    return [executable, *command[1:]]
