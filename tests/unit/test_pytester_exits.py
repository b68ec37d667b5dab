"""tests/conftest.py's ``pytester``: an in-process run stopped in ``pytest_configure`` reports
its own exit code and message, and a Ctrl-C inside a run still reaches the test."""

from __future__ import annotations

import pytest

STOPPED_AT_CONFIGURE = """\
import pytest


def pytest_configure(config):
    pytest.exit("refused: a setting is wrong", returncode={code})
"""


@pytest.mark.parametrize("code", [2, 4])
def test_a_stop_at_configure_is_the_runs_exit_code_and_message(
    pytester: pytest.Pytester, code: int
) -> None:
    pytester.makeconftest(STOPPED_AT_CONFIGURE.format(code=code))

    result = pytester.runpytest()

    # 2 is also pytest's INTERRUPTED: pytester alone would make it an internal error (3).
    assert result.ret == code
    result.stderr.fnmatch_lines(["Exit: refused: a setting is wrong"])


def test_a_keyboard_interrupt_in_a_run_still_interrupts_the_test(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_stops():\n    raise KeyboardInterrupt\n")

    with pytest.raises(KeyboardInterrupt):
        pytester.runpytest()
    assert pytester.runpytest(no_reraise_ctrlc=True).ret == pytest.ExitCode.INTERRUPTED
