"""The layers of docs/architecture.md, checked on the source: nothing imports upward.

Bottom to top: suite, run, score, perform, gate, report, plugin. The top-level helpers
(settings.py, labels.py, matching.py, wellformed.py, gcpause.py, atomic_file.py,
formatting.py) sit beside suite/ and import nothing above it; authoring/ imports only
suite/; merge/ reads reports below plugin/; cli/ (the console script) never imports
plugin/, and nothing below them imports merge/ or cli/. report/ reads the gate's figures
and calls none of its functions. Inside run/, the lower parts (process/, workspace/,
sandbox/, history/) import only the parts below them, tools/ none of the parts that use
it (products/, runners/, cassettes/, models/), and run/ never imports mcp_bridge/, which
sits above it. Only plugin/ imports pytest, and the agent
frameworks are imported only inside a function, never when a module loads (collection
stays light), except by the one framework seam, which is itself imported only inside a
function.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import pytest_skill_lens

LAYERS = ("suite", "run", "score", "perform", "gate", "report", "plugin")
PACKAGE = Path(pytest_skill_lens.__file__).parent
FRAMEWORKS = {"pydantic_ai", "langchain", "langchain_core", "langchain_openai"}
FRAMEWORKS |= {"langchain_anthropic", "openai", "anthropic", "genai_prices", "mcp"}


@pytest.mark.parametrize("layer", LAYERS)
def test_no_layer_imports_upward_and_only_plugin_imports_pytest(layer: str) -> None:
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    if layer != "plugin":
        above |= {"pytest", "_pytest"}
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in above
    ]
    assert found == []


def test_the_top_level_helpers_import_nothing_above_suite() -> None:
    found = [
        f"{path.name} imports {target}"
        for path in sorted(PACKAGE.glob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in {*LAYERS[1:], "pytest", "_pytest"}
    ]
    assert found == []


def test_the_mcp_bridge_is_run_layer_code() -> None:
    # A package of its own only for `python -m`: it serves run/'s mock tools, so it may
    # import suite/ and run/, and nothing above them.
    above = {*LAYERS[LAYERS.index("run") + 1 :], "pytest", "_pytest"}
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "mcp_bridge").rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in above
    ]
    assert found == []


# run/'s lower parts and the only parts of run/ each may import: starting a process knows
# nothing of what runs; the workspace, the sandbox and the skill's history in git start
# processes and read paths, and know nothing of runners, products, tools or models.
RUN_FLOORS = {
    "process": set(),
    "workspace": {"process"},
    "sandbox": {"process"},
    "history": {"process", "workspace"},
}


@pytest.mark.parametrize("part", sorted(RUN_FLOORS))
def test_the_lower_parts_of_run_import_only_the_parts_below_them(part: str) -> None:
    allowed = {part, *RUN_FLOORS[part]}
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "run" / part).rglob("*.py"))
        for target, _ in _imports(path)
        if target.startswith("run.") and target.split(".")[1] not in allowed
    ]
    assert found == []


# What an agent is offered sits below what offers it: run/tools/ (the mock tools, the
# built-in tools, the bridge's harness side) imports run/'s lower parts and its top (the
# result), never the products, runners, cassettes or models that use it.
TOOLS_MAY_IMPORT = {"tools", *RUN_FLOORS}


def test_the_tools_import_none_of_the_parts_that_use_them() -> None:
    folders = {path.parent.name for path in (PACKAGE / "run").glob("*/__init__.py")}
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "run" / "tools").rglob("*.py"))
        for target, _ in _imports(path)
        if target.startswith("run.") and target.split(".")[1] in folders - TOOLS_MAY_IMPORT
    ]
    assert found == []


def test_every_folder_of_run_is_a_part_the_docs_name() -> None:
    # A new folder of run/ is placed in docs/architecture.md before it lands.
    docs = Path(__file__).resolve().parents[2] / "docs"
    architecture = (docs / "architecture.md").read_text(encoding="utf-8")
    folders = {path.parent.name for path in (PACKAGE / "run").glob("*/__init__.py")}
    assert sorted(f for f in folders if f"  {f}/" not in architecture) == []


def test_run_never_imports_the_mcp_bridge() -> None:
    # The bridge serves run/'s mock tools, so it sits above run/; what both sides need (the
    # mock tools, the spec and calls files, the server's name) is in run/tools/, below both.
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "run").rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] == "mcp_bridge"
    ]
    assert found == []


def test_the_authoring_tools_import_only_suite() -> None:
    # Their logic (scaffold, listing reader, converter) is checked by the loader a run uses,
    # so it may import suite/ and the top-level helpers, and no layer that acts or scores.
    above = {*LAYERS[1:], "pytest", "_pytest", "cli", "merge", "mcp_bridge"}
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "authoring").rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in above
    ]
    assert found == []


def test_merge_reads_reports_below_the_plugin_and_the_console_script() -> None:
    # It judges shards' JSON reports again with the gate: it may import up to report/,
    # never plugin/, the console script that calls it, or pytest.
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "merge").rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in {"plugin", "cli", "pytest", "_pytest"}
    ]
    assert found == []


def test_nothing_below_the_tools_imports_merge_or_the_console_script() -> None:
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for folder in (*LAYERS, "mcp_bridge", "authoring")
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in {"merge", "cli"}
    ]
    assert found == []


def test_reports_call_no_function_of_the_gate() -> None:
    # The gate computes each figure once and keeps it on what it judged (the record's
    # figures, delta, matrix, multiplicity): a report reads them, and one that imported a
    # function of gate/ could compute a figure again. Types and constants it may import.
    found = [
        f"{path.relative_to(PACKAGE)} imports {module}.{name}"
        for path in sorted((PACKAGE / "report").rglob("*.py"))
        for module, name in _imported_names(path)
        if module.split(".")[0] == "gate"
        and inspect.isroutine(getattr(importlib.import_module(f"pytest_skill_lens.{module}"), name))
    ]
    assert found == []


def test_every_folder_of_the_package_has_its_place_here() -> None:
    # A new folder is placed in these rules before it lands, or nothing checks it.
    placed = {*LAYERS, "merge", "cli", "mcp_bridge", "authoring"}
    folders = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert folders == placed


def test_the_console_script_never_imports_the_plugin_or_pytest() -> None:
    # A top layer like plugin/: its commands run where pytest may not be installed.
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "cli").rglob("*.py"))
        for target, _ in _imports(path)
        if target.split(".")[0] in {"plugin", "pytest", "_pytest"}
    ]
    assert found == []


# The modules that are a framework's side: the LangChain runner's and mcp-import's MCP SDK
# side may import them when they load, because nothing imports them before a case runs or
# a live listing is asked for.
FRAMEWORK_SEAMS = {
    "run.runners.langchain_agent",
    "cli.mcp_session",
    "cli.mcp_stdio",
    "cli.mcp_http",
}


def test_no_module_imports_an_agent_framework_when_it_loads() -> None:
    found = [
        f"{name} imports {target} at module level"
        for path, name in _modules()
        if name not in FRAMEWORK_SEAMS
        for target, top_level in _imports(path)
        if top_level and target.split(".")[0] in FRAMEWORKS
    ]
    assert found == []


def test_a_framework_seam_is_imported_only_inside_a_function() -> None:
    found = [
        f"{name} imports {target} at module level"
        for path, name in _modules()
        for target, top_level in _imports(path)
        if top_level and target in FRAMEWORK_SEAMS
    ]
    assert found == []


def _modules() -> list[tuple[Path, str]]:
    return [
        (path, ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_the_checker_sees_every_spelling_of_an_import(tmp_path: Path) -> None:
    # A guard on the guard: relative, absolute and lazy imports are all found.
    module = PACKAGE / "score" / "example.py"
    source = (
        "from ..gate import verdict\nfrom .. import plugin\n"
        "import pytest_skill_lens.report.markdown\n"
        "def later():\n    import pydantic_ai\n"
    )
    found = _imports(module, source)
    assert found == [
        ("gate", True),
        ("plugin", True),
        ("report.markdown", True),
        ("pydantic_ai", False),
    ]


def _imported_names(path: Path) -> list[tuple[str, str]]:
    """Each ``from MODULE import NAME`` of ``path`` as (module relative to the package, name)."""
    package = list(path.relative_to(PACKAGE).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module]).removeprefix("pytest_skill_lens.")
            found += [(module, alias.name) for alias in node.names]
    return found


def _imports(path: Path, source: str | None = None) -> list[tuple[str, bool]]:
    """Every module ``path`` imports (ours relative to the package: ``gate.record``),
    each with whether the import runs when the module loads (outside any function)."""
    package = list(path.relative_to(PACKAGE).parent.parts)
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    lazy = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
    }
    targets: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1]
            if node.module:
                names = [".".join([*base, node.module])]
            else:  # from .. import settings
                names = [".".join([*base, alias.name]) for alias in node.names]
        for name in names:
            own = name.removeprefix("pytest_skill_lens.")
            targets.append((own if own != name else name, id(node) not in lazy))
    return targets
