"""The report's data as the page carries it: JSON inside ``<script type="application/json">``.

The browser ends a script element at the first ``</script`` whatever the JSON means, and
an HTML comment opener changes how that end is found, so every ``<``, ``>`` and ``&`` is
written as its ``\\uXXXX`` escape: JSON.parse reads the same text back, and no output,
evidence or name can close the block or open markup of its own.
"""

from __future__ import annotations

import json
from typing import Any

from ..printable import scrub, scrub_data

DATA_ID = "skill-lens-data"

# Outside strings JSON has none of these characters, so replacing them everywhere is exact.
_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def data_json(report: dict[str, Any]) -> str:
    """``report`` as JSON text that is safe between ``<script>`` tags (ASCII only)."""
    text = json.dumps(
        scrub_data(report),
        ensure_ascii=True,  # also escapes U+2028/U+2029 and every other non-ASCII character
        allow_nan=False,
        separators=(",", ":"),
        default=lambda value: scrub(str(value)),
    )
    return text.translate(_ESCAPES)


def data_block(report: dict[str, Any]) -> str:
    """The ``<script type="application/json">`` element holding ``report``."""
    return f'<script type="application/json" id="{DATA_ID}">{data_json(report)}</script>'
