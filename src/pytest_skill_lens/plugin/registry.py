"""Which runners and judges exist: the built-in descriptions plus what plugins register."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pytest

from ..run.catalog import BUILTIN_RUNNERS, RunnerDescription, builtin_runner
from ..score.judges.catalog import BUILTIN_JUDGES, JudgeDescription, builtin_judge
from .conftest_hint import conftest_to_come, unloaded_conftest_hint
from .state import get_session, listing_only

if TYPE_CHECKING:
    from ..run.requirements import Problem
    from ..run.runner import Runner
    from ..run.sandbox.product_sandbox import ProductSandbox
    from ..score.judge import Judge
    from ..settings import Settings


class RegistryError(Exception):
    pass


class _Described(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def factory(self) -> Callable[..., Any] | None: ...


D = TypeVar("D", bound=_Described)


def _merge(
    kind: str,
    builtins: Iterable[D],
    contributions: list[Mapping[str, Any]],
    describe: Callable[[str, Any], D],
) -> dict[str, D]:
    """Built-in descriptions and the hook's, by name (``describe`` reads one hook value)."""
    merged = {d.name: d for d in builtins}
    for contribution in contributions:
        for name, given in (contribution or {}).items():
            if name in merged:
                raise RegistryError(
                    f"a plugin registers the {kind} {name!r}, which is already taken; "
                    "give it another name"
                )
            description = describe(name, given)
            if description.name != name:
                raise RegistryError(
                    f"a plugin registers the {kind} {name!r} with the description of "
                    f"{description.name!r}; register it under its own name"
                )
            if not callable(description.factory):
                raise RegistryError(
                    f"the {kind} {name!r} was registered with something not callable"
                )
            merged[name] = description
    return merged


def _runner(name: str, given: Any) -> RunnerDescription:
    # A bare factory is described as plugin runners always were: the defaults.
    return given if isinstance(given, RunnerDescription) else RunnerDescription(name, given)


def _judge(name: str, given: Any) -> JudgeDescription:
    return given if isinstance(given, JudgeDescription) else JudgeDescription(name, given)


def runner_descriptions(config: pytest.Config) -> dict[str, RunnerDescription]:
    contributions = config.hook.pytest_skill_lens_runners(config=config)
    return _merge("runner", BUILTIN_RUNNERS, contributions, _runner)


def judge_descriptions(config: pytest.Config) -> dict[str, JudgeDescription]:
    contributions = config.hook.pytest_skill_lens_judges(config=config)
    return _merge("judge", BUILTIN_JUDGES, contributions, _judge)


def judge_grades(config: pytest.Config, name: str) -> bool:
    """Whether the judge ``name`` grades rubrics (an unknown name is refused elsewhere)."""
    description = judge_descriptions(config).get(name)
    return description is None or description.grades


def described_runners(config: pytest.Config, names: Sequence[str]) -> list[RunnerDescription]:
    """The descriptions of the runners ``names`` (each checked to exist)."""
    runners = runner_descriptions(config)
    return [runners[name] for name in names]


def check_names(config: pytest.Config, runner_names: Sequence[str], judge_name: str) -> None:
    """Raise :class:`RegistryError` when a named runner or judge does not exist or cannot run.

    A built-in's settings and key were checked at configure time; a plugin's are
    checked here, once every ``conftest.py`` on the way has registered its own.
    """
    session = get_session(config)
    settings = session.run.settings if session is not None else None
    runners = runner_descriptions(config)
    for name in runner_names:
        if name not in runners:
            message = _unknown("runner", name, runners)
            source = session.run.runner_source if session is not None else ""
            raise RegistryError(
                (f"{source}: {message}" if source else message)
                + _runner_fix(source, name)
                + unloaded_conftest_hint(
                    config, "pytest_skill_lens_runners", name, _skill_paths(config)
                )
            )
        if settings is not None:
            _require(runners[name], settings, config, builtin_runner(name) is None)
    judges = judge_descriptions(config)
    if judge_name not in judges:
        message = _unknown("judge", judge_name, judges)
        source = session.run.judge_source if session is not None else ""
        raise RegistryError(
            (f"{source}: {message}" if source else message)
            + _JUDGE_FIX
            + unloaded_conftest_hint(
                config, "pytest_skill_lens_judges", judge_name, _skill_paths(config)
            )
        )
    if settings is not None:
        _require(judges[judge_name], settings, config, builtin_judge(judge_name) is None)


def check_names_before_collection(config: pytest.Config) -> None:
    """Refuse an unknown runner or judge as a configuration error (exit 2), before
    collection, unless a conftest.py collection would still load might register it;
    then the first skill collected checks again (``collect._registry_ok``)."""
    session = get_session(config)
    if session is None or conftest_to_come(config, session.run.roots):
        return
    try:
        check_names(config, session.run.runner_names, session.run.settings.judge)
    except RegistryError as exc:
        pytest.exit(f"skill-lens: {exc}", returncode=2)
    session.caches.registry_checked = True


_JUDGE_FIX = (
    "\n  fix: name one of them, or register your own with pytest_skill_lens_judges in a "
    "conftest.py (docs/extending.md)"
)


def _runner_fix(source: str, name: str) -> str:
    from_file = bool(source) and not source.startswith("--")
    where = "default_runner in skill-lens.toml" if from_file else "--skill-lens-runner"
    return (
        f"\n  fix: name one of them with {where}, or register {name!r} with "
        "pytest_skill_lens_runners in a conftest.py this run loads (docs/extending.md)"
    )


def _skill_paths(config: pytest.Config) -> str:
    session = get_session(config)
    roots = session.run.roots if session is not None else ()
    here = config.invocation_params.dir
    shown = []
    for root in roots:
        try:
            shown.append(root.relative_to(here).as_posix() or ".")
        except ValueError:
            shown.append(str(root))
    return " ".join(shown) or "PATH"


class _Checked(Protocol):
    def extra_problem(self, settings: Settings) -> Problem | None: ...

    def settings_problem(self, settings: Settings) -> Problem | None: ...

    def key_problem(self, settings: Settings) -> Problem | None: ...


def _require(
    description: _Checked, settings: Settings, config: pytest.Config, from_plugin: bool
) -> None:
    """Its extra installed (checked, not imported); a plugin's settings and key as well."""
    problem = description.extra_problem(settings)
    if problem is None and from_plugin:
        problem = description.settings_problem(settings)
        if problem is None and not listing_only(config):  # listing cases spends nothing
            problem = description.key_problem(settings)
    if problem is not None:
        raise RegistryError(f"{problem[0]}; {problem[1]}")


def _unknown(kind: str, name: str, known: Mapping[str, Any]) -> str:
    return f"unknown {kind} {name!r}; available: {', '.join(sorted(known))}"


def build_runner(
    config: pytest.Config,
    name: str,
    settings: Settings,
    sandbox: Any,
    product_sandbox: ProductSandbox | None,
) -> Runner:
    from ..run.runner import RunnerContext  # built on first run: a listing builds none

    factory = runner_descriptions(config)[name].factory
    assert factory is not None  # _merge refused a description without one
    context = RunnerContext(name, settings, sandbox=sandbox, product_sandbox=product_sandbox)
    return factory(context)


def build_judge(
    config: pytest.Config, name: str, settings: Settings, product_sandbox: ProductSandbox | None
) -> Judge:
    from ..score.judge import JudgeContext  # built on first run: a listing builds none

    factory = judge_descriptions(config)[name].factory
    assert factory is not None  # _merge refused a description without one
    return factory(JudgeContext(name=name, settings=settings, product_sandbox=product_sandbox))
