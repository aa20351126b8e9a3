"""Round 33 of issue 15: Tab goes round every window and back.

In the chat, Tab went from the input through the buttons and the messages
and back to the input: the conversations (New conversation, Off the
record, the search, the list, Recently deleted) were never reached, as the
window handed its own place in the round to the input.  And the bar under a
task's fields (round 33) first made Tab circle the task's buttons, never
going back to the list.  Esc closed every window beside the chat but Work.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.unit.ui.conftest import Windows, focus_stops


def _tab_round(qtbot: QtBot, window: QWidget) -> list[QWidget]:
    """The widgets Tab moves through from *window*'s first stop, once round."""
    stops = focus_stops(window)
    stops[0].setFocus(Qt.FocusReason.TabFocusReason)
    reached: list[QWidget] = []
    for _ in stops:
        focused = QApplication.focusWidget()
        assert focused is not None
        reached.append(focused)
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is stops[0]  # round, and back
    return reached


def test_tab_reaches_every_stop_of_every_window_and_comes_back(
    qtbot: QtBot, windows: Windows
) -> None:
    for name, window in windows.items():
        for other in windows.values():
            other.setVisible(other is window)
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)  # noqa: B023 (waited on here)
        stops = focus_stops(window)
        reached = _tab_round(qtbot, window)
        assert sorted(map(id, reached)) == sorted(map(id, stops)), (
            name,
            [s.objectName() for s in stops if s not in reached],
        )


def test_esc_closes_every_window_beside_the_chat(qtbot: QtBot, windows: Windows) -> None:
    for name, window in windows.items():
        if name in ("chat", "settings"):  # Esc stops a reply there; settings: another helper's
            continue
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)  # noqa: B023 (waited on here)
        focused = QApplication.focusWidget()
        qtbot.keyClick(focused if focused is not None else window, Qt.Key.Key_Escape)
        assert not window.isVisible(), name
