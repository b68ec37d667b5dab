"""``cli``, described: any command a ``[runners.cli]`` table names, its stdout the trace.

The command gets the prompt as one argument (the ``{prompt}`` element of ``command``,
no shell; a task starting with ``-`` only where ``--`` comes right before it, so the
command never reads it as one of its options, else the case is errored unstarted), the
skill delivered under ``skills_dir`` (default ``.agents/skills``) in its working
directory, and the environment of home isolation. What the command reads as its own
configuration is its own: none of it is neutralised (docs/security.md). It has no trace: the
output is what it wrote to stdout, the latency is measured, and tokens and cost never
are (each carries a note, so a budget on them fails "not evaluated", never passes).
It cannot report tool calls or a skill's load either, so ``tools:``, ``trajectory:``
and ``mode: offered`` are authoring errors under it (run/catalog.py). It runs as
every product runs (:mod:`.runner`, through the item's cassette under
``--skill-lens-record``); its trace reader (:mod:`.cli_trace`) reads the stdout.
"""

from __future__ import annotations

import shutil
import string

from ...settings import ProductTable, Settings
from ...suite.paths import path_problem
from .description import PROMPT_PLACEHOLDER, Preset, Problem, TraceReader
from .env import isolation_of
from .table_rules import command_problem, pass_env_problem

NAME = "cli"
KEY = f"[runners.{NAME}]"
DEFAULT_SKILLS_DIR = ".agents/skills"
DEFAULT_INVOKE = "{task}"
_INVOKE_FIELDS = ("name", "task")


def _reader() -> TraceReader:
    from .cli_trace import read_trace

    return read_trace


# No executable, flags or sign-in of its own: the table names all of it.
PRESET = Preset(
    name=NAME,
    executable="",
    flags=(),
    skills_dir=DEFAULT_SKILLS_DIR,
    install="the command [runners.cli] names",
    auth_hint="the variables the command needs, named in pass_env",
    reader=_reader,
    invoke=DEFAULT_INVOKE,
    # Plain stdout carries neither tool calls nor a skill's load.
    traced=False,
    never_priced="the cli runner reports no cost for the command it runs",
    judge_never_priced="the cli judge reports no cost for the command it runs",
    names_command=True,
)


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
