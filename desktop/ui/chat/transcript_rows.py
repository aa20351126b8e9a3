"""The rows of the transcript besides messages: notices (some with buttons,
as "Memory updated" with Open and Undo) and the tool calls the model made."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QStyle,
    QStyleOptionToolButton,
    QStylePainter,
    QToolButton,
    QVBoxLayout,
)

from desktop.ui.widgets.line_breaks import breakable

TEXT_FLAGS = (
    Qt.TextInteractionFlag.TextSelectableByMouse
    | Qt.TextInteractionFlag.TextSelectableByKeyboard
    | Qt.TextInteractionFlag.LinksAccessibleByMouse
    | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
)
_TOGGLE_MIN_WIDTH = 160
"""A tool call's line is cut (with "…") down to this width, never below."""


class WrappedLabel(QLabel):
    """Plain text, word-wrapped and selectable, that may break inside a long
    token.  ``original`` is the text as given (``text()`` has the breaks)."""

    def __init__(self, text: str, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(TEXT_FLAGS)
        self.original = ""
        self.set_text(text)

    def set_text(self, text: str) -> None:
        self.original = text
        self.setText(breakable(text))
        self.setAccessibleName(text)


class ActionNotice(QFrame):
    """A line for the user with buttons beside it (add them with ``add_button``)."""

    def __init__(self, text: str, name: str = "action-notice") -> None:
        super().__init__()
        self.setObjectName(name)
        self.label = WrappedLabel(text, f"{name}-text")
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(10, 4, 6, 4)
        self._layout.addWidget(self.label, 1)

    def add_button(self, text: str, accessible_name: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setAccessibleName(accessible_name)
        self._layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        return button


class MemoryUpdate(ActionNotice):
    """ "Memory updated": what was remembered, with Open and (for a new
    memory) Undo.

    Signals:
        open_requested(int): show this memory id in the memory browser.
        undo_requested(): take the change back.
    """

    open_requested = Signal(int)
    undo_requested = Signal()

    def __init__(self, text: str, memory_id: int, can_undo: bool) -> None:
        super().__init__(text, "memory-update")
        self.open_button = self.add_button("Open", f"Open memory {memory_id} in the memory browser")
        self.open_button.clicked.connect(lambda: self.open_requested.emit(memory_id))
        self.undo_button = self.add_button("Undo", "Undo: forget this memory again")
        self.undo_button.setVisible(can_undo)
        self.undo_button.clicked.connect(self.undo_requested)

    def undone(self, text: str) -> None:
        self.label.set_text(text)
        self.undo_button.hide()


class _ElidedToolButton(QToolButton):
    """A tool button that, in a row narrower than its text, shows the text cut
    with "…" instead of widening the row; ``text()`` stays whole."""

    def minimumSizeHint(self) -> QSize:
        hint = self.sizeHint()
        return QSize(min(hint.width(), _TOGGLE_MIN_WIDTH), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        missing = self.sizeHint().width() - self.width()
        if missing > 0:
            metrics = self.fontMetrics()
            room = metrics.horizontalAdvance(self.text()) - missing
            option.text = metrics.elidedText(self.text(), Qt.TextElideMode.ElideRight, room)
        QStylePainter(self).drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option)


class ToolCallView(QFrame):
    """A tool the model called: one line saying what came of it, the call
    and its full result behind a toggle (collapsed at first)."""

    def __init__(self, name: str, arguments: str, ok: bool, summary: str, result: str) -> None:
        super().__init__()
        self.setObjectName("tool-call" if ok else "tool-call-failed")
        self.toggle = _ElidedToolButton()
        self.toggle.setObjectName("tool-call-toggle")
        self.toggle.setCheckable(True)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setText(f"{name or 'tool call'}: {summary}")
        self.toggle.setToolTip(self.toggle.text())
        self.toggle.setAccessibleName(f"Tool call {name}: {summary}. Show the details")
        self.toggle.toggled.connect(self._expand)
        self.details = WrappedLabel(
            f"Called with: {arguments}\nResult: {result}", "tool-call-details"
        )
        self.details.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 2, 10, 2)
        layout.addWidget(self.toggle)
        layout.addWidget(self.details)

    def _expand(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.details.setVisible(expanded)
