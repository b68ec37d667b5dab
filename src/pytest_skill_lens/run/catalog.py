"""Every runner this version knows, one typed description each: the plugin only loops over them.

A runner a plugin registers through ``pytest_skill_lens_runners`` joins them;
given as a bare factory, it gets the defaults of :class:`RunnerDescription`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from ..settings import Settings
from ..suite.model import EvalCase, ToolSpec
from .products.description import Preset
from .products.table import PRODUCTS
from .requirements import Extra, Problem, SettingsCheck, StartCheck, extra_problem, key_problem
from .runner import Runner, RunnerContext, RunnerFactory
from .runners import langchain_model, pydantic_ai_model

if TYPE_CHECKING:  # annotations only: configure never imports the sandbox
    from .sandbox.product_sandbox import ProductSandbox

CaseFeature = Literal[
    "tools", "trajectory", "offered", "workspace", "sessions", "judge", "neighbours"
]
EVERY_FEATURE: frozenset[CaseFeature] = frozenset(get_args(CaseFeature))
# How each feature is spelled in an eval file, for messages.
FEATURE_FIELDS: dict[CaseFeature, str] = {
    "tools": "tools:",
    "trajectory": "trajectory:",
    "offered": "mode: offered",
    "workspace": "workspace:",
    "sessions": "sessions:",
    "judge": "judge:",
    "neighbours": "neighbours:",
}


def features_of(case: EvalCase) -> list[CaseFeature]:
    """The features ``case`` uses, in the order of :data:`CaseFeature`."""
    used: dict[CaseFeature, bool] = {
        "tools": bool(case.tools),
        "trajectory": case.trajectory is not None,
        "offered": case.mode == "offered",
        "workspace": case.workspace is not None,
        "sessions": case.sessions is not None,
        "judge": case.judge is not None,
        "neighbours": bool(case.neighbours),
    }
    return [feature for feature in get_args(CaseFeature) if used[feature]]


ToolsCheck = Callable[[Settings, Sequence[ToolSpec]], Problem | None]


@dataclass(frozen=True)
class RunnerDescription:
    """One runner: what builds it, what it needs before it runs, what it serves.

    ``factory`` is ``None`` only in a plugin's description that left it out, which
    registering refuses.
    ``reads_model``: it runs ``model`` (at ``base_url``), so that model's API key is
    checked before any case runs. ``declares_every_tool``: its agent sees only the
    case's tools and the harness's, so a trajectory naming another is an authoring error.
    ``check_start``: what must hold for it to start at all (an executable found and
    executed), checked before any case runs but not when cases are only listed.
    ``check_tools``: what must hold for it to serve mock tools (a product's MCP
    bridge started with ``--check``), checked once per run on a planned case's
    ``tools:``, before any case runs and not when cases are only listed.
    """

    name: str
    factory: RunnerFactory | None = None
    extra: Extra | None = None
    check_settings: SettingsCheck | None = None
    serves: frozenset[CaseFeature] = EVERY_FEATURE
    reads_model: bool = False
    declares_every_tool: bool = False
    check_start: StartCheck | None = None
    check_tools: ToolsCheck | None = None
    # Why its spend can never be priced (so a spend ceiling could never be held), or None.
    never_priced: str | None = None
    # The same, when it depends on the settings (a product priced by the model it is told).
    unpriced: Callable[[Settings], str | None] | None = None
    # Where a product runner delivers the skill in the working directory (its skills dir).
    delivers_into: Callable[[Settings], str] | None = None

    def extra_problem(self, settings: Settings) -> Problem | None:
        if self.extra is None:
            return None
        return extra_problem("runner", self.name, self.extra, settings.model)

    def settings_problem(self, settings: Settings) -> Problem | None:
        return None if self.check_settings is None else self.check_settings(settings)

    def key_problem(self, settings: Settings) -> Problem | None:
        return key_problem("runner", self.name, settings.model) if self.reads_model else None

    def unpriced_reason(self, settings: Settings) -> str | None:
        """Why this runner's spend can never be priced under ``settings``; None if it can."""
        if self.never_priced is not None:
            return self.never_priced
        if self.unpriced is not None:
            return self.unpriced(settings)
        if self.reads_model:
            from .models.pricing import never_priced

            return never_priced(settings.model)
        return None

    def start_problem(self, settings: Settings, sandbox: ProductSandbox | None) -> Problem | None:
        return None if self.check_start is None else self.check_start(settings, sandbox)

    def tools_problem(self, settings: Settings, tools: Sequence[ToolSpec]) -> Problem | None:
        return None if self.check_tools is None else self.check_tools(settings, tools)

    def unserved(self, case: EvalCase) -> CaseFeature | None:
        """The first feature ``case`` uses that this runner does not serve."""
        return next((f for f in features_of(case) if f not in self.serves), None)


RUNNER_SETTINGS_FIX = "fix --skill-lens-model / model, or --skill-lens-base-url / base_url"

# The framework runners' modules are imported when asked: they bring the agent
# machinery (tools, sandbox, retries) that a run not naming them never needs.


def _fake(context: RunnerContext) -> Runner:
    from .fake import FakeRunner  # its tools and workspace: a listing never builds it

    return FakeRunner()


def _pydantic_ai(context: RunnerContext) -> Runner:
    from .runners.pydantic_ai import PydanticAIRunner

    return PydanticAIRunner(context.settings, sandbox=context.sandbox)


def _pydantic_ai_settings(settings: Settings) -> Problem | None:
    from .runners.pydantic_ai import settings_problem

    problem = settings_problem(settings)
    return None if problem is None else (problem, RUNNER_SETTINGS_FIX)


def _langchain(context: RunnerContext) -> Runner:
    from .runners.langchain import LangChainRunner

    return LangChainRunner(context.settings, sandbox=context.sandbox)


def _langchain_settings(settings: Settings) -> Problem | None:
    from .runners.langchain import settings_problem

    problem = settings_problem(settings)
    return None if problem is None else (problem, RUNNER_SETTINGS_FIX)


def _product_runner(product: Preset) -> RunnerDescription:
    """A product's runner, read from its description (run/products/table.py)."""

    def build(context: RunnerContext) -> Runner:
        from .products.runner import ProductRunner

        return ProductRunner(product, context.settings, sandbox=context.product_sandbox)

    def settings(settings: Settings) -> Problem | None:
        from .products.preflight import settings_problem

        return settings_problem(product, settings)

    def start(settings: Settings, sandbox: ProductSandbox | None) -> Problem | None:
        from .products.preflight import start_problem

        return start_problem(product, settings, sandbox)

    def tools(settings: Settings, tools: Sequence[ToolSpec]) -> Problem | None:
        from .products.bridge import check_tools

        return check_tools(product, settings, tools)

    return RunnerDescription(
        product.name,
        build,
        check_settings=settings,
        check_start=start,
        # Mock tools reach it through the MCP bridge, when it takes one.
        check_tools=tools if product.bridge is not None else None,
        # Without a trace of tool calls neither they nor a skill's load can be read.
        serves=EVERY_FEATURE if product.traced else EVERY_FEATURE - UNTRACED,
        never_priced=product.never_priced,
        unpriced=product.unpriced,
        delivers_into=product.skills_dir_of,
    )


UNTRACED: frozenset[CaseFeature] = frozenset({"tools", "trajectory", "offered", "neighbours"})

BUILTIN_RUNNERS: tuple[RunnerDescription, ...] = (
    RunnerDescription("fake", _fake, declares_every_tool=True),
    RunnerDescription(
        "pydantic-ai",
        _pydantic_ai,
        extra=pydantic_ai_model.EXTRA,
        check_settings=_pydantic_ai_settings,
        reads_model=True,
        declares_every_tool=True,
    ),
    RunnerDescription(
        "langchain",
        _langchain,
        extra=langchain_model.EXTRA,
        check_settings=_langchain_settings,
        reads_model=True,
        declares_every_tool=True,
    ),
    *(_product_runner(product) for product in PRODUCTS),
)
_BY_NAME = {description.name: description for description in BUILTIN_RUNNERS}


def builtin_runner(name: str) -> RunnerDescription | None:
    """The built-in runner ``name``; ``None`` for a name a plugin may register."""
    return _BY_NAME.get(name)
