"""What a product judge needs before any case runs (a refusal is exit 2 with the fix).

The judge starts its product from the runner's ``[runners.<name>]`` table, so the
table's rules are the runner's, plus one of its own: the table's ``args`` and
``command`` may not carry the preset's tool flag, because both products accumulate
a repeated flag rather than taking the last one, and the entry would give the judge
its tools back. Starting is the runner's probe: the executable found and, for a
preset, its ``--version`` executed under the run's product sandbox.
"""

from __future__ import annotations

from ...run.products.description import Preset
from ...run.products.preflight import settings_problem as runner_settings_problem
from ...run.products.preflight import start_problem as runner_start_problem
from ...run.requirements import Problem
from ...run.sandbox.product_sandbox import ProductSandbox
from ...settings import Settings


def settings_problem(product: Preset, settings: Settings) -> Problem | None:
    """The table's rules as the runner has them, then the tool flag's."""
    return runner_settings_problem(product, settings) or tool_flag_problem(product, settings)


def tool_flag_problem(product: Preset, settings: Settings) -> Problem | None:
    """An ``args`` or ``command`` entry that is the tool flag, or starts with ``<flag>=``."""
    flag, name = product.judge_tool_flag, product.name
    if flag is None:
        return None
    table = product.table(settings)
    key = f"[runners.{name}]"
    for field, entries in (("args", table.args), ("command", table.command or [])):
        for entry in entries:
            if entry == flag or entry.startswith(f"{flag}="):
                return (
                    f"{key} {field} holds {entry!r}, and {name} is the judge: {name} adds up "
                    f"a repeated {flag} rather than taking the last one, so the entry would "
                    "give the judge tools while it grades",
                    f"remove {entry!r} from {key} {field} (the judge appends its own "
                    f"{flag} restriction), or grade with another judge",
                )
    return None


def start_problem(
    product: Preset, settings: Settings, sandbox: ProductSandbox | None
) -> Problem | None:
    """The product's executable found, and a preset's ``--version`` executed under
    ``sandbox`` (the run's product sandbox decision)."""
    problem = runner_start_problem(product, settings, sandbox)
    if problem is None:
        return None
    name = product.name
    return (problem[0].replace(f"the {name} runner", f"the {name} judge", 1), problem[1])
