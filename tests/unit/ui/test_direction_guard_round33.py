"""Round 33 of issue 15: direction controls in text being edited.

Round 32 showed stored text in its stored order, but an editor shows the
text it hands on: a command pasted into a skill as "\\u202eevil\\u202c tab"
read "live tab" while edited (and was saved as "evil tab").  Under every
editor of every window a bar now says so and shows the line as written; one
click removes them (Ctrl+Z puts them back), and the text is otherwise left
as the user leaves it (a message is sent as written).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop.core.db import ConversationStore
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.window import ChatWindow
from desktop.ui.memory.browser import MemoryBrowser
from desktop.ui.skills.editor import SkillEditorWindow
from desktop.ui.widgets.direction_guard import ask_text
from tests.unit.ui.conftest import Windows, say
from tests.unit.ui.skills.test_skill_editor import click, editor  # noqa: F401 (the fixture)

OVERRIDDEN = "run: \u202eevil\u202c tab"
AS_WRITTEN = "As written: run: [RLO]evil[PDF] tab"
SKILL = f"# Clean up\n\n{OVERRIDDEN}\n"

Editor = QLineEdit | QPlainTextEdit


def _fields(window: QWidget) -> list[Editor]:
    """The fields of *window* one can type in (a spin box's digits aside)."""
    return [
        field
        for field in window.findChildren(QWidget)
        if isinstance(field, Editor)
        and field.isVisible()
        and not field.isReadOnly()
        and not isinstance(field.parentWidget(), QAbstractSpinBox)
    ]


def _set(field: Editor, text: str) -> None:
    if isinstance(field, QLineEdit):
        field.setText(text)
    else:
        field.setPlainText(text)


def _warnings(window: QWidget) -> list[str]:
    """What the direction warnings shown in *window* say."""
    return [
        label.text()
        for label in window.findChildren(QLabel, "direction-controls-text")
        if label.isVisible()
    ]


def test_every_editor_of_every_window_shows_the_line_as_written(windows: Windows) -> None:
    windows["memory browser"].select([1])  # type: ignore[attr-defined]  # its editor shows
    checked = []
    for name, window in windows.items():
        for field in _fields(window):
            assert _warnings(window) == [], (name, field.objectName())
            _set(field, OVERRIDDEN)
            assert len(_warnings(window)) == 1, (name, field.objectName())
            assert _warnings(window)[0].endswith(AS_WRITTEN), (name, field.objectName())
            _set(field, "")
            checked.append(field.objectName())
    assert sorted(checked) == [
        "",  # the settings' text (the time zone; round 35)
        "conversation-search",
        "input",
        "memory-editor",
        "memory-search",
        "skill-name",
        "skill-search",
        "skill-text",
        "task-schedule",
        "task-text",
    ]


def test_remove_takes_them_out_and_undo_puts_them_back(
    qtbot: QtBot,
    editor: SkillEditorWindow,  # noqa: F811 (a fixture)
) -> None:
    editor.new_skill()
    text = editor.pane.editor
    text.setPlainText(SKILL)
    [bar] = [bar for bar in editor.findChildren(QWidget, "direction-controls") if bar.isVisible()]
    [remove] = [button for button in bar.findChildren(QWidget, "direction-controls-remove")]

    click(qtbot, remove)  # type: ignore[arg-type]  # a QPushButton
    assert text.toPlainText() == "# Clean up\n\nrun: evil tab\n"
    assert not bar.isVisible()
    text.undo()
    assert text.toPlainText() == SKILL and bar.isVisible()


def test_a_message_is_sent_as_written(
    qtbot: QtBot, window: ChatWindow, store: ConversationStore
) -> None:
    say(qtbot, window, OVERRIDDEN)
    assert window.conversation_id is not None
    sent = [m.content for m in store.messages(window.conversation_id) if m.role == "user"]
    assert sent == [OVERRIDDEN]


def test_the_forget_a_topic_question_warns_too(
    browser: MemoryBrowser, memories: MemoryService
) -> None:
    browser.ask_forget_topic()
    dialog = browser.topic_dialog
    assert dialog is not None
    dialog.setTextValue(OVERRIDDEN)
    [said] = _warnings(dialog)
    assert said.endswith(AS_WRITTEN)
    dialog.reject()


def test_the_rename_question_warns_too(window: ChatWindow) -> None:
    seen: list[str] = []

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QInputDialog)
        seen.extend(_warnings(dialog))
        dialog.reject()

    QTimer.singleShot(0, look)
    assert ask_text(window, "Rename conversation", "New name:", OVERRIDDEN) == (OVERRIDDEN, False)
    [said] = seen
    assert said.endswith(AS_WRITTEN)


def test_a_fields_label_stays_level_with_it_while_the_bar_shows(windows: Windows) -> None:
    tasks = windows["tasks"]
    field = tasks.detail.text_edit  # type: ignore[attr-defined]  # the tasks window
    [label] = [label for label in tasks.findChildren(QLabel) if label.buddy() is field]
    field.setText(OVERRIDDEN)
    assert _warnings(tasks)

    def middle(widget: QWidget) -> int:
        return widget.mapTo(tasks, widget.rect().center()).y()

    QApplication.processEvents()  # the row grew
    assert middle(label) == middle(field)


def test_after_remove_them_the_typing_goes_on_in_the_field(qtbot: QtBot, windows: Windows) -> None:
    tasks = windows["tasks"]
    for other in windows.values():
        other.setVisible(other is tasks)
    tasks.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is tasks)
    field = tasks.detail.text_edit  # type: ignore[attr-defined]  # the tasks window
    field.setText(OVERRIDDEN)
    [remove] = [
        b for b in tasks.findChildren(QWidget, "direction-controls-remove") if b.isVisible()
    ]
    remove.setFocus()  # reached by Tab, or clicked

    qtbot.keyClick(remove, Qt.Key.Key_Space)
    assert field.text() == "run: evil tab"
    assert QApplication.focusWidget() is field  # not the next stop after the hidden button
