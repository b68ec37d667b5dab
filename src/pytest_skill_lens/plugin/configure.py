"""Turn flags, ini keys and ``skill-lens.toml`` into the run's configuration.

Every user mistake found here stops the run with exit 2 and the fix, before
anything is collected or spent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..run.process.temp_parent import FIX, UnsafeParent, own_parent
from ..run.products.table import NAMES
from ..settings import Settings, find_config, load_settings
from ..suite.discovery import directory_problem
from ..suite.errors import ConfigError
from ..suite.regular_files import special_kind
from .changed import read_at_configure
from .flags import BY_KEY, BY_NAME, flag_names, overrides, user_error
from .preflight import (
    check_unread_flags,
    decide_product_sandbox,
    preflight_judge,
    preflight_keyed,
    prepare_scripts,
    refuse_unenforceable_ceiling,
)
from .run_config import RunConfig
from .state import listing_only


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


def _check_temp_parent() -> None:
    """Exit 2 before any case when the directory every temporary directory of the run
    goes in (:mod:`..run.process.temp_parent`) is not this user's alone."""
    try:
        own_parent()
    except UnsafeParent as exc:
        user_error(f"{exc.problem}: skill-lens keeps your temporary directories there", FIX)
    except OSError as exc:
        user_error(f"cannot make the directory for temporary directories: {exc}", FIX)


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

    # A runner named twice is refused by Settings, naming --skill-lens-runner or the file.
    _check_temp_parent()
    config_path = (
        Path(option.skill_lens_config).resolve() if option.skill_lens_config else find_config(here)
    )
    try:
        settings = load_settings(config_path, overrides(option), flag_names(), products=NAMES)
    except ConfigError as exc:
        user_error(f"configuration error: {exc.message}")
    if option.skill_lens_markdown_max_chars is not None and not option.skill_lens_markdown:
        user_error(
            "--skill-lens-markdown-max-chars needs --skill-lens-markdown",
            "add --skill-lens-markdown PATH, or drop the size limit",
        )
    markdown_max = BY_NAME["markdown-max-chars"].value(option)
    shard = BY_NAME["shard"].value(option)
    if settings.min_delta is not None and not settings.baselines:
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
    check_unread_flags(
        option, settings.runner_names, settings.judge, judge_inherits=not settings.judge_model
    )
    refuse_unenforceable_ceiling(settings)
    product_sandbox = decide_product_sandbox(settings, collect_only=listing_only(config))
    preflight_keyed(settings, product_sandbox, collect_only=listing_only(config))
    preflight_judge(option, settings, product_sandbox, collect_only=listing_only(config))
    script_sandbox, hardening = prepare_scripts(settings, collect_only=listing_only(config))

    json_path, markdown_path = report_paths(config)
    asked = BY_NAME["changed"].value(option)
    roots = cli_roots or ini_roots
    changes = read_at_configure(asked, roots[0]) if asked is not None else None
    run = RunConfig(
        settings=settings,
        config_path=config_path,
        roots=tuple(roots),
        runner_names=tuple(settings.runner_names),
        evals_override=(here / option.skill_lens_evals).resolve()
        if option.skill_lens_evals
        else None,
        json_path=json_path,
        markdown_path=markdown_path,
        markdown_max_chars=markdown_max,
        html_path=html_report_path(config),
        script_sandbox=script_sandbox,
        hardening=hardening,
        product_sandbox=product_sandbox,
        shard=shard,
        judge_source=_judge_source(option, settings, config_path),
        runner_source=_runner_source(option, settings, config_path),
        cassette_dir=_directory(option.skill_lens_cassettes, settings.cassettes, config_path, here),
        reuse_dir=_reuse_dir(option, settings, config_path, here),
        changes=changes,
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


def _directory(given: str | None, key: str, config_path: Path | None, here: Path) -> Path | None:
    """A directory a flag names against the invocation directory, or its key in
    skill-lens.toml against that file's (the cassettes', the reuse store's); ``None``:
    neither was given."""
    if given:
        return here / given
    if key:
        base = config_path.parent if config_path is not None else Path.cwd()
        return base / key
    return None


def _reuse_dir(
    option: Any, settings: Settings, config_path: Path | None, here: Path
) -> Path | None:
    """The reuse store (docs/reuse.md); refused beside ``--skill-lens-record``, which
    keeps one file per item of its own: an item has one recording, from one place."""
    store = _directory(option.skill_lens_reuse, settings.reuse, config_path, here)
    if store is not None and settings.record:
        user_error(
            f"{_given(option, 'reuse', config_path)} and {_given(option, 'record', config_path)} "
            "both choose where an outcome is recorded and replayed from",
            "use one: --skill-lens-reuse DIR reuses outcomes by content and records the rest; "
            "--skill-lens-record keeps a cassette per item beside its eval file",
        )
    return store


def _given(option: Any, key: str, config_path: Path | None) -> str:
    """Where a setting was written, as the fix names it: its flag, or its key in the file."""
    flag = BY_KEY.get(key)  # a key of the file alone (multiplicity) has no flag
    if flag is not None and getattr(option, flag.dest, None) is not None:
        return flag.option
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
