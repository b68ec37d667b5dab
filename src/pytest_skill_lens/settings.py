"""``skill-lens.toml``: every key, its default and its rule.

Precedence is command line over file over default. Unknown keys are refused at
every level, so a typo never silently falls back to a default. API keys are
never read from here: they come from the environment only.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .suite.errors import ConfigError, Where
from .suite.quoting import shown
from .suite.regular_files import REGULAR_FIX, read_regular, special_kind
from .suite.validation import field_path

CONFIG_NAME = "skill-lens.toml"


def _bound(holds: Callable[[Any], bool], words: str) -> AfterValidator:
    """A bound and its words, declared once with the type: a value from the file or from
    its flag outside it is refused in these words (a flag's reader only parses)."""

    def check(value: Any) -> Any:
        if not holds(value):
            raise ValueError(words)
        return value

    return AfterValidator(check)


PosInt = Annotated[int, _bound(lambda n: n >= 1, "must be 1 or more")]
PosFloat = Annotated[float, _bound(lambda x: x > 0, "must be more than 0")]
Rate = Annotated[float, _bound(lambda x: 0 <= x <= 1, "must be between 0.0 and 1.0")]
Level = Annotated[float, _bound(lambda x: 0 < x < 1, "must be more than 0 and less than 1")]
BASELINE_ARMS = ("none", "previous", "placebo")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ProductTable(_Strict):
    command: list[str] | None = None
    args: list[str] = []
    timeout_seconds: PosFloat = 600.0
    max_output_bytes: PosInt = 8_000_000
    skills_dir: str | None = None
    invoke: str | None = None
    pass_env: list[str] | None = None


class Settings(_Strict):
    default_runner: str | list[str] = "fake"
    model: str = "openai:gpt-4o-mini"
    base_url: str = ""
    temperature: float | Literal["unset"] = 0.0
    retries: Annotated[int, Field(ge=0)] = 2
    retry_backoff_seconds: Annotated[float, Field(ge=0)] = 1.0
    judge: str = "fake"
    judge_model: str = ""
    judge_base_url: str = ""
    judge_temperature: float | Literal["unset"] = 0.0
    min_pass_rate: Rate = 1.0
    fail_on_error: bool = True
    per_skill_min: dict[str, Rate] = {}
    # Also require each named skill's interval, at this level, to clear its minimum.
    per_skill_min_confidence: Level | None = None
    # One arm, or several side by side (a list: each paired against the candidate).
    baseline: str | list[str] = ""
    # A whole number of runs, or "auto:N" (auto and auto:N as written are read into it):
    # rounds until the gate's question is decided, N at most (repeat_spec.py).
    repeat: int | str = 1
    min_delta: float | None = None
    # Also require the delta's interval, at this level, to clear min_delta.
    min_delta_confidence: Level | None = None
    # Every candidate case, across its repetitions, must pass at least this often.
    min_case_pass_rate: Rate | None = None
    # Holm's family-wise correction over the gate's interval decisions (docs/comparing.md).
    multiplicity: Literal["holm", "none"] = "none"
    concurrency: PosInt = 1
    keep_workspace: bool = False
    full_output: bool = False
    max_file_bytes: PosInt = 1_000_000
    max_files: PosInt = 200
    max_total_bytes: PosInt = 5_000_000
    allow_scripts: bool = False
    script_sandbox: Literal["auto", "required", "off"] = "auto"
    script_timeout_seconds: PosFloat = 30.0
    max_script_output_bytes: PosInt = 20_000
    script_interpreters: dict[str, list[str]] = {"py": ["python3"], "sh": ["bash"]}
    # One table per agent product, by its name: the names are the product table's
    # (run/products/table.py), which load_settings is handed (this layer cannot import it).
    runners: dict[str, ProductTable] = {}
    product_sandbox: Literal["auto", "required", "off"] = "auto"
    max_spend_usd: PosFloat | None = None
    # One deadline for a case's whole act: every session's runner call and the judge's.
    case_timeout_seconds: PosFloat = 600.0
    # Seconds between two progress lines when the output is no terminal (CI); 0: no progress.
    progress_interval_seconds: Annotated[float, Field(ge=0)] = 30.0
    # Cassettes (docs/replay.md): "" records and replays nothing; none replays only,
    # once replays what exists and records what is missing, all records everything.
    record: Literal["", "none", "once", "all"] = ""
    cassettes: str = ""  # their directory; "": cassettes/ beside each eval file
    # Outcomes reused by content (docs/reuse.md): the store's directory; "": off.
    reuse: str = ""
    # Every departure of a SKILL.md from the Agent Skills specification stops the run
    # (exit 2) instead of being a warning.
    strict_skill_md: bool = False
    # The other skills offered beside each mode: offered case without neighbours: of its
    # own: "suite" (every other skill of the run) or paths/globs from this file's directory.
    neighbours: Literal["suite"] | list[str] | None = None

    @field_validator("repeat", mode="plain")
    @classmethod
    def _repeat(cls, value: object) -> int | str:
        from .repeat_spec import RepeatError, repeat_from_setting

        if isinstance(value, str) and not value.startswith("auto"):
            raise ValueError('must be a whole number (no quotes), or "auto" or "auto:N"')
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            raise ValueError("must be 1 or more")  # the words of every count key (PosInt)
        try:
            spec = repeat_from_setting(value)
        except RepeatError as exc:
            raise ValueError(f"must be a whole number, auto or auto:N ({exc.problem})") from None
        return spec.text if spec.auto else spec.count

    @property
    def repeat_count(self) -> int:
        """The runs of every case, or under ``auto`` the most rounds."""
        return int(str(self.repeat).removeprefix("auto:"))

    @property
    def repeat_auto(self) -> bool:
        """Whether the cases run in rounds that stop once the gate's question is decided."""
        return isinstance(self.repeat, str)

    @field_validator("min_delta")
    @classmethod
    def _finite_delta(cls, value: float | None) -> float | None:
        if value is not None and not -1 <= value <= 1:
            raise ValueError("must be a pass-rate difference from -1.0 to 1.0")
        return value

    @field_validator(
        "max_spend_usd",
        "script_timeout_seconds",
        "case_timeout_seconds",
        "progress_interval_seconds",
    )
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @field_validator("baseline")
    @classmethod
    def _baseline_arms(cls, value: str | list[str]) -> str | list[str]:
        if value == "":
            return value
        names = [value] if isinstance(value, str) else value
        if not names:
            raise ValueError("must name at least one baseline arm, or be left out")
        for name in names:
            if name not in BASELINE_ARMS:
                raise ValueError(
                    "must name arms from 'none', 'previous' and 'placebo'; "
                    f"{shown(name)} is none of them"
                )
        dupes = [n for n in dict.fromkeys(names) if names.count(n) > 1]
        if dupes:
            raise ValueError(f"must name each baseline arm once; {dupes[0]!r} is named twice")
        return value

    @field_validator("default_runner")
    @classmethod
    def _runner_list(cls, value: str | list[str]) -> str | list[str]:
        names = [value] if isinstance(value, str) else value
        if not names:
            raise ValueError("must name at least one runner")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"must name each runner once; runner {dupes[0]!r} is named twice")
        return value

    @model_validator(mode="after")
    def _interpreters(self) -> Settings:
        for ext, argv in self.script_interpreters.items():
            if not ext.strip(". ") or not argv:
                raise ValueError(
                    "must map each non-empty extension to a non-empty command (argv list)"
                )
        return self

    @property
    def baselines(self) -> tuple[str, ...]:
        """The baseline arms asked for, in the order given (none: a single-arm run)."""
        if not self.baseline:
            return ()
        return (self.baseline,) if isinstance(self.baseline, str) else tuple(self.baseline)

    @property
    def baseline_kind(self) -> str:
        """The arms as one word for the record and the reports: ``none,placebo``."""
        return ",".join(self.baselines)

    @property
    def runner_names(self) -> list[str]:
        return (
            [self.default_runner]
            if isinstance(self.default_runner, str)
            else list(self.default_runner)
        )


def find_config(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        # A FIFO or a directory of that name is reported, never skipped for another one.
        if candidate.is_file() or special_kind(candidate) is not None:
            return candidate
    return None


def load_settings(
    path: Path | None,
    overrides: dict[str, Any] | None = None,
    flags: Mapping[str, str] | None = None,
    *,
    products: Sequence[str],
) -> Settings:
    """Settings from ``path`` (or defaults), with command-line ``overrides`` on top.

    ``flags`` names the flag of each override key, so a refused value names where it
    was written: the flag, or the key in ``path``. ``products`` are the names a
    ``[runners.<name>]`` table may have, in the order a refusal lists them: the product
    table's, which sits in a layer above this one.
    """
    data: dict[str, Any] = {}
    if path is not None:
        kind = special_kind(path)  # looked at before any open: a FIFO would block it
        if kind is not None:
            raise ConfigError(
                f"the config file is {kind}, not a regular file", where=Where(path), fix=REGULAR_FIX
            )
        if not path.is_file():
            raise ConfigError(
                "the config file does not exist or is not a file",
                where=Where(path),
                fix="point --skill-lens-config at an existing skill-lens.toml, or drop the flag "
                "to use the one found upward from the current directory",
            )
        try:
            data = tomllib.loads(read_regular(path, ConfigError).decode("utf-8"))
        except UnicodeDecodeError:
            raise ConfigError(
                "not valid UTF-8 text", where=Where(path), fix="save the file as UTF-8"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"not valid TOML: {exc}",
                where=Where(path),
                fix='fix the TOML syntax there; text needs quotes (default_runner = "fake") '
                'and a list brackets on both ends (default_runner = ["fake", "cli"])',
            ) from None
        except OSError as exc:
            raise ConfigError(
                f"cannot read: {exc.strerror or exc}", where=Where(path), fix="make it readable"
            ) from None
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    _refuse_unknown_tables(data.get("runners"), products, path)
    try:
        return Settings.model_validate({**data, **given})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        loc = tuple(p for p in error["loc"] if isinstance(p, int) or "[" not in str(p))
        raise _refused(error, loc, path, data, given, flags or {}) from None


def _refuse_unknown_tables(runners: Any, products: Sequence[str], path: Path | None) -> None:
    """A ``[runners.<name>]`` table of a name that is no product, refused with the names."""
    if not isinstance(runners, dict):
        return  # not a table at all: the model's own check words that
    unknown = next((name for name in runners if name not in products), None)
    if unknown is None:
        return
    key = field_path(("runners", unknown))
    *first, last = [repr(name) for name in products] or ["no name"]
    expected = f"{', '.join(first)} or {last}" if first else last
    raise ConfigError(
        f"[{key}] is not a table this file takes; the tables under [runners] are {expected}",
        where=Where(path, field=key) if path is not None else Where(field=key),
        fix=f"rename the table to one of {expected}, or remove it",
    )


def _refused(
    error: Any,
    loc: tuple[int | str, ...],
    path: Path | None,
    data: Mapping[str, Any],
    given: Mapping[str, Any],
    flags: Mapping[str, str],
) -> ConfigError:
    """The refusal of one value, naming where it was written and what would be accepted."""
    key = field_path(loc)
    top = str(loc[0]) if loc else ""
    flag = flags.get(top) if top in given else None
    if error["type"] == "extra_forbidden":
        known = _known_keys(loc[:-1])
        guess = difflib.get_close_matches(str(loc[-1]) if loc else key, known, n=1)
        return ConfigError(
            f"unknown key {shown(key)}",
            where=Where(path, field=key) if path is not None else Where(field=key),
            fix=(f"did you mean {guess[0]!r}? " if guess else "")
            + "remove it or fix its spelling; see docs/configuration.md for every key",
        )
    got = f"got {shown(error.get('input'))}"
    source = path if path is not None and top in data else None
    where = Where(source, field=key) if source is not None else Where(field=key)
    wanted = _wanted(error)
    rule = wanted.split("; ")[0]  # the fix says the rule; the message already says what broke it
    if flag is not None:
        return ConfigError(
            f"{flag} {wanted}, {got}",
            fix=f"give {flag} another value: it {rule} (docs/configuration.md)",
        )
    file = source.name if source is not None else CONFIG_NAME
    return ConfigError(
        f"{key} {wanted}, {got}",
        where=where,
        fix=f"change {key} in {file}: it {rule} (docs/configuration.md)",
    )


_TYPES = {
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "bool_type": "must be true or false",
    "string_type": "must be text, in quotes",
    "list_type": "must be a list",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "finite_number": "must be a finite number",
}
_BOUNDS = {
    "greater_than": "must be more than {gt}",
    "greater_than_equal": "must be at least {ge}",
    "less_than": "must be less than {lt}",
    "less_than_equal": "must be at most {le}",
}


def _wanted(error: Any) -> str:
    """What pydantic's error asks for, as ``must ...`` (a validator says it that way too)."""
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in _TYPES:
        return _TYPES[kind]
    if kind in _BOUNDS:  # a float bound reads as the author wrote it: 0, not 0.0
        return _BOUNDS[kind].format(
            **{k: f"{v:g}" if isinstance(v, float) else v for k, v in ctx.items()}
        )
    if kind == "literal_error":  # "" (record's unset, in the file) is no choice to offer
        expected = str(ctx.get("expected")).removeprefix("'', ")
        return f"must be one of {expected}"
    said = str(error["msg"]).removeprefix("Value error, ")
    return said if said.startswith("must ") else f"must be valid ({said})"


def _known_keys(loc: tuple[int | str, ...]) -> list[str]:
    if not loc:
        return list(Settings.model_fields)
    if loc[0] == "runners" and len(loc) == 2:
        return list(ProductTable.model_fields)
    return []
