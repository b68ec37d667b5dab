"""Turn flags, ini keys and ``skill-lens.toml`` into the run's configuration.

Every user mistake found here stops the run with exit 2 and the fix, before
anything is collected or spent.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from ..settings import Settings, find_config, load_settings
from ..suite.discovery import directory_problem
from ..suite.errors import ConfigError
from ..suite.regular_files import special_kind
from .preflight import (
    check_unread_flags,
    decide_product_sandbox,
    preflight_judge,
    preflight_keyed,
    prepare_scripts,
    refuse_unenforceable_ceiling,
    user_error,
)
from .run_config import RunConfig, Shard
from .state import listing_only


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
        "baseline": _choice("baseline", option.skill_lens_baseline, ("none", "previous")),
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


def _check_root_kind(root: Path) -> None:
    """A skill path pytest would skip, or whose SKILL.md it would, stops the run (exit 2)."""
    if not root.is_dir():
        kind = special_kind(root)
        if kind is not None:  # pytest would skip it: "not found", or no skill at all
            user_error(
                f"{root}: the skill path is {kind}, not a regular file or a directory",
                "point --skill-lens at a skill directory or its SKILL.md, a regular file",
            )
    # Directories below are checked as pytest walks them (.collecting.CollectionHooks).
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
        settings = load_settings(config_path, _cli_overrides(option), _FLAGS)
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
    check_unread_flags(
        option, settings.runner_names, settings.judge, judge_inherits=not settings.judge_model
    )
    refuse_unenforceable_ceiling(settings)
    decide_product_sandbox(settings, collect_only=listing_only(config))
    preflight_keyed(settings, collect_only=listing_only(config))
    preflight_judge(option, settings, collect_only=listing_only(config))
    scripts = prepare_scripts(settings, collect_only=listing_only(config))

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
