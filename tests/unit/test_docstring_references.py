"""A docstring's relative cross-reference names a module that exists.

``:mod:`..process.start``` and the like are how the source points a reader at the code
that does the rest; a module moved into a folder leaves every such pointer one level
short, and nothing else notices.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_skill_lens

PACKAGE = Path(pytest_skill_lens.__file__).parent
REFERENCE = re.compile(r":(?:mod|func|class|meth|attr|data|exc):`~?(\.+)([\w.]+)`")


def test_every_relative_reference_names_a_module_of_the_package() -> None:
    broken = [
        f"{path.relative_to(PACKAGE)}:{text[: found.start()].count(chr(10)) + 1}: {found[0]}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for found in REFERENCE.finditer(text)
        if not _resolves(path, len(found[1]), found[2].split("."), text)
    ]
    assert broken == []


def _resolves(path: Path, level: int, names: list[str], text: str) -> bool:
    package = list(path.relative_to(PACKAGE).parent.parts)
    base = PACKAGE.joinpath(*package[: len(package) - level + 1])
    for count in range(len(names), 0, -1):
        module = base.joinpath(*names[:count])
        for source in (module.with_suffix(".py"), module / "__init__.py"):
            if source.is_file():
                # What follows the module must be something it defines or imports: a
                # package alone does not vouch for a module moved out of it.
                rest = names[count:]
                return not rest or _defines(source.read_text(encoding="utf-8"), rest[0])
    # ``:meth:`.Tape.record``` names something of the module itself.
    return level == 1 and _defines(text, names[0])


def _defines(text: str, name: str) -> bool:
    own = rf"^(?:class|def|async def) {re.escape(name)}\b|^{re.escape(name)}\b"
    imported = rf"^\s*(?:from \S+ )?import .*\b{re.escape(name)}\b"
    return re.search(f"{own}|{imported}", text, re.M) is not None
