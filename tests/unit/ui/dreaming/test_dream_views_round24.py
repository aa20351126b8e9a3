"""A dream's changes and log in the report (round 24): their labels and
buttons show with them, never as windows of their own for a moment (a flash
on screen, and a quit Qt had planned dropped: the report is read again when
a dream ends, with its window closed or not)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.ui.dreaming.views import ChangeView, LogView
from tests.stray_windows import windows_opened
from tests.unit.ui.dreaming.test_dream_report import _changed


def test_a_change_and_a_log_entry_open_no_window(qtbot: QtBot) -> None:
    change = _changed("task_complete", "pending", {"task": 3, "waits": "a reason"}, None, None)

    with windows_opened() as opened:
        view = ChangeView(change)
        entry = LogView("dedup", "applied", "Merged 2 memories.", "raw answer")
    qtbot.addWidget(view)
    qtbot.addWidget(entry)

    assert opened == []
    assert not view.risk.isHidden() and not view.approve_button.isHidden()
    assert view.undo_button.isHidden()  # not applied: hidden, as before
    assert not entry.header.isHidden() and not entry.raw_toggle.isHidden()
