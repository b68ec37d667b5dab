"""No import circle anywhere in the package ties more than three modules (issues 31, 32).

A circle of modules that import each other, at load or inside a function, cannot be
read, tested or changed one module at a time. The graph is the package's own imports,
every spelling, lazy ones included; its strongly connected components are the circles.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest_skill_lens

PACKAGE = Path(pytest_skill_lens.__file__).parent
ROOT = "pytest_skill_lens"
MAX_CIRCLE = 3


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join((ROOT, *parts))] = path
    return names


def _targets(module: str, path: Path, modules: Mapping[str, Path]) -> Iterable[str]:
    """Every dotted name ``path`` imports, absolute; ``from x import y`` gives ``x.y`` too."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            # ``from pkg import mod`` runs ``pkg`` (already loaded: the importer's own
            # package, or its parent's) and ``mod``: the arrow goes to ``mod`` alone, or
            # every package's __init__ that re-exports a submodule would tie a circle.
            names = [f"{origin}.{alias.name}" for alias in node.names]
            if not all(name in modules for name in names):
                yield origin
            yield from names


def import_graph() -> dict[str, set[str]]:
    modules = _module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target in _targets(name, path, modules):
            while target and target not in modules:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_anywhere_in_the_package_ties_more_than_three_modules() -> None:
    # plugin/ and cli/ included: a hook module that imports the session, which imports
    # every hook module back, is one knot however its files are cut.
    too_large = [circle for circle in circles(import_graph()) if len(circle) > MAX_CIRCLE]
    assert too_large == []


def test_the_circle_finder_finds_a_circle_and_nothing_else() -> None:
    # A guard on the guard: a -> b -> c -> a is one circle, d hangs off it.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_importing_a_submodule_by_name_is_an_arrow_to_it_alone() -> None:
    # ``from . import hookspecs`` loads the package only as every module of it does: an
    # arrow to the package's __init__ would tie each re-exporting package into a circle.
    graph = import_graph()
    assert f"{ROOT}.plugin.hookspecs" in graph[f"{ROOT}.plugin.hooks"]
    assert f"{ROOT}.plugin" not in graph[f"{ROOT}.plugin.hooks"]
    assert f"{ROOT}" in graph[f"{ROOT}.cli.mcp_session"]  # from .. import __version__


def test_imports_inside_functions_and_for_typing_are_arrows_too() -> None:
    # run/catalog.py imports the fake runner only inside the function that builds it, and
    # the product sandbox's type only under TYPE_CHECKING: both can close a circle.
    graph = import_graph()
    assert f"{ROOT}.run.fake" in graph[f"{ROOT}.run.catalog"]
    assert f"{ROOT}.run.sandbox.product_sandbox" in graph[f"{ROOT}.run.catalog"]


def test_a_circle_of_four_is_one_too_many() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"d"}, "d": {"a"}}
    assert [len(circle) for circle in circles(graph)] == [MAX_CIRCLE + 1]
