"""What every product runner shares: its preset, its ``[runners.<name>]`` table, its argv.

A product runner starts an agent product (Claude Code, Copilot CLI, any CLI) in its
non-interactive mode, with the skill delivered where the product discovers skills
(:mod:`.product_delivery`), under an allowlisted environment and a temporary home
(:mod:`.product_env`), bounded by the shared process layer (:mod:`.product_process`).
This module holds the pure part: the table's rules, the argv and the prompt.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...settings import ProductTable, Settings
from ...suite.model import EvalCase
from ...suite.product_config import CONFIG_PATHS, ConfigPath
from ...suite.skill import Skill

PROMPT_PLACEHOLDER = "{prompt}"
SEPARATOR = "--"  # after it, a product's parser reads every argument as an operand
# The prompt travels as one argument, and Linux caps one at 128 KiB.
MAX_PROMPT_BYTES = 100 * 1024
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CREDENTIAL_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL")

Problem = tuple[str, str]  # (what is wrong, how to fix it), as run/requirements.py has it


@dataclass(frozen=True)
class SharedDir:
    """A directory every isolated call of a product shares, named to it by ``variable``.

    ``provide(executable, env)`` gets the executable found on ``PATH`` and the call's
    environment, makes the directory on first use (Copilot's unpacked package, say), and
    returns it, or ``None`` to leave the product to make its own in the call's home.
    """

    variable: str
    provide: Callable[[str, Mapping[str, str]], Path | None]


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

    @property
    def inert_files(self) -> tuple[ConfigPath, ...]:
        """The configuration files of the product's own that its flags still let it read
        from the working directory: made inert before every start (suite/product_config)."""
        return tuple(entry for entry in CONFIG_PATHS.get(self.name, ()) if entry.inert)

    @property
    def sign_in_variables(self) -> tuple[str, ...]:
        """Every variable that signs the product in, the ranked tokens first."""
        return (*self.ranked_auth_variables, *self.auth_variables)

    def table(self, settings: Settings) -> ProductTable:
        """The run's ``[runners.<name>]`` table (the defaults when there is none)."""
        found: ProductTable | None = settings.runners.get(self.name)  # type: ignore[call-overload]
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


def table_problem(preset: Preset, table: ProductTable) -> Problem | None:
    """A ``[runners.<name>]`` table the preset cannot run, with the fix; ``None`` if fine."""
    key = f"[runners.{preset.name}]"
    for unused in ("skills_dir", "invoke"):
        if getattr(table, unused) is not None:
            return (
                f"{key} {unused} is for the cli runner; {preset.name} has its own "
                f"({preset.skills_dir}/<name>/, /<name> <task>)",
                f"remove {unused} from {key}",
            )
    if any(PROMPT_PLACEHOLDER in arg for arg in table.args):
        return (
            f"{key} args may not hold {PROMPT_PLACEHOLDER}: args are appended after the prompt",
            f"put the whole argv, with {PROMPT_PLACEHOLDER}, in {key} command instead",
        )
    if table.command is not None:
        problem = command_problem(table.command)
        if problem is not None:
            return (f"{key} command {problem}", _COMMAND_FIX)
    return pass_env_problem(preset, table)


_COMMAND_FIX = (
    "write the argv as a list with the prompt as an element of its own, e.g. command = "
    '["claude", "-p", "{prompt}", "--output-format", "stream-json", "--verbose"]'
)


def command_problem(command: list[str]) -> str | None:
    """Why ``command`` cannot carry the prompt, or ``None``: exactly one ``{prompt}``
    element, not the first, and no element that holds it inside other text."""
    if not command or not command[0].strip():
        return "must name an executable first"
    whole = [arg for arg in command if arg == PROMPT_PLACEHOLDER]
    if any(PROMPT_PLACEHOLDER in arg and arg != PROMPT_PLACEHOLDER for arg in command):
        return f"holds {PROMPT_PLACEHOLDER} inside another argument; it is substituted only alone"
    if len(whole) != 1:
        return f"must hold exactly one {PROMPT_PLACEHOLDER} element (it has {len(whole)})"
    if command[0] == PROMPT_PLACEHOLDER:
        return f"cannot start with {PROMPT_PLACEHOLDER}: the first element is the executable"
    return None


def pass_env_problem(preset: Preset, table: ProductTable) -> Problem | None:
    """``pass_env`` names variables, and none the isolation itself sets (in any case)."""
    from .env import isolation_sets

    key = f"[runners.{preset.name}] pass_env"
    taken = {name.upper() for name in isolation_sets(preset)}
    for name in table.pass_env or []:
        if not _VARIABLE_NAME.fullmatch(name):
            return (
                f"{key} takes variable names only; {name!r} is not one",
                "list names such as HTTPS_PROXY; their values are read from the environment",
            )
        if name.upper() in taken:
            return (
                f"{key} names {name}, which home isolation sets itself",
                f"remove {name} from pass_env (skill-lens sets it for every run)",
            )
    return None


def names_credential(table: ProductTable) -> bool:
    """Whether ``pass_env`` names a credential-like variable (a region or a profile does not)."""
    return any(word in name.upper() for name in table.pass_env or [] for word in _CREDENTIAL_WORDS)


def argv(preset: Preset, table: ProductTable, prompt: str) -> list[str]:
    """The product's argv: the preset's flags, the table's ``args`` and the prompt's own
    elements; or ``command`` with the prompt substituted as one element (no shell) and
    the ``args`` added by :func:`with_flags`.

    ``argv(preset, table, PROMPT_PLACEHOLDER)`` is the command line a cassette keeps.
    """
    if table.command is not None:
        base = [prompt if arg == PROMPT_PLACEHOLDER else arg for arg in table.command]
        return with_flags(base, table.args)
    own = [arg.replace(PROMPT_PLACEHOLDER, prompt, 1) for arg in preset.prompt_args]
    return [preset.executable, *preset.flags, *table.args, *own]


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
    variant with neither a description nor instructions (run/bundle_tools.py).
    """
    return skill.variant == "baseline" and not skill.description and not skill.instructions


def prompt_for(skill: Skill, case: EvalCase) -> str:
    """The task verbatim; ``mode: loaded`` invokes the skill with ``/<name> <task>``.

    ``mode: offered`` and a ``--baseline none`` arm send the bare task: the product
    decides, from its own skill listing, whether to load anything.
    """
    task = case.task if case.task is not None else ""
    if case.mode == "offered" or delivers_no_skill(skill):
        return task
    return f"/{skill.name} {task}"


def prompt_problem(prompt: str) -> str | None:
    size = len(prompt.encode("utf-8", errors="surrogatepass"))
    if size <= MAX_PROMPT_BYTES:
        return None
    return (
        f"the prompt is {size:,} bytes, over the {MAX_PROMPT_BYTES:,}-byte limit for a "
        "product runner (it travels as one command-line argument, which Linux caps at "
        "128 KiB); shorten the task"
    )
