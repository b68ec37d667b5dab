"""Property: whatever an eval file holds, pytest never ends in an internal error.

A mutated eval file in a real skill folder, run in-process with the ``spy`` runner,
either runs (exit 0 or 1) or stops as an authoring error: exit 2, our message, and no
runner call. Never ``INTERNALERROR``, never a traceback from inside the plugin.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_authoring_rules import CALLS, CASES, authoring_message, run, runner_calls, write_skill

VALID = """\
tool_libraries: [../shared/tools.yaml]
cases:
  - name: refund
    task: I want a refund
    tools:
      - ref: lookup_order
        returns:
          - when: {order_id: "1"}
            value: one
          - value: other
    trajectory:
      called: [lookup_order]
      max_calls: 2
    assertions:
      - kind: contains
        value: ok
  - name: plan
    sessions: [Plan it., Continue.]
    workspace:
      files: {notes.md: seed}
    assertions:
      - kind: file-produced
        file_glob: "plans/*.md"
    judge:
      rubric: [The plan has three phases]
      artifacts: [{glob: "plans/*.md"}]
"""

LIBRARY = """\
tools:
  - name: lookup_order
    description: Look up an order
    parameters: {order_id: string}
"""


def test_the_unmutated_file_runs(pytester: pytest.Pytester) -> None:
    write_skill(pytester, {"evals/cases.yaml": VALID, "shared/tools.yaml": LIBRARY})

    result = run(pytester)

    assert "authoring error" not in result.stdout.str(), result.stdout.str()
    assert result.ret in (0, 1)
    assert runner_calls(pytester)[:1] == ["spy::refund"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = VALID.splitlines(keepends=True)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        how = draw(st.sampled_from(["delete", "duplicate", "insert", "replace"]))
        if how == "delete" and len(lines) > 1:
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        elif how == "insert":
            at = draw(st.integers(min_value=0, max_value=len(lines[i])))
            text = draw(st.sampled_from(["*", "[", "&a ", ": ", "TODO(skill-lens)", "  ", "x"]))
            lines[i] = lines[i][:at] + text + lines[i][at:]
        else:
            lines[i] = draw(st.text(max_size=20)).replace("\r", "") + "\n"
    return "".join(lines)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=mutated())
def test_a_mutated_eval_file_runs_or_stops_with_exit_2_never_an_internal_error(
    pytester: pytest.Pytester, text: str
) -> None:
    shutil.rmtree(pytester.path / "skills", ignore_errors=True)
    for log in (CALLS, CASES):
        (pytester.path / log).unlink(missing_ok=True)
    write_skill(pytester, {"evals/cases.yaml": text, "shared/tools.yaml": LIBRARY})

    result = run(pytester)

    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out, out
    assert result.ret in (0, 1, 2), out
    if result.ret == 2:
        assert authoring_message(result), out
        assert runner_calls(pytester) == [], out
    else:
        assert "Traceback" not in out, out
