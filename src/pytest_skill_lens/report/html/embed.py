"""The report's data as the page carries it: JSON inside ``<script type="application/json">``.

The browser ends a script element at the first ``</script`` whatever the JSON means, and
an HTML comment opener changes how that end is found, so every ``<``, ``>`` and ``&`` is
written as its ``\\uXXXX`` escape: JSON.parse reads the same text back, and no output,
evidence or name can close the block or open markup of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..json_stream import Parts, compact_chunks
from .evidence import Packer

DATA_ID = "skill-lens-data"

# Outside strings JSON has none of these characters, so replacing them everywhere is exact.
_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def data_json(report: dict[str, Any]) -> str:
    """``report`` as JSON text that is safe between ``<script>`` tags (ASCII only)."""
    return "".join(data_chunks(report.items()))


def data_chunks(parts: Parts) -> Iterator[str]:
    """The data as :func:`data_json` writes it, in pieces: each outcome as it is made."""
    # The encoder's ensure_ascii also escapes U+2028/U+2029 and every other non-ASCII one.
    # Each outcome's heavy part goes into the compressed blocks (:mod:`.evidence`).
    return compact_chunks(Packer().parts(parts), lambda text: text.translate(_ESCAPES))
