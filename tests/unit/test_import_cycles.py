"""No import circle below the plugin ties more than three modules (issue 31).

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
CHECKED = ("run", "score", "suite", "perform", "gate", "report", "authoring", "mcp_bridge")


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join((ROOT, *parts))] = path
    return names


def _targets(module: str, path: Path) -> Iterable[str]:
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
            yield origin
            yield from (f"{origin}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    modules = _module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target in _targets(name, path):
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


def test_no_import_circle_below_the_plugin_ties_more_than_three_modules() -> None:
    checked = tuple(f"{ROOT}.{layer}" for layer in CHECKED)
    too_large = [
        circle
        for circle in circles(import_graph())
        if len(circle) > MAX_CIRCLE and any(m.startswith(checked) for m in circle)
    ]
    assert too_large == []


def test_the_circle_finder_finds_a_circle_and_nothing_else() -> None:
    # A guard on the guard: a -> b -> c -> a is one circle, d hangs off it.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
