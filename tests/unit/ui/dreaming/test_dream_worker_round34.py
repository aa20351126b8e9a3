"""Round 34 (found by helper R): a dream the user's machine stopped is one
line in the log, not a bug's traceback.

A dream that met a full disk, or could not take its safety copy, went to the
log as 'the dream failed' with a whole traceback; the dream report already
tells the user what to do.  A bug still logs its traceback (as the chat's
worker does since round 33).
"""

from __future__ import annotations

import logging
from typing import cast

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.dreaming.activity import UserActivity
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.snapshots import SnapshotFailed
from desktop.ui.dreaming.worker import DreamWorker


class _Failing:
    """A dreamer whose every dream raises *error*."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def run(self, trigger: str, control: DreamControl) -> None:
        raise self.error


def _failure(error: Exception) -> str:
    worker = DreamWorker(cast(Dreamer, _Failing(error)), UserActivity(), 0.0)
    failures: list[str] = []
    worker.failed.connect(failures.append)
    worker.dream("manual", worker.new_control())
    [failure] = failures
    return failure


def test_a_dream_the_disk_stopped_is_one_line(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop.ui.dreaming.worker")
    error = SnapshotFailed("No space left on device", disk_full=True)

    assert _failure(error) == str(error)
    [record] = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert str(error) in record.getMessage()


def test_a_bug_in_a_dream_keeps_its_traceback(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop.ui.dreaming.worker")

    assert _failure(KeyError("row")) == "'row'"
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None
