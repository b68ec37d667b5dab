"""The products of a run as every report names them: one entry each, read from the table.

A product is named once however many seats it fills (runner, judge), with the
executable found on ``PATH``, the version its preflight probe printed, and the run's
one sandbox decision (:mod:`..sandbox.product_sandbox`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from ...settings import Settings
from ..sandbox.product_sandbox import REPLAY_ONLY_TRUST, ProductEntry, ProductSandbox
from .table import BY_NAME


def product_names(runner_names: Sequence[str], judge: str) -> list[str]:
    """The products a run names, runners first, each once (a judge may be one of them)."""
    named = [name for name in (*runner_names, judge) if name in BY_NAME]
    return list(dict.fromkeys(named))


def product_entries(settings: Settings, decision: ProductSandbox | None) -> list[ProductEntry]:
    """One entry per product of the run, with the executable and version it reported.

    The executable is the table's ``command`` (or the product's own) as found on
    ``PATH``; the version is the first line the preflight's ``--version`` printed,
    ``None`` when nothing probed it (``cli``, a wrapper command).
    """
    if decision is None:
        return []
    from .home_template import template_note
    from .preflight import probed_version

    # Replay only: no product process starts, so no sandbox had anything to contain.
    trust = REPLAY_ONLY_TRUST if settings.record == "none" else decision.trust
    entries = []
    for name in product_names(settings.runner_names, settings.judge):
        product = BY_NAME[name]
        command = product.table(settings).command
        executable = command[0] if command else product.executable or name
        found = shutil.which(executable) or executable
        notes = [shared.note(found) for shared in product.shared_dirs if shared.note is not None]
        notes.append(template_note(product, found))
        entries.append(
            ProductEntry(
                name=name,
                executable=found,
                version=probed_version(name),
                trust=trust,
                sandbox=decision,
                cache_note=next((note for note in notes if note is not None), None),
            )
        )
    return entries
