"""A product's description (:class:`Preset`), its argv and its prompt.

A product runner starts an agent product (Claude Code, Copilot CLI, any CLI) in its
non-interactive mode, with the skill delivered where the product discovers skills
(:mod:`.delivery`), under an allowlisted environment and a temporary home
(:mod:`.env`), bounded by the shared process layer (:mod:`.process`), and reads its
trace (:mod:`.runner`). Everything that differs between products is a field of its
:class:`Preset`, one row of :mod:`.table`; this module holds that description and the
pure part every product shares: the argv and the prompt (a table's rules: :mod:`.table_rules`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...settings import ProductTable, Settings
from ...suite.model import EvalCase
from ...suite.product_config import CONFIG_PATHS, ConfigPath
from ...suite.skill import Skill
from ..tools.bridge_form import BridgeForm
from .home_recipe import HomeRecipe
from .launch import Launch as Launch
from .launch import LaunchContext as LaunchContext
from .launch import LaunchHook
from .launch import launch_problem as launch_problem

if TYPE_CHECKING:
    from ..result import RunResult
    from ..sandbox.product_sandbox import ProductSandbox
    from .trace import Ending, Expect

PROMPT_PLACEHOLDER = "{prompt}"
SEPARATOR = "--"  # after it, a product's parser reads every argument as an operand
# The prompt travels as one argument, and Linux caps one at 128 KiB.
MAX_PROMPT_BYTES = 100 * 1024

Problem = tuple[str, str]  # (what is wrong, how to fix it), as run/requirements.py has it
# A trace reader: the trace (stdout), what the product left in its run directory
# (:class:`LeftFile`), how the process ended and what the run was, read into a result.
TraceReader = Callable[[bytes, "bytes | None", "Ending", "Expect"], "RunResult"]


@dataclass(frozen=True)
class SharedDir:
    """A directory every isolated call of a product shares, named to it by ``variable``.

    ``provide(executable, env, sandbox)`` gets the executable found on ``PATH``, the
    call's environment and the run's product sandbox decision, makes the directory on
    first use (Copilot's unpacked package, say, unpacked under that sandbox), and returns
    it, or ``None`` to leave the product to make its own in the call's home.
    """

    variable: str
    provide: Callable[[str, Mapping[str, str], ProductSandbox | None], Path | None]
    # Why the directory of an executable could not be made, for the report (a call is
    # then slower, never wrong); ``None`` when there is nothing to say.
    note: Callable[[str], str | None] | None = None


@dataclass(frozen=True)
class LeftFile:
    """A file the product writes into the call's own directory for the reader (Copilot's
    usage at exit, Codex's session log in its home): its ``name`` there (a glob pattern
    relative to the call's directory: the last match in sorted order is read), the
    ``flag`` that asks for it (``{path}``; ``None``: it is written unasked), and the
    most the harness reads of it."""

    name: str
    flag: str | None
    max_bytes: int


@dataclass(frozen=True)
class Preset:
    """One product as skill-lens starts it.

    ``flags`` follow the executable (the verified minimum to run headless and emit the
    trace); the table's ``args`` follow them, then ``prompt_args``, the prompt's own
    elements with ``{prompt}`` in them: a form the product never reads as a flag,
    whatever the task starts with (``--``, then the prompt; or ``--prompt=<task>``);
    ``auth_variables`` are its sign-in variables, passed through home
    isolation; ``ranked_auth_variables`` are sign-in tokens the product reads in this
    order, of which only the first one set is passed (a later one is often a CI token
    meant for something else); ``endpoint_variables`` travel with them (where the
    product's provider is); ``fixed_env`` is what the harness sets for every run,
    never overridable, and ``root_env`` what it sets as well when it runs as root;
    ``shared_dirs`` are what home isolation names for every call but does not make anew
    per call (:class:`SharedDir`).

    ``reader`` loads its trace reader (imported when a run reads a trace, never when
    the table is listed); ``invoke`` phrases a loaded case (``{name}``, ``{task}``);
    ``left_file`` is what it leaves for the reader; ``bridge`` how it takes mock tools
    (``None``: it cannot); ``traced``: its trace shows tool calls and a skill's load
    (else ``tools:``, ``trajectory:`` and ``mode: offered`` are refused);
    ``judge_tool_flag`` and ``judge_restriction`` leave it no tools while it judges;
    ``never_priced`` (``judge_never_priced``) why its spend is never in dollars;
    ``names_command``: the table's ``command`` is the product (``cli``), so the table
    must name one and may set ``skills_dir``, ``invoke`` and an empty ``pass_env``.

    ``launch`` is for a product configured other than by fixed flags and variables (its
    endpoint, credentials or MCP servers as ``-c`` flags, a settings file in its home,
    JSON in a variable): called for every start of the product itself (not a wrapper
    ``command``) with a :class:`LaunchContext`, after home isolation and with the
    bridge's server entry, it returns a :class:`Launch`. ``launch_variables`` are the
    variables it sets, which ``pass_env`` may not name. ``model_flags`` are the flags
    of the table's ``args`` that name the model (``-m``, ``--model``): the reader is
    told that model (:attr:`.trace.Expect.model`) to price tokens the trace reports
    without a cost, at the list price of genai-prices' provider ``priced_as``. A product
    told its model by a variable instead (OpenCode's ``OPENCODE_MODEL``, which its launch
    hook writes into its configuration) names it in ``model_variable``, with the
    ``default_model`` it is told when that variable is unset or empty.
    """

    name: str
    executable: str
    flags: tuple[str, ...]
    skills_dir: str
    install: str  # how a user installs the product, for a refusal's fix
    auth_hint: str  # where its sign-in variables' values come from
    auth_variables: tuple[str, ...] = ()
    ranked_auth_variables: tuple[str, ...] = ()
    endpoint_variables: tuple[str, ...] = ()
    fixed_env: Mapping[str, str] = field(default_factory=dict)
    root_env: Mapping[str, str] = field(default_factory=dict)
    shared_dirs: tuple[SharedDir, ...] = ()
    prompt_args: tuple[str, ...] = (SEPARATOR, PROMPT_PLACEHOLDER)
    reader: Callable[[], TraceReader] | None = None
    invoke: str = "/{name} {task}"
    left_file: LeftFile | None = None
    bridge: BridgeForm | None = None
    traced: bool = True
    judge_tool_flag: str | None = None
    judge_restriction: tuple[str, ...] = ()
    never_priced: str | None = None
    judge_never_priced: str | None = None
    names_command: bool = False
    launch: LaunchHook | None = None
    launch_variables: tuple[str, ...] = ()
    model_flags: tuple[str, ...] = ()
    priced_as: str | None = None
    model_variable: str | None = None
    default_model: str = ""
    # How the home every isolated call of the product itself starts from is made, once
    # per process (:mod:`.home_template`); ``None``: each call's home starts empty.
    home_template: HomeRecipe | None = None

    def unpriced(self, settings: Settings) -> str | None:
        """Why a run of a product priced by its told model (``priced_as``) can never be
        priced under ``settings`` (no model named, or one genai-prices does not know);
        ``None`` when it can, or when the product is not priced that way."""
        if self.priced_as is None:
            return None
        table = self.table(settings)
        model = self.told_model(table)
        key = f"[runners.{self.name}]"
        if not model and self.model_variable is not None and not self.names_itself(table):
            return (
                f"{self.name} reports tokens but no cost, and the {key} command of your own "
                "configures it, so skill-lens knows no model to price them by"
            )
        if not model:
            flags = " or ".join(self.model_flags)
            return (
                f"{self.name} reports tokens but no cost, and {key} args name "
                f"no model to price them by ({flags})"
            )
        from ..models.pricing import never_priced

        note = never_priced(f"{self.priced_as}:{model}")
        if note is None or self.model_variable is None:
            return note
        return f"{self.name} is told the model {model!r} ({self.model_variable}): {note}"

    # Executables it needs beside itself on PATH (OpenCode's ``rg``: without it OpenCode
    # downloads one), checked by the preflight with the executable.
    companions: tuple[str, ...] = ()

    def told_model(self, table: ProductTable, env: Mapping[str, str] | None = None) -> str:
        """The model the table's ``args`` name with one of ``model_flags`` (the last
        one given wins, as in a flag parser), else the one ``model_variable`` names in
        ``env`` (the process environment, which the product's is built from) or the
        ``default_model``; ``""`` when none does, or when a wrapper ``command`` of the
        table's own configures the product (the launch hook that tells it the model's
        variable then does not run)."""
        model = self._flagged_model(table)
        if model or self.model_variable is None or not self.names_itself(table):
            return model
        source = os.environ if env is None else env
        return source.get(self.model_variable, "").strip() or self.default_model

    def _flagged_model(self, table: ProductTable) -> str:
        model = ""
        args = table.args
        for at, arg in enumerate(args):
            for flag in self.model_flags:
                if arg == flag and at + 1 < len(args):
                    model = args[at + 1]
                elif arg.startswith(f"{flag}=") and flag.startswith("--"):
                    model = arg.split("=", 1)[1]
        return model

    @property
    def config_paths(self) -> tuple[ConfigPath, ...]:
        """The files of its own it reads as configuration in the working directory."""
        return CONFIG_PATHS.get(self.name, ())

    def skills_dir_of(self, settings: Settings) -> str:
        """Where the skill is delivered: the table's ``skills_dir`` (``cli`` only) or its own."""
        return self.table(settings).skills_dir or self.skills_dir

    def read(self, trace: bytes, left: bytes | None, ending: Ending, expect: Expect) -> RunResult:
        if self.reader is None:
            raise NotImplementedError(f"{self.name} has no trace reader")
        return self.reader()(trace, left, ending, expect)

    @property
    def inert_files(self) -> tuple[ConfigPath, ...]:
        """The configuration files of the product's own that its flags still let it read
        from the working directory: made inert before every start (suite/product_config)."""
        return tuple(entry for entry in self.config_paths if entry.inert)

    @property
    def sign_in_variables(self) -> tuple[str, ...]:
        """Every variable that signs the product in, the ranked tokens first."""
        return (*self.ranked_auth_variables, *self.auth_variables)

    def table(self, settings: Settings) -> ProductTable:
        """The run's ``[runners.<name>]`` table (the defaults when there is none)."""
        found = settings.runners.get(self.name)
        return found if found is not None else ProductTable()

    def names_itself(self, table: ProductTable) -> bool:
        """Whether ``command`` (if any) starts this product's own executable, not a wrapper.

        A wrapper is not known to take the preset's flags, so the version probe,
        the credential check and (later) the MCP bridge apply only without one.
        """
        if not table.command:
            return True
        base = os.path.basename(table.command[0])
        return base.removesuffix(".exe").lower() == self.executable


def argv(preset: Preset, table: ProductTable, prompt: str) -> list[str]:
    """The product's argv: the preset's flags, the table's ``args`` and the prompt's own
    elements; or ``command`` with the prompt substituted as one element (no shell) and
    the ``args`` added by :func:`with_flags`.

    ``argv(preset, table, PROMPT_PLACEHOLDER)`` is the command line a cassette keeps.
    A relative executable path in ``command`` is made absolute: the product starts in
    the case's working directory, where a path relative to the run would not resolve.
    """
    if table.command is not None:
        base = [prompt if arg == PROMPT_PLACEHOLDER else arg for arg in _anchored(table.command)]
        return with_flags(base, table.args)
    own = [arg.replace(PROMPT_PLACEHOLDER, prompt, 1) for arg in preset.prompt_args]
    return [preset.executable, *preset.flags, *table.args, *own]


def _anchored(command: list[str]) -> list[str]:
    executable = command[0]
    if os.sep in executable or (os.altsep is not None and os.altsep in executable):
        executable = os.path.abspath(executable)
    return [executable, *command[1:]]


def with_flags(argv: Sequence[str], flags: Sequence[str]) -> list[str]:
    """``argv`` with ``flags`` added: before a final ``--`` and the prompt after it, where
    they would otherwise be read as part of the prompt; else at the end."""
    if len(argv) >= 3 and argv[-2] == SEPARATOR:
        return [*argv[:-2], *flags, *argv[-2:]]
    return [*argv, *flags]


def exposed_prompt_problem(key: str, command: Sequence[str], prompt: str) -> Problem | None:
    """A ``command`` of the table's own puts the prompt where the command could read it as
    a flag: its ``{prompt}`` element does not follow ``--``, and the prompt starts with
    ``-`` (``--version`` would print a version, ``--mcp-config=...`` configure it).
    Refused before the start, with the fix; ``None`` when the prompt is safe there."""
    if not prompt.startswith("-") or PROMPT_PLACEHOLDER not in command:
        return None
    at = list(command).index(PROMPT_PLACEHOLDER)
    if at > 0 and command[at - 1] == SEPARATOR:
        return None
    return (
        f"the task {prompt[:40]!r} starts with '-', and {key} command passes "
        f"{PROMPT_PLACEHOLDER} where the command may read it as an option, not as the task",
        f'put "{SEPARATOR}", "{PROMPT_PLACEHOLDER}" in {key} command if the command ends '
        "its options at --, or start the task with another character",
    )


def delivers_no_skill(skill: Skill) -> bool:
    """A ``--baseline none`` arm: no skill at all, so nothing is delivered.

    Recognised as the bundle and the prompt builder recognise it: the baseline
    variant with neither a description nor instructions (run/tools/bundle_tools.py).
    """
    return skill.variant == "baseline" and not skill.description and not skill.instructions


def prompt_for(skill: Skill, case: EvalCase, invoke: str = "/{name} {task}") -> str:
    """The task verbatim; ``mode: loaded`` fills ``invoke`` with the skill's name and the
    task (``/<name> <task>`` for a preset, the table's ``invoke`` under ``cli``).

    ``mode: offered`` and a ``--baseline none`` arm send the bare task: the product
    decides, from its own skill listing, whether to load anything.
    """
    task = case.task if case.task is not None else ""
    if case.mode == "offered" or delivers_no_skill(skill):
        return task
    return invoke.format(name=skill.name, task=task)


def prompt_problem(prompt: str) -> str | None:
    size = len(prompt.encode("utf-8", errors="surrogatepass"))
    if size <= MAX_PROMPT_BYTES:
        return None
    return (
        f"the prompt is {size:,} bytes, over the {MAX_PROMPT_BYTES:,}-byte limit for a "
        "product runner (it travels as one command-line argument, which Linux caps at "
        "128 KiB); shorten the task"
    )
