"""Every product skill-lens starts, one description each: the table the rest derives from.

The runner and judge catalogs, the judge's tool restriction, the product sandbox's
report lines and the settings' ``[runners.<name>]`` tables list exactly these rows
(tests/unit/test_product_table.py holds them to it). Adding a product is one module
holding its :class:`~.description.Preset` (with its trace reader beside it) and one
row here. Listing the table imports descriptions only: a product's machinery (its
process, bridge, trace reader) is imported when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import claude_code, cli, codex, copilot, gemini_cli, opencode
from .description import Preset

# In the order messages list them ("'copilot', 'claude-code', 'codex', 'gemini-cli',
# 'opencode' or 'cli'").
PRODUCTS: tuple[Preset, ...] = (
    copilot.PRESET,
    claude_code.PRESET,
    codex.PRESET,
    gemini_cli.PRESET,
    opencode.PRESET,
    cli.PRESET,
)
BY_NAME: Mapping[str, Preset] = {product.name: product for product in PRODUCTS}
NAMES: tuple[str, ...] = tuple(BY_NAME)


def product(name: str) -> Preset | None:
    """The product ``name``; ``None`` when skill-lens starts no product of that name."""
    return BY_NAME.get(name)
