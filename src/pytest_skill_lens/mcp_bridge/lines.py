"""Reading newline-delimited messages with a bound: a huge line is skipped, never held.

A line over the limit is read on in chunks and thrown away, keeping only its
length and its last bytes. MCP clients write the id last (``{...,"id":7}``), so
those bytes usually name the request, and the refusal can answer it: the client
gets an error at once instead of waiting on a reply that would never come.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

MAX_LINE_BYTES = 4 * 1024 * 1024
"""The largest message the bridge reads: far above any tool call, far below a memory problem."""

_CHUNK = 64 * 1024
_TAIL = 128
# The id as the last member of the top-level object: one closing brace, then the line's end.
_TAIL_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"[A-Za-z0-9_.:-]{1,64}")\s*\}\s*$')


@dataclass(frozen=True)
class Oversized:
    """A line that was over the limit: how long it was, and the id its end seemed to carry."""

    size: int
    request_id: str | int | None


def read_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversized]:
    """Every line of ``stream`` until EOF, without its newline; one too long as :class:`Oversized`.

    A last line with no newline is still a line: a client may close its end right
    after writing.
    """
    while True:
        chunk = stream.readline(limit + 1)
        if not chunk:
            return
        if chunk.endswith(b"\n"):
            yield chunk[:-1]
        elif len(chunk) <= limit:
            yield chunk  # EOF without a newline
            return
        else:
            yield _skip_rest(stream, chunk)


def _skip_rest(stream: BinaryIO, head: bytes) -> Oversized:
    size, tail = len(head), head[-_TAIL:]
    while not tail.endswith(b"\n"):
        chunk = stream.readline(_CHUNK)
        if not chunk:
            break
        size += len(chunk)
        tail = (tail + chunk)[-_TAIL:]
    if tail.endswith(b"\n"):
        size -= 1
    return Oversized(size, _id_at_end(tail.rstrip(b"\r\n")))


def _id_at_end(tail: bytes) -> str | int | None:
    found = _TAIL_ID.search(tail)
    if found is None:
        return None
    text = found.group(1).decode("ascii")
    return text[1:-1] if text.startswith('"') else int(text)
