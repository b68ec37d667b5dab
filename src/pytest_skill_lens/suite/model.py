"""The eval case as typed data.

Every model forbids unknown keys (a typo such as ``assertion:`` must never give
a case that passes vacuously) and is strict: ``value: 1234`` is an error, not
the text "1234". Rules that need more than one field, the file or the skill
live in :mod:`.rules`; this module only states the shapes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

JSONValue = Any


# The set of fields each model was given, one per shape: every case keeps its models to
# the end of the session, and a set is 216 bytes each while most cases share a shape.
_GIVEN: dict[frozenset[str], set[str]] = {}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    def model_post_init(self, context: Any, /) -> None:
        # Frozen, so pydantic never adds to the set in place (a copy gets a copy of it).
        given = self.__pydantic_fields_set__
        shared = _GIVEN.setdefault(frozenset(given), given)
        if shared is not given:
            object.__setattr__(self, "__pydantic_fields_set__", shared)


AssertionKind = Literal[
    "contains", "not_contains", "regex", "equals", "file-produced", "json-schema"
]
PrimitiveType = Literal["string", "integer", "number", "boolean"]
NonNegInt = Annotated[StrictInt, Field(ge=0)]
NonNegNumber = Annotated[StrictFloat | StrictInt, Field(ge=0)]


class Assertion(_Strict):
    kind: AssertionKind
    value: StrictStr | None = None
    file: StrictStr | None = None
    file_glob: StrictStr | list[StrictStr] | None = None
    json_schema: dict[str, JSONValue] | None = None


class ReturnRule(_Strict):
    """One entry of a ``when:``/``value:`` lookup; no ``when`` is the fallback."""

    when: dict[str, JSONValue] | None = None
    value: StrictStr


class ToolSpec(_Strict):
    name: StrictStr
    description: StrictStr = ""
    parameters: dict[str, PrimitiveType] | None = None
    input_schema: dict[str, JSONValue] | None = None
    returns: StrictStr | list[StrictStr] | list[ReturnRule] = ""

    def json_schema(self) -> dict[str, JSONValue]:
        """The schema the agent sees: ``input_schema`` verbatim, or the closed shorthand."""
        if self.input_schema is not None:
            return self.input_schema
        params = self.parameters or {}
        return {
            "type": "object",
            "properties": {key: {"type": kind} for key, kind in params.items()},
            "required": list(params),
            "additionalProperties": False,
        }


class CallArgs(_Strict):
    tool: StrictStr
    contains: dict[str, JSONValue] | None = None
    equals: dict[str, JSONValue] | None = None
    every: StrictBool = False


class Trajectory(_Strict):
    called: list[StrictStr] = Field(default_factory=list)
    forbidden: list[StrictStr] = Field(default_factory=list)
    order: list[StrictStr] = Field(default_factory=list)
    max_calls: NonNegInt | None = None
    skill_triggered: StrictBool | None = None
    call_args: list[CallArgs] = Field(default_factory=list)


class Budget(_Strict):
    max_tokens: NonNegInt | None = None
    max_cost_usd: NonNegNumber | None = None
    max_latency_ms: NonNegNumber | None = None


class ArtifactGlob(_Strict):
    glob: StrictStr | list[StrictStr]


class Judge(_Strict):
    expected: StrictStr | None = None
    rubric: list[StrictStr]
    artifacts: list[StrictStr | ArtifactGlob] = Field(default_factory=list)


class Workspace(_Strict):
    files: dict[str, StrictStr] = Field(default_factory=dict)


class EvalCase(_Strict):
    name: StrictStr
    task: StrictStr | None = None
    sessions: list[StrictStr] | None = None
    assertions: list[Assertion] = Field(default_factory=list)
    tags: list[StrictStr] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    trajectory: Trajectory | None = None
    budget: Budget | None = None
    judge: Judge | None = None
    workspace: Workspace | None = None
    mode: Literal["loaded", "offered"] = "loaded"
    # Other skills offered beside this one (mode: offered only): paths or globs, each a
    # skill directory, relative to the skill's own (suite/neighbours.py resolves them).
    neighbours: list[StrictStr] | None = None

    @property
    def tasks(self) -> list[str]:
        """Every prompt the case sends, one per session."""
        if self.sessions is not None:
            return list(self.sessions)
        return [self.task or ""]
