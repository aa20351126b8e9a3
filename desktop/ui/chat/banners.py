"""What the chat window says above the conversation: a problem and the way
to fix it, why a role's model could not answer, and the one-time suggestion
of a better model for this computer."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
)

BANNER_LINES = 6
"""The banner's height at most, in lines of its text: a longer problem (a
damaged database's way back) scrolls instead of being cut off or pushing
the conversation out of a small window."""


def _label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class _Scrolled(QScrollArea):
    """*label*, as tall as its text up to *lines* lines, then scrolled."""

    def __init__(self, label: QLabel, lines: int) -> None:
        super().__init__()
        self.setObjectName("banner-scroll")
        self._lines = lines
        self._label = label
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        width = max(self.viewport().width() - self.verticalScrollBar().sizeHint().width(), 1)
        cap = self.fontMetrics().lineSpacing() * self._lines
        needed = self._label.heightForWidth(width)  # -1 before the label has a layout
        if needed < 0:
            needed = self._label.sizeHint().height()
        return QSize(super().sizeHint().width(), max(min(needed, cap), 0))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def refit(self) -> None:
        """Take the height the text now needs (it changed)."""
        self.setFixedHeight(self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():  # the text wraps anew
            self.refit()


class ProblemBanner(QFrame):
    """A problem, with a button to fix it when there is one (e.g. no chat
    model: choose one).

    Signals:
        fix_requested(): the user pressed the button.
    """

    fix_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("banner")
        self.label = _label("banner-text")
        self.text_area = _Scrolled(self.label, BANNER_LINES)
        self.fix_button = QPushButton()
        self.fix_button.setObjectName("banner-fix")
        self.fix_button.clicked.connect(self.fix_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.text_area, 1)
        layout.addWidget(self.fix_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_problem(self, message: str, fix: str = "") -> None:
        """Show *message*; *fix* labels the button that mends it (none if empty)."""
        self.label.setText(message)
        self.setAccessibleName(message)
        self.fix_button.setText(fix)
        self.fix_button.setAccessibleName(fix)
        self.fix_button.setVisible(bool(fix))
        self.show()
        self.text_area.refit()

    def text(self) -> str:
        return self.label.text()

    def clear(self) -> None:
        self.label.clear()
        self.hide()


class RolesBanner(QLabel):
    """Why each role's model could not answer, one line per role."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("roles-banner")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._problems: dict[str, str] = {}
        self.hide()

    def show_problem(self, role: str, problem: str | None) -> None:
        if problem:
            self._problems[role] = problem
        else:
            self._problems.pop(role, None)
        self.setText("\n".join(self._problems.values()))
        self.setAccessibleName(self.text())
        self.setVisible(bool(self._problems))


class SuggestionCard(QFrame):
    """The suggestion of a better model that fits this computer.

    Signals:
        accepted(): the user wants to choose the suggested model.
        dismissed(): "Not now".
    """

    accepted = Signal()
    dismissed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("model-suggestion")
        self.setAccessibleName("A better model for this computer")
        self.label = _label("model-suggestion-text")
        choose = QPushButton("Choose a model…")
        choose.setObjectName("model-suggestion-choose")
        choose.setAccessibleName("Choose the suggested model")
        choose.clicked.connect(self.accepted)
        later = QPushButton("Not now")
        later.setObjectName("model-suggestion-dismiss")
        later.setAccessibleName("Not now: do not suggest a model again")
        later.clicked.connect(self._dismiss)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(later)
        buttons.addWidget(choose)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addLayout(buttons)
        self.hide()

    def suggest(self, text: str) -> None:
        self.label.setText(text)
        self.show()

    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()
