"""A ``[runners.<name>]`` table's rules: what a product's table may hold, and why not.

Checked before any case runs (:mod:`.preflight`; ``cli`` has rules of its own beside
these, :mod:`.cli`): each refusal is a :data:`~.description.Problem`, the wrong and the fix.
"""

from __future__ import annotations

import re

from ...credentials import names_credential
from ...settings import ProductTable
from .description import PROMPT_PLACEHOLDER, Preset, Problem

_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


def passes_credential(table: ProductTable) -> bool:
    """Whether ``pass_env`` names a credential-like variable (a region or a profile does not)."""
    return any(names_credential(name) for name in table.pass_env or [])
