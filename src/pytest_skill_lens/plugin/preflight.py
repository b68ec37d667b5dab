"""What is checked before anything is collected or spent: the flags nothing reads, a
spend ceiling that cannot be enforced, the sandboxes, each runner's and the judge's
settings, model and key. A mistake stops the run with exit 2 and the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..run.catalog import BUILTIN_RUNNERS, RunnerDescription, builtin_runner
from ..score.judges.catalog import BUILTIN_JUDGES, JudgeDescription, builtin_judge
from ..settings import Settings
from .flags import user_error

if TYPE_CHECKING:  # annotations only: the decisions' modules load when one is made
    from ..run.sandbox.product_sandbox import ProductSandbox
    from ..run.sandbox.script_sandbox import SandboxDecision


def refuse_unenforceable_ceiling(settings: Settings) -> None:
    """A spend ceiling that some seat's spend could never be counted against stops the run."""
    if settings.max_spend_usd is None:
        return
    seats: list[tuple[str, RunnerDescription | JudgeDescription | None]] = [
        (f"runner {name!r}", builtin_runner(name)) for name in settings.runner_names
    ]
    seats.append((f"judge {settings.judge!r}", builtin_judge(settings.judge)))
    for label, description in seats:
        if description is None:
            continue  # a plugin's seat reports each run's price itself
        reason = description.unpriced_reason(settings)
        if reason is not None:
            fix = "drop the spend ceiling, or run without it"
            if description.reads_model:
                fix = (
                    "drop the spend ceiling, or use a model genai-prices knows (its price list "
                    "is at https://github.com/pydantic/genai-prices)"
                )
            user_error(
                f"max_spend_usd is set, but the spend of {label} can never be priced: {reason}",
                fix,
            )


def prepare_scripts(
    settings: Settings, *, collect_only: bool
) -> tuple[SandboxDecision | None, str | None]:
    """The run's one script sandbox decision and the harness hardening, when scripts are on.

    Made before any case runs, so script_sandbox = "required" without a working
    backend exits 2 before anything is spent. Listing cases runs no script.
    """
    if not settings.allow_scripts or collect_only:
        return None, None
    from ..run.sandbox.script_sandbox import decide, hide_harness_environment

    decision = decide(settings.script_sandbox)
    if settings.script_sandbox == "required" and decision.backend == "none":
        user_error(
            f'script_sandbox = "required", but no sandbox backend works here: {decision.detail}',
            "install bubblewrap (Linux) and allow unprivileged user namespaces, or set "
            'script_sandbox = "auto" to run scripts with the portable guards only; see '
            "docs/scripts.md",
        )
    # A script runs as our user, and a same-user process may read our environment
    # (the provider key) from /proc/<pid>/environ; non-dumpable makes that refused.
    hardening = hide_harness_environment()
    return decision, hardening


def decide_product_sandbox(settings: Settings, *, collect_only: bool) -> ProductSandbox | None:
    """The run's one product sandbox decision, shared by every product runner and judge.

    Made before the products' preflight, whose ``--version`` runs under it, and only
    when a product is named; product_sandbox = "required" without a working backend
    exits 2 here. Listing cases starts no product, nor does a replay-only run (nothing
    is probed for one).
    """
    from ..run.products.entries import product_names
    from ..run.sandbox.product_sandbox import replay_only

    if collect_only or not product_names(settings.runner_names, settings.judge):
        decision = None
    elif settings.record == "none":
        decision = replay_only(settings.product_sandbox)
    else:
        decision = _probed_product_sandbox(settings)
    # Kept on RunConfig, and handed to every product start (the --version probe just
    # after, each runner and judge built).
    return decision


def _probed_product_sandbox(settings: Settings) -> ProductSandbox:
    from ..run.sandbox.product_sandbox import decide

    decision = decide(settings.product_sandbox)
    if settings.product_sandbox == "required" and decision.backend == "none":
        user_error(
            f'product_sandbox = "required", but no sandbox backend works here: {decision.detail}',
            "install bubblewrap (Linux) and allow unprivileged user namespaces, or set "
            'product_sandbox = "auto" (home isolation alone where no backend works) or '
            '"off"; see docs/products.md',
        )
    return decision


def preflight_keyed(
    settings: Settings, product_sandbox: ProductSandbox | None, *, collect_only: bool
) -> None:
    """Endpoint, model and API key of each built-in runner, checked before anything is spent."""
    from ..run.models.providers import base_url_problem

    if settings.base_url:
        problem = base_url_problem(settings.base_url)
        if problem is not None:
            user_error(
                f"base_url cannot be used: {problem}",
                "set --skill-lens-base-url or base_url to an http(s) URL such as "
                "http://localhost:11434/v1",
            )
    for name in settings.runner_names:
        description = builtin_runner(name)
        if description is not None:  # a plugin's runner is checked once it is registered
            _preflight_runner(description, settings, product_sandbox, collect_only=collect_only)


def _preflight_runner(
    description: RunnerDescription,
    settings: Settings,
    product_sandbox: ProductSandbox | None,
    *,
    collect_only: bool,
) -> None:
    """The settings and API key one runner needs, checked without importing its framework."""
    if description.extra_problem(settings) is not None:
        return  # collection stops the run naming the extra to install
    problem = description.settings_problem(settings)
    if problem is None and not collect_only:  # listing cases spends nothing
        # Replaying only never reaches a provider, so it needs no key (docs/replay.md).
        key = None if settings.record == "none" else description.key_problem(settings)
        problem = key or description.start_problem(settings, product_sandbox)
    if problem is not None:
        user_error(*problem)


def check_unread_flags(
    option: Any, runners: list[str], judge: str, *, judge_inherits: bool = True
) -> None:
    """A flag nothing will read is refused rather than silently ignored."""
    described = [builtin_runner(name) for name in runners]
    if any(description is None for description in described):
        return  # a plugin's runner may read any setting
    keyed_runner = any(d is not None and d.reads_model for d in described)
    # A judge reads the runners' model (and endpoint) only when it has no judge_model.
    judge_description = builtin_judge(judge)
    keyed_judge = judge_description is not None and judge_description.reads_model
    keyed_judge = keyed_judge and judge_inherits
    readers = " or ".join(f"--skill-lens-runner {d.name}" for d in BUILTIN_RUNNERS if d.reads_model)
    for flag, given in (
        ("--skill-lens-model", option.skill_lens_model),
        ("--skill-lens-base-url", option.skill_lens_base_url),
    ):
        if given is not None and not keyed_runner and not keyed_judge:
            user_error(
                f"{flag} is read by no runner or judge in this run",
                f"drop the flag, or name a runner that reads it ({readers})",
            )


def preflight_judge(
    option: Any, settings: Settings, product_sandbox: ProductSandbox | None, *, collect_only: bool
) -> None:
    """The judge's flag, model, endpoint and API key, checked before anything is spent."""
    from ..score.judges.preflight import missing_extra, missing_key, settings_problem

    judge = settings.judge
    flag = option.skill_lens_judge_model
    description = builtin_judge(judge)
    if flag is not None and description is not None and not description.reads_model:
        readers = [d.name for d in BUILTIN_JUDGES if d.reads_model]
        alternatives = "".join(f' (or "{name}")' for name in readers[1:])
        fix = (
            f'drop the flag, or set judge = "{readers[0]}"{alternatives} in skill-lens.toml '
            f"(or pass --skill-lens-judge {readers[0]})"
        )
        if description.check_start is not None:  # a product judge: its own table picks
            fix = f"drop the flag; a {judge} judge takes its model from [runners.{judge}] args"
        user_error(
            f"--skill-lens-judge-model is read only by a {' or '.join(readers)} judge, "
            f"and the judge is {judge!r}",
            fix,
        )
    if flag is not None and not flag.strip():
        user_error(
            "--skill-lens-judge-model is blank",
            "give it a model as provider:name (e.g. openai:gpt-4o-mini), or drop the flag to "
            "let the judge use the runners' model",
        )
    problem = settings_problem(judge, settings)
    if problem is None and missing_extra(judge, settings) is not None:
        return  # collection stops the run naming the extra to install
    if problem is None and not collect_only and settings.record != "none":
        problem = missing_key(judge, settings)  # replaying only needs no key
    if problem is None and not collect_only and description is not None:
        problem = description.start_problem(settings, product_sandbox)  # a product judge
    if problem is not None:
        user_error(*problem)
