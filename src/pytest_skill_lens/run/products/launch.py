"""A product's launch hook (:attr:`.description.Preset.launch`): what one start of a product
configured other than by fixed flags and variables adds (Codex's ``-c`` TOML overrides, a
settings file in its home, JSON in a variable), and what it is told to build it from.

Called by :func:`.bridge.start_with_tools` for every start of the product itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LaunchContext:
    """What a product's launch hook (:attr:`.description.Preset.launch`) is told about one start.

    ``env`` is the environment built so far (home isolation's, with the endpoint and
    sign-in variables it let through); ``files_home`` the call's own temporary home,
    where :attr:`Launch.files` are written (under ``product_sandbox = "off"`` the
    product's ``HOME`` is the user's, and ``isolated`` is false); ``cwd`` the working
    directory; ``mcp`` the MCP bridge's server entry (``command``, ``args``, ``env``
    and the :attr:`..tools.bridge_form.BridgeForm.server` keys) when the case has tools,
    else ``None``;
    ``sandboxed`` whether the start runs inside skill-lens' product sandbox (bwrap).
    """

    env: Mapping[str, str]
    files_home: Path
    cwd: Path
    isolated: bool
    sandboxed: bool
    mcp: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Launch:
    """What a launch hook adds to one start: ``flags`` after the table's ``args`` (before
    the prompt), ``env`` over the built environment, and ``files`` (path relative to
    the call's home -> text) written there before the start."""

    flags: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)


def launch_problem(launch: Launch) -> str | None:
    """Why ``launch``'s files cannot be written into the call's home, or ``None``."""
    for name in launch.files:
        parts = Path(name).parts
        if not name or Path(name).is_absolute() or ".." in parts or not parts:
            return f"a launch file must be a relative path inside the home, not {name!r}"
    return None


# A product's launch hook: the flags, environment and home files one start adds.
LaunchHook = Callable[[LaunchContext], Launch]
