"""Every judge this version knows, one typed description each: the plugin only loops over them.

A judge a plugin registers through ``pytest_skill_lens_judges`` joins them;
given as a bare factory, it gets the defaults of :class:`JudgeDescription`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...run.products.description import Preset
from ...run.products.table import PRODUCTS
from ...run.requirements import (
    Extra,
    Problem,
    SettingsCheck,
    StartCheck,
    extra_problem,
    key_problem,
)
from ...run.runners import langchain_model, pydantic_ai_model
from ...settings import Settings
from ..judge import FakeJudge, Judge, JudgeContext, JudgeFactory
from .resolve import judge_model, model_problem

if TYPE_CHECKING:  # annotations only: configure never imports the sandbox
    from ...run.sandbox.product_sandbox import ProductSandbox


@dataclass(frozen=True)
class JudgeDescription:
    """One judge: what builds it and what it needs before it grades.

    ``factory`` is ``None`` only in a plugin's description that left it out, which
    registering refuses.
    ``reads_model``: it grades with ``judge_model``, or else inherits the runners'
    ``model`` and endpoint, so that model's API key is checked before any case runs.
    ``check_start``: what must hold for it to start at all (a product's executable
    found and executed), checked before any case runs but not when cases are only
    listed. ``never_priced``: why its spend can never be priced, or None.
    ``grades``: False for a judge that grades no rubric (the built-in ``fake``), so a
    case with a ``judge:`` block is named before it is run and paid for.
    """

    name: str
    factory: JudgeFactory | None = None
    extra: Extra | None = None
    check_settings: SettingsCheck | None = None
    reads_model: bool = False
    check_start: StartCheck | None = None
    never_priced: str | None = None
    # The same, when it depends on the settings (a product priced by the model it is told).
    unpriced: Callable[[Settings], str | None] | None = None
    grades: bool = True

    def extra_problem(self, settings: Settings) -> Problem | None:
        if self.extra is None:
            return None
        return extra_problem("judge", self.name, self.extra, judge_model(settings))

    def settings_problem(self, settings: Settings) -> Problem | None:
        return None if self.check_settings is None else self.check_settings(settings)

    def unpriced_reason(self, settings: Settings) -> str | None:
        """Why this judge's spend can never be priced under ``settings``; None if it can."""
        if self.never_priced is not None:
            return self.never_priced
        if self.unpriced is not None:
            return self.unpriced(settings)
        if not self.reads_model:
            return None
        from ...run.models.pricing import never_priced

        return never_priced(judge_model(settings))

    def key_problem(self, settings: Settings) -> Problem | None:
        return key_problem("judge", self.name, judge_model(settings)) if self.reads_model else None

    def start_problem(self, settings: Settings, sandbox: ProductSandbox | None) -> Problem | None:
        return None if self.check_start is None else self.check_start(settings, sandbox)


# The judges' modules are imported when a judge is built: collecting never needs them.


def _pydantic_ai(context: JudgeContext) -> Judge:
    from .pydantic_ai import PydanticAIJudge

    return PydanticAIJudge(context.settings)


def _pydantic_ai_settings(settings: Settings) -> Problem | None:
    return model_problem("pydantic-ai", settings, pydantic_ai_model.model_problem)


def _langchain(context: JudgeContext) -> Judge:
    from .langchain import LangChainJudge

    return LangChainJudge(context.settings)


def _langchain_served(model: str, base_url: str) -> str | None:
    return langchain_model.model_problem(model, role="judge", base_url_key="judge_base_url")


def _langchain_settings(settings: Settings) -> Problem | None:
    return model_problem("langchain", settings, _langchain_served)


def _product_judge(product: Preset) -> JudgeDescription:
    """A product's judge, read from its description (run/products/table.py): started from
    the runner's ``[runners.<name>]`` table, checked as the runner is."""

    def build(context: JudgeContext) -> Judge:
        from .product import ProductJudge

        return ProductJudge(product, context.settings, sandbox=context.product_sandbox)

    def settings(settings: Settings) -> Problem | None:
        from .product_rules import settings_problem

        return settings_problem(product, settings)

    def start(settings: Settings, sandbox: ProductSandbox | None) -> Problem | None:
        from .product_rules import start_problem

        return start_problem(product, settings, sandbox)

    return JudgeDescription(
        product.name,
        build,
        check_settings=settings,
        check_start=start,
        never_priced=product.judge_never_priced,
        unpriced=product.unpriced,
    )


BUILTIN_JUDGES: tuple[JudgeDescription, ...] = (
    JudgeDescription("fake", FakeJudge, grades=False),
    JudgeDescription(
        "pydantic-ai",
        _pydantic_ai,
        extra=pydantic_ai_model.EXTRA,
        check_settings=_pydantic_ai_settings,
        reads_model=True,
    ),
    JudgeDescription(
        "langchain",
        _langchain,
        extra=langchain_model.EXTRA,
        check_settings=_langchain_settings,
        reads_model=True,
    ),
    # Graded through the product, started from its [runners.<name>] table (product.py).
    *(_product_judge(product) for product in PRODUCTS),
)
_BY_NAME = {description.name: description for description in BUILTIN_JUDGES}


def builtin_judge(name: str) -> JudgeDescription | None:
    """The built-in judge ``name``; ``None`` for a name a plugin may register."""
    return _BY_NAME.get(name)
