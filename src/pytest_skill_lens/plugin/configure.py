"""Turn flags, ini keys and ``skill-lens.toml`` into the run's configuration.

Every user mistake found here stops the run with exit 2 and the fix, before
anything is collected or spent.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, NoReturn

import pytest

from ..run.catalog import BUILTIN_RUNNERS, RunnerDescription, builtin_runner
from ..run.products.table import NAMES
from ..score.judges.catalog import BUILTIN_JUDGES, JudgeDescription, builtin_judge
from ..settings import Settings, find_config, load_settings
from ..suite.discovery import directory_problem
from ..suite.errors import ConfigError
from ..suite.regular_files import special_kind
from .run_config import RunConfig
from .shard import Shard
from .state import listing_only


def user_error(message: str, fix: str | None = None) -> NoReturn:
    text = f"skill-lens: {message}"
    if fix:
        text += f"\n  fix: {fix}"
    pytest.exit(text, returncode=2)


def _number(flag: str, text: str | None, *, whole: bool = False) -> Any:
    if text is None:
        return None
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        user_error(f"--skill-lens-{flag} expects {kind}, got {text!r}")
    if not math.isfinite(value):
        user_error(f"--skill-lens-{flag} must be a finite number, got {text!r}")
    return value


def _positive(flag: str, text: str | None) -> int | None:
    value = _number(flag, text, whole=True)
    if value is not None and value < 1:
        user_error(f"--skill-lens-{flag} must be 1 or more, got {value}")
    return value  # type: ignore[no-any-return]


def _above_zero(flag: str, text: str | None) -> float | None:
    value = _number(flag, text)
    if value is not None and value <= 0:
        user_error(f"--skill-lens-{flag} must be more than 0, got {value}")
    return value  # type: ignore[no-any-return]


def _choice(flag: str, text: str | None, choices: tuple[str, ...]) -> str | None:
    if text is not None and text not in choices:
        user_error(f"--skill-lens-{flag} must be one of {', '.join(choices)}; got {text!r}")
    return text


def _shard(text: str | None) -> Shard | None:
    """``K/N``: this machine's shard K of N, 1 <= K <= N."""
    if text is None:
        return None
    fix = "give each of N machines its own K/N: 1/3, 2/3 and 3/3 for three (docs/ci.md)"
    found = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
    if found is None:
        user_error(f"--skill-lens-shard expects K/N (shard K of N), got {text!r}", fix)
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or not 1 <= index <= count:
        user_error(f"--skill-lens-shard {text}: K must be from 1 to N, and N at least 1", fix)
    return Shard(index, count)


def _cli_overrides(option: Any) -> dict[str, Any]:
    runners = option.skill_lens_runners
    rate = _number("min-pass-rate", option.skill_lens_min_pass_rate)
    if rate is not None and not 0.0 <= rate <= 1.0:
        user_error(f"--skill-lens-min-pass-rate must be between 0.0 and 1.0, got {rate}")
    spend = _above_zero("max-spend", option.skill_lens_max_spend)
    case_rate = _number("min-case-pass-rate", option.skill_lens_min_case_pass_rate)
    if case_rate is not None and not 0.0 <= case_rate <= 1.0:
        user_error(f"--skill-lens-min-case-pass-rate must be between 0.0 and 1.0, got {case_rate}")
    level = _number("min-delta-confidence", option.skill_lens_min_delta_confidence)
    if level is not None and not 0.0 < level < 1.0:
        user_error(
            f"--skill-lens-min-delta-confidence must be between 0 and 1 (exclusive), got {level}",
            "give a confidence level such as 0.9 or 0.95",
        )
    return {
        "default_runner": runners if runners else None,
        "model": option.skill_lens_model,
        "base_url": option.skill_lens_base_url,
        "judge": option.skill_lens_judge,
        "judge_model": option.skill_lens_judge_model,
        "baseline": _choice(
            "baseline", option.skill_lens_baseline, ("none", "previous", "placebo")
        ),
        "repeat": _positive("repeat", option.skill_lens_repeat),
        "min_pass_rate": rate,
        "min_delta": _number("min-delta", option.skill_lens_min_delta),
        "min_delta_confidence": level,
        "min_case_pass_rate": case_rate,
        "max_spend_usd": spend,
        "concurrency": _positive("concurrency", option.skill_lens_concurrency),
        "keep_workspace": option.skill_lens_keep_workspace,
        "allow_scripts": option.skill_lens_allow_scripts,
        "product_sandbox": _choice(
            "product-sandbox", option.skill_lens_product_sandbox, ("auto", "required", "off")
        ),
        "full_output": option.skill_lens_full_output,
        "case_timeout_seconds": _above_zero("case-timeout", option.skill_lens_case_timeout),
        "progress_interval_seconds": _number(
            "progress-interval", option.skill_lens_progress_interval
        ),
        "record": _choice("record", option.skill_lens_record, ("none", "once", "all")),
        "cassettes": option.skill_lens_cassettes,
        "strict_skill_md": option.skill_lens_strict_skill_md,
    }


# The flag of each setting _cli_overrides fills, so a refused value names what was typed.
_FLAGS = {
    "default_runner": "--skill-lens-runner",
    "model": "--skill-lens-model",
    "base_url": "--skill-lens-base-url",
    "judge": "--skill-lens-judge",
    "judge_model": "--skill-lens-judge-model",
    "baseline": "--skill-lens-baseline",
    "repeat": "--skill-lens-repeat",
    "min_pass_rate": "--skill-lens-min-pass-rate",
    "min_delta": "--skill-lens-min-delta",
    "min_delta_confidence": "--skill-lens-min-delta-confidence",
    "min_case_pass_rate": "--skill-lens-min-case-pass-rate",
    "max_spend_usd": "--skill-lens-max-spend",
    "concurrency": "--skill-lens-concurrency",
    "keep_workspace": "--skill-lens-keep-workspace",
    "allow_scripts": "--skill-lens-allow-scripts",
    "product_sandbox": "--skill-lens-product-sandbox",
    "full_output": "--skill-lens-full-output",
    "case_timeout_seconds": "--skill-lens-case-timeout",
    "progress_interval_seconds": "--skill-lens-progress-interval",
    "record": "--skill-lens-record",
    "cassettes": "--skill-lens-cassettes",
    "strict_skill_md": "--skill-lens-strict-skill-md",
}


def _refuse_unenforceable_ceiling(settings: Settings) -> None:
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


def _check_root_kind(root: Path) -> None:
    """A skill path pytest would skip, or whose SKILL.md it would, stops the run (exit 2)."""
    if not root.is_dir():
        kind = special_kind(root)
        if kind is not None:  # pytest would skip it: "not found", or no skill at all
            user_error(
                f"{root}: the skill path is {kind}, not a regular file or a directory",
                "point --skill-lens at a skill directory or its SKILL.md, a regular file",
            )
    # Directories below are checked as pytest walks them (SkillLensSession).
    directory = root if root.is_dir() else root.parent
    error = directory_problem(directory, [directory])
    if error is not None:
        user_error(error.message)


def build_run_config(config: pytest.Config) -> RunConfig | None:
    """The run's configuration, or ``None`` when no skill path turns the plugin on."""
    option = config.option
    here = config.invocation_params.dir
    cli_roots = [(here / p).resolve() for p in option.skill_lens_paths]
    ini_roots = [Path(p).resolve() for p in config.getini("skill_lens_paths")]
    if not cli_roots and not ini_roots:
        return None
    for root in [*cli_roots, *ini_roots]:
        if not root.exists():
            user_error(
                f"the skill path {root} does not exist", "point --skill-lens at a skill directory"
            )
        _check_root_kind(root)

    runners = option.skill_lens_runners
    if runners:
        dupes = sorted({r for r in runners if runners.count(r) > 1})
        if dupes:
            user_error(
                f"--skill-lens-runner {dupes[0]!r} is given twice",
                "name each runner once; every runner runs every case",
            )
    config_path = (
        Path(option.skill_lens_config).resolve() if option.skill_lens_config else find_config(here)
    )
    try:
        settings = load_settings(config_path, _cli_overrides(option), _FLAGS, products=NAMES)
    except ConfigError as exc:
        user_error(f"configuration error: {exc.message}")
    if option.skill_lens_markdown_max_chars is not None and not option.skill_lens_markdown:
        user_error(
            "--skill-lens-markdown-max-chars needs --skill-lens-markdown",
            "add --skill-lens-markdown PATH, or drop the size limit",
        )
    markdown_max = _positive("markdown-max-chars", option.skill_lens_markdown_max_chars)
    shard = _shard(option.skill_lens_shard)
    if settings.min_delta is not None and not settings.baseline:
        user_error(
            "a minimum delta needs a baseline arm to compare against",
            # The fix names what set it: the flag, or the key in the file (never a flag
            # that was not given).
            "add --skill-lens-baseline none (or previous), or drop "
            + _given(option, "min_delta", config_path),
        )
    if settings.min_delta_confidence is not None and settings.min_delta is None:
        user_error(
            "a delta confidence level needs a minimum delta to hold the interval against",
            "add --skill-lens-min-delta (0 asks for no regression), or drop "
            + _given(option, "min_delta_confidence", config_path),
        )
    if settings.per_skill_min_confidence is not None and not settings.per_skill_min:
        user_error(
            "per_skill_min_confidence needs per_skill_min: there is no skill minimum to hold",
            "add per_skill_min = { <skill> = <rate> }, or drop per_skill_min_confidence",
        )
    levels = (settings.min_delta_confidence, settings.per_skill_min_confidence)
    if settings.multiplicity == "holm" and levels == (None, None):
        user_error(
            'multiplicity = "holm" corrects the gate\'s interval decisions, and none is asked',
            "add --skill-lens-min-delta-confidence (with --skill-lens-min-delta) or "
            "per_skill_min_confidence, or drop " + _given(option, "multiplicity", config_path),
        )
    _check_unread_flags(
        option, settings.runner_names, settings.judge, judge_inherits=not settings.judge_model
    )
    _refuse_unenforceable_ceiling(settings)
    _decide_product_sandbox(settings, collect_only=listing_only(config))
    _preflight_keyed(settings, collect_only=listing_only(config))
    _preflight_judge(option, settings, collect_only=listing_only(config))
    scripts = _prepare_scripts(settings, collect_only=listing_only(config))

    json_path, markdown_path = report_paths(config)
    run = RunConfig(
        settings=settings,
        config_path=config_path,
        roots=tuple(cli_roots or ini_roots),
        runner_names=tuple(settings.runner_names),
        evals_override=(here / option.skill_lens_evals).resolve()
        if option.skill_lens_evals
        else None,
        json_path=json_path,
        markdown_path=markdown_path,
        markdown_max_chars=markdown_max,
        html_path=html_report_path(config),
        scripts=scripts,
        shard=shard,
        judge_source=_judge_source(option, settings, config_path),
        runner_source=_runner_source(option, settings, config_path),
    )
    _choose_args(config, cli_roots, ini_roots)
    return run


def _judge_source(option: Any, settings: Settings, config_path: Path | None) -> str:
    """Where the judge's name came from, for the message that refuses an unknown one."""
    if option.skill_lens_judge is not None:
        return "--skill-lens-judge"
    if config_path is not None and "judge" in settings.model_fields_set:
        return f"{config_path}, field 'judge'"
    return ""  # the default, fake, always exists


def _given(option: Any, key: str, config_path: Path | None) -> str:
    """Where a setting was written, as the fix names it: its flag, or its key in the file."""
    if getattr(option, "skill_lens_" + key, None) is not None:
        return _FLAGS[key]
    return f"{key} in {config_path.name if config_path else 'skill-lens.toml'}"


def _runner_source(option: Any, settings: Settings, config_path: Path | None) -> str:
    """Where the runners' names came from, for the message that refuses an unknown one."""
    if option.skill_lens_runners:
        return "--skill-lens-runner"
    if config_path is not None and "default_runner" in settings.model_fields_set:
        return f"{config_path}, field 'default_runner'"
    return ""  # the default, fake, always exists


def _prepare_scripts(settings: Settings, *, collect_only: bool) -> dict[str, str | None] | None:
    """The run's one sandbox decision and the harness hardening, when scripts are on.

    Made before any case runs, so script_sandbox = "required" without a working
    backend exits 2 before anything is spent. Listing cases runs no script.
    """
    if not settings.allow_scripts or collect_only:
        return None
    from ..run.sandbox import decide, hide_harness_environment

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
    return {"sandbox": decision.backend, "detail": decision.detail, "hardening": hardening}


def _decide_product_sandbox(settings: Settings, *, collect_only: bool) -> None:
    """The run's one product sandbox decision, shared by every product runner and judge.

    Made before the products' preflight, whose ``--version`` runs under it, and only
    when a product is named; product_sandbox = "required" without a working backend
    exits 2 here. Listing cases starts no product, nor does a replay-only run (nothing
    is probed for one).
    """
    from ..run.product_sandbox import adopt, decide, replay_only
    from ..run.products.entries import product_names

    if collect_only or not product_names(settings.runner_names, settings.judge):
        adopt(None)
        return
    if settings.record == "none":
        adopt(replay_only(settings.product_sandbox))
        return
    decision = decide(settings.product_sandbox)
    if settings.product_sandbox == "required" and decision.backend == "none":
        user_error(
            f'product_sandbox = "required", but no sandbox backend works here: {decision.detail}',
            "install bubblewrap (Linux) and allow unprivileged user namespaces, or set "
            'product_sandbox = "auto" (home isolation alone where no backend works) or '
            '"off"; see docs/products.md',
        )
    adopt(decision)


def _preflight_keyed(settings: Settings, *, collect_only: bool) -> None:
    """Endpoint, model and API key of each built-in runner, checked before anything is spent."""
    from ..run.providers import base_url_problem

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
            _preflight_runner(description, settings, collect_only=collect_only)


def _preflight_runner(
    description: RunnerDescription, settings: Settings, *, collect_only: bool
) -> None:
    """The settings and API key one runner needs, checked without importing its framework."""
    if description.extra_problem(settings) is not None:
        return  # collection stops the run naming the extra to install
    problem = description.settings_problem(settings)
    if problem is None and not collect_only:  # listing cases spends nothing
        # Replaying only never reaches a provider, so it needs no key (docs/replay.md).
        key = None if settings.record == "none" else description.key_problem(settings)
        problem = key or description.start_problem(settings)
    if problem is not None:
        user_error(*problem)


def _check_unread_flags(
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


def _preflight_judge(option: Any, settings: Settings, *, collect_only: bool) -> None:
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
        problem = description.start_problem(settings)  # a product judge: found and runs
    if problem is not None:
        user_error(*problem)


def _choose_args(config: pytest.Config, cli_roots: list[Path], ini_roots: list[Path]) -> None:
    """With no test paths on the command line, collect only the skill paths."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(p) for p in (cli_roots or ini_roots)]
        return
    given = [(config.invocation_params.dir / a.split("::")[0]).resolve() for a in config.args]

    def narrowed(root: Path) -> bool:  # the user already points inside this root
        return any(path == root or root in path.parents for path in given)

    config.args = [*config.args, *(str(p) for p in cli_roots if not narrowed(p))]


def report_paths(config: pytest.Config) -> tuple[Path | None, Path | None]:
    """The JSON and Markdown report paths asked for, against the invocation directory."""
    option, here = config.option, config.invocation_params.dir
    json_path = here / option.skill_lens_json if option.skill_lens_json else None
    markdown_path = here / option.skill_lens_markdown if option.skill_lens_markdown else None
    return json_path, markdown_path


def html_report_path(config: pytest.Config) -> Path | None:
    """The HTML report path asked for, against the invocation directory."""
    html = config.option.skill_lens_html
    return config.invocation_params.dir / html if html else None
