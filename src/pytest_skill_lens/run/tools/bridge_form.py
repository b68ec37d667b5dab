"""How a product takes the MCP bridge: a field of every product's description.

Here, below both, because the bridge's harness side (:mod:`.bridge_config`) writes the
config in this form and the products (:mod:`..products.description`) declare it: the
products import the tools, never the other way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class BridgeForm:
    """How a product takes the MCP bridge (:mod:`.bridge_config`, :mod:`..products.bridge`).

    ``flag`` hands it the config file (``{path}`` is the file), placed last among its
    flags; ``None`` for a product that takes the server entry through its description's
    ``launch`` hook instead (``LaunchContext.mcp``); ``server`` is what its config's
    server entry holds beside the command (``type``, a tool list); ``prefix``
    is what its trace puts before a bridge tool's name; ``env`` what its environment
    needs; ``refused_flags`` table flags that would take the bridge's tools away again,
    and ``refused_why`` why.
    """

    flag: str | None
    server: Mapping[str, object]
    prefix: str
    env: Mapping[str, str] = field(default_factory=dict)
    refused_flags: tuple[str, ...] = ()
    refused_why: str = ""

    def argument(self, config: Path) -> str | None:
        return None if self.flag is None else self.flag.replace("{path}", str(config))
