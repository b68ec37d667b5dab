"""How a product's home template is made (:attr:`.description.Preset.home_template`).

Pure data: the start that does the product's first-run work and what is cleared from
the home afterwards. :mod:`.home_template` runs it once per process and copies the
result into every isolated call's home.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class HomeRecipe:
    """One start of the product, against a local endpoint that refuses every request.

    ``args(url)`` are the arguments after the executable (the prompt included) that point
    the product at ``url``, where every request is answered 400; ``env(url, home)`` the
    variables it needs beside home isolation's; ``directories`` are made in the home
    first (relative paths). The product does its first-run work
    (databases, migrations, its own files), asks once, is refused and exits.

    Then ``removed`` (paths relative to the home) goes, and every table of the SQLite
    files ``emptied`` matches (globs relative to the home) loses its rows except the
    tables in ``kept_tables`` (the schema's migration record): what the refused start
    wrote about itself never reaches a call. ``required`` (a glob relative to the home)
    must match something, or the recipe did not do its work and no template is used.
    """

    args: Callable[[str], tuple[str, ...]]
    env: Callable[[str, Path], Mapping[str, str]]
    directories: tuple[str, ...] = ()  # made in the home before the start
    removed: tuple[str, ...] = ()
    emptied: tuple[str, ...] = ()
    kept_tables: tuple[str, ...] = ()
    required: str = "*"
