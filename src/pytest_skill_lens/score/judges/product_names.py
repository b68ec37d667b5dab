"""The products that can judge, by name: all the judge catalog needs of them at configure.

Kept apart from :mod:`.product`, which brings the product runners' machinery that only
a judge being built needs.
"""

from __future__ import annotations

from typing import Literal

ProductName = Literal["claude-code", "copilot", "cli"]
PRODUCT_JUDGES: tuple[ProductName, ...] = ("copilot", "claude-code", "cli")
