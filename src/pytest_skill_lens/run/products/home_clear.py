"""What a home template's first start wrote about itself, cleared before it is a template.

The recipe's ``removed`` paths go; its databases keep their tables and migration record
but no row of the start's, overwritten where they were (``secure_delete``), so no freed
page keeps them; and what is left must be only directories and regular files. A
database with a virtual table (a full-text index, which cannot be emptied row by row)
makes the home no template, as the calls then start empty: never a half-cleared copy.
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from .home_recipe import HomeRecipe


def clear_home(recipe: HomeRecipe, home: Path) -> str | None:
    """Clear what the start wrote about itself; why the home is no template, or ``None``."""
    if not glob.glob(recipe.required, root_dir=home):
        return f"its first start made nothing matching {recipe.required} in its home"
    for relative in recipe.removed:
        target = home / relative
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    try:
        for pattern in recipe.emptied:
            for name in sorted(glob.glob(pattern, root_dir=home)):
                _empty(home / name, recipe.kept_tables)
    except sqlite3.Error as exc:
        return f"its database could not be cleared: {exc}"
    for path in _walk(home):
        if path.is_symlink() or not (path.is_dir() or path.is_file()):
            return f"its home holds {path.relative_to(home)}, neither a directory nor a file"
    return None


def _empty(database: Path, kept: tuple[str, ...]) -> None:
    """Delete every row of ``database`` but its ``kept`` tables', overwritten where it was."""
    connection = sqlite3.connect(database, isolation_level=None)
    try:
        found = connection.execute("select name, sql from sqlite_master where type='table'")
        tables = []
        for name, sql in found.fetchall():
            if (sql or "").lstrip().upper().startswith("CREATE VIRTUAL"):
                # A full-text index's own tables cannot be emptied row by row.
                raise sqlite3.DatabaseError(f"{database.name} has the virtual table {name}")
            if name not in kept and not name.startswith("sqlite_"):
                tables.append(name)
        # secure_delete overwrites what is deleted: no freed page keeps the start's rows.
        connection.execute("pragma secure_delete = on")
        connection.execute("pragma synchronous = off")  # a template is made again if lost
        for table in tables:
            connection.execute(f'delete from "{table.replace(chr(34), chr(34) * 2)}"')
        connection.execute("pragma wal_checkpoint(truncate)")
    finally:
        connection.close()


def _walk(root: Path) -> Iterator[Path]:
    for directory, names, files in os.walk(root):
        for name in (*names, *files):
            yield Path(directory, name)
