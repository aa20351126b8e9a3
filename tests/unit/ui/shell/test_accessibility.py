"""Every focus stop of every window says what it is to a screen reader, and
the Tab order reads like the page: down the window, left to right."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.ui.chat.window import ChatWindow
from desktop.ui.settings.window import SettingsWindow
from tests.unit.ui.conftest import Windows, focus_stops


def _named(widget: QWidget) -> str:
    return (
        f"{type(widget).__name__} #{widget.objectName() or '?'} in {type(widget.window()).__name__}"
    )


def test_every_focus_stop_of_every_window_has_an_accessible_name(windows: Windows) -> None:
    unnamed: list[str] = []
    checked = 0
    for title, window in windows.items():
        if isinstance(window, SettingsWindow):
            for page in window.page_titles():
                window.show_page(page)
                stops = focus_stops(window)
                checked += len(stops)
                unnamed += [
                    f"{title}, {page}: {_named(s)}" for s in stops if not s.accessibleName()
                ]
        else:
            stops = focus_stops(window)
            checked += len(stops)
            unnamed += [f"{title}: {_named(s)}" for s in stops if not s.accessibleName()]
    assert checked > 60
    assert not unnamed, "no accessible name:\n" + "\n".join(unnamed)


def test_tab_from_the_message_box_follows_the_row_under_it(
    qtbot: QtBot, window: ChatWindow
) -> None:
    """From the message box, Tab goes along the buttons under it, left to
    right, Send included, stopping at nothing hidden."""
    window.input.setPlainText("hello")  # so Send is a stop
    order: list[QWidget] = []
    widget = window.input.nextInFocusChain()
    stops = focus_stops(window)
    while widget is not None and widget is not window.input and len(order) < 100:
        if widget in stops:
            order.append(widget)
        widget = widget.nextInFocusChain()
    row = [w for w in order if w.parentWidget() is window.send_button.parentWidget()]
    row = row[: row.index(window.send_button) + 1]
    lefts = [w.mapTo(window, QPoint(0, 0)).x() for w in row]
    assert row[0] is window.memories_button and row[-1] is window.send_button
    assert lefts == sorted(lefts)
