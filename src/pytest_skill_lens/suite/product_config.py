"""Where each agent product reads its own configuration in its working directory: one table.

A product started in a case's workspace would take such a file as its settings: an
endpoint to send its key to, hooks and MCP servers to start, a helper that prints the
key. A case may not seed one (an authoring error, :mod:`.rules`), a delivered skill
file never lands on one (``run/products/delivery.py``), and a file the product
itself left there for a later session is made inert before that session when the
product's flags would still read it (``inert``, used by its preset in ``run/runners/``).

Facts of the pinned versions (docs/security.md, "Product configuration"): Claude Code
2.1.332 reads ``.claude/settings.json`` under ``--setting-sources project``, the only
source that still finds the delivered skill; Copilot CLI 1.0.102 reads every entry of
its own only in a trusted folder, which a run never is; Codex CLI, Gemini CLI and
OpenCode are listed as docs/security.md says.

Keyed by the names of the product table (``run/products/table.py``), which this layer
cannot import: a case is refused a path any product reads, whichever runner runs it, so
the loader needs every product's entries before a runner is chosen. A product's preset
reads its own entries from here (``Preset.config_paths``); a product added to the table
adds its entries here (tests/unit/test_product_table.py holds the keys to the table's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .quoting import shown


@dataclass(frozen=True)
class ConfigPath:
    """One file (or, ending in ``/``, every file below a directory) relative to the
    working directory; ``inert`` is what the harness writes over it before every start
    when the product's own flags do not keep it from being read."""

    path: str
    inert: bytes | None = None


_CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")

CONFIG_PATHS: Mapping[str, tuple[ConfigPath, ...]] = {
    "claude-code": (
        ConfigPath(".claude/settings.json", inert=b"{}\n"),
        ConfigPath(".claude/settings.local.json"),  # a source the preset does not load
        ConfigPath(".mcp.json"),  # --strict-mcp-config ignores it
    ),
    "copilot": (
        ConfigPath(".github/copilot/"),
        ConfigPath(".github/hooks/"),
        ConfigPath(".github/mcp.json"),
        ConfigPath(".github/lsp.json"),
        ConfigPath(".github/extensions/"),
        ConfigPath(".mcp.json"),
        *(ConfigPath(path) for path in _CLAUDE_SETTINGS),  # their hooks, when trusted
    ),
    "codex": (ConfigPath(".codex/"),),
    # Its .env files set any variable the environment leaves unset (verified: one in the
    # working directory or .gemini/ named the endpoint the key went to), so one there
    # before a start is emptied; the project settings (not loaded in a run, verified),
    # custom commands, policies, agents, extensions and system prompt are refused.
    # (.agents/skills, which it prefers to .gemini/skills on a name clash, cannot be:
    # it is where Copilot's skill is delivered.)
    "gemini-cli": (
        ConfigPath(".env", inert=b"\n"),
        ConfigPath(".gemini/.env", inert=b"\n"),
        ConfigPath(".gemini/settings.json", inert=b"{}\n"),
        ConfigPath(".gemini/commands/"),
        ConfigPath(".gemini/policies/"),
        ConfigPath(".gemini/agents/"),
        ConfigPath(".gemini/extensions/"),
        ConfigPath(".gemini/system.md"),
    ),
    "opencode": (
        ConfigPath(".opencode/"),
        ConfigPath("opencode.json"),
        ConfigPath("opencode.jsonc"),
    ),
}


def _normal(path: str) -> str:
    """``path`` as a product's filesystem may resolve it: no ``.`` or empty segments, and
    case folded (on a case-blind disk ``.Claude/Settings.json`` is the same file)."""
    return "/".join(part for part in path.split("/") if part not in ("", ".")).casefold()


def _matches(entry: ConfigPath, path: str) -> bool:
    if entry.path.endswith("/"):
        return path.startswith(entry.path.casefold())
    return path == entry.path.casefold()


def config_readers(path: str) -> list[tuple[str, ConfigPath]]:
    """Every product that reads ``path`` (relative to its working directory) as its own
    configuration, with the entry that says so; empty for plain data."""
    normal = _normal(path)
    return [
        (product, entry)
        for product, entries in CONFIG_PATHS.items()
        for entry in entries
        if _matches(entry, normal)
    ]


def config_path_problem(path: str) -> str | None:
    """Why a file at ``path`` would configure a product instead of being data, or ``None``."""
    products = list(dict.fromkeys(product for product, _ in config_readers(path)))
    if not products:
        return None
    if len(products) == 1:
        named = f"{products[0]} reads its"
    else:
        named = f"{', '.join(products[:-1])} and {products[-1]} read their"
    return (
        f"the path {shown(path)} is where {named} own configuration (an endpoint, hooks, "
        "MCP servers, a key helper), not a file the skill works on"
    )
