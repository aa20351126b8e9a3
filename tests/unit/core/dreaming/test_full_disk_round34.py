"""Round 34: a dream on a disk that fills after its safety copy.

A pass whose write found the disk full was taken for a bug: "dream pass
... failed" went to the log with a whole traceback (11 of 26 dreams on a
real full disk), and had its record gone through, the pass would have
been skipped as failed while every pass after it failed alike.  The dream
now stops at the full disk, with the disk's own message, and the next
dream goes on from that pass."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from desktop.core.db import DiskFull
from desktop.core.dreaming.changes import ChangeBook
from desktop.core.dreaming.control import DreamControl
from tests.unit.core.dreaming.conftest import Dreaming


def test_a_full_disk_in_a_pass_stops_the_dream_and_the_next_goes_on_from_it(
    dreaming: Dreaming, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    dreaming.add("The user's sister lives in Lyon.")
    apply_pass = ChangeBook.apply_pass

    def onto_a_full_disk(book: ChangeBook, *args: Any, **kwargs: Any) -> Any:
        raise DiskFull("The disk holding the database is full.", hint="Free some disk space.")

    monkeypatch.setattr(ChangeBook, "apply_pass", onto_a_full_disk)
    with pytest.raises(DiskFull, match="disk holding the database is full"):
        dreaming.dreamer.run("manual", DreamControl())
    monkeypatch.setattr(ChangeBook, "apply_pass", apply_pass)

    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    report = dreaming.dreamer.run("manual", DreamControl())
    assert report.run.status == "completed"
    assert [run.id for run in dreaming.dreamer.dreams.runs()] == [report.run.id]  # resumed
    assert not [said for said in report.outcomes.values() if "the pass failed" in said]
