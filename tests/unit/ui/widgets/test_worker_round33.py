"""Round 33: work the user's machine or file stopped is one line in the
log, not a crash.

An export to a full disk, or a file that is no export, went to the log as
'chat work failed' with a whole traceback, as a bug does; the user was
already told what to do.  A bug still logs its traceback.
"""

from __future__ import annotations

import logging

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.transfer.foreign import NotAnExport
from desktop.ui.widgets.worker import TaskFailed, Worker


def _failure(qtbot: QtBot, error: Exception) -> TaskFailed:
    worker = Worker()
    failures: list[TaskFailed] = []
    worker.failed.connect(failures.append)

    def task(_listener: object) -> None:
        raise error

    worker.run(task)
    [failure] = failures
    return failure


@pytest.mark.parametrize(
    "error",
    [
        EnvironmentProblem("The disk holding /tmp/x is full.", "Free some disk space."),
        NotAnExport("/tmp/x.json is not a ChatGPT or Claude export (it is empty)."),
    ],
)
def test_a_problem_the_user_can_fix_is_one_line(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture, error: Exception
) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop.ui.widgets.worker")

    failure = _failure(qtbot, error)

    assert failure.message == str(error) and not failure.stopped
    [record] = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert str(error) in record.getMessage()


def test_a_bug_keeps_its_traceback(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop.ui.widgets.worker")

    failure = _failure(qtbot, KeyError("row"))

    assert failure.message == "'row'"
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None
