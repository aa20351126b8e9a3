"""The transcript in a real window: it follows a reply while the user has not
scrolled away, offers a way back when they have, fits any width the chat
window allows, caps its reading width, and reads out to a screen reader."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QWheelEvent
from PySide6.QtWidgets import QAbstractSlider, QApplication, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.db import Memory
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.transcript import READING_WIDTH, MessageView, Transcript
from desktop.ui.chat.transcript_rows import ToolCallView
from desktop.ui.chat.window import ChatWindow
from tests.fakes import ScriptedChatModel
from tests.unit.ui.conftest import say

WAIT_MS = 5_000
DEFAULT = (720, 560)
"""About the transcript of the chat window at its default 960 x 680."""
NARROWEST = 320
"""Narrower than the transcript of the chat window at its minimum size."""
LONG_TOKEN = "x" * 400
PASTE = ("A pasted line of a long log file, with words. " * 4 + "\n") * 1_100  # ~200 KB


@pytest.fixture
def host(qtbot: QtBot) -> Iterator[tuple[QWidget, Transcript]]:
    """A shown window holding only a transcript."""
    window = QWidget()
    layout = QVBoxLayout(window)
    layout.setContentsMargins(0, 0, 0, 0)
    transcript = Transcript()
    layout.addWidget(transcript)
    qtbot.addWidget(window)
    window.resize(*DEFAULT)
    window.show()
    qtbot.waitExposed(window)
    yield window, transcript


def _conversation(transcript: Transcript, turns: int = 12) -> None:
    for n in range(turns):
        role = "user" if n % 2 == 0 else "assistant"
        transcript.add_message(role, f"Message {n}: " + "some words to wrap " * 25, n + 1)
    transcript.scroll_to_bottom()


def _bottom_in_view(transcript: Transcript, widget: QWidget) -> int:
    return widget.mapTo(transcript.viewport(), widget.rect().bottomLeft()).y()


def _stream(qtbot: QtBot, view: MessageView, pieces: int) -> None:
    for n in range(pieces):
        view.append(f"Streamed line {n} of the reply, long enough to wrap once or so.\n")
        qtbot.wait(15)


def _settled(transcript: Transcript, widget: QWidget) -> bool:
    bottom = _bottom_in_view(transcript, widget)
    return 0 < bottom < transcript.viewport().height()


def _wheel_up(transcript: Transcript, notches: int = 3) -> None:
    viewport = transcript.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    event = QWheelEvent(
        centre,
        viewport.mapToGlobal(centre),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, event)


def _memories(memories: MemoryService, count: int) -> list[Memory]:
    return [
        memories.remember(
            f"Memory number {n}: the user keeps a very long list of things in a notebook "
            "that they carry everywhere they go",
            source_kind="user_explicit",
            actor="user",
        ).memory
        for n in range(count)
    ]


# -- following the reply -------------------------------------------------------


def test_a_streamed_reply_in_a_tall_conversation_stays_in_view_while_and_after_it_streams(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    _, transcript = host
    _conversation(transcript)
    transcript.add_message("user", PASTE, 100)  # the 200 KB paste
    transcript.scroll_to_bottom()  # as the chat window does on sending
    reply = transcript.add_message("assistant")

    _stream(qtbot, reply, 10)
    qtbot.waitUntil(lambda: _settled(transcript, reply.body), timeout=WAIT_MS)
    _stream(qtbot, reply, 30)
    reply.finish(reply.text)
    notice = transcript.add_notice("Dream finished: two memories were merged. " * 3)

    qtbot.waitUntil(lambda: _settled(transcript, notice), timeout=WAIT_MS)
    top = notice.mapTo(transcript.viewport(), notice.rect().topLeft()).y()
    assert top >= 0  # the notice shows whole, its top not cut off
    bar = transcript.verticalScrollBar()
    assert bar.value() == bar.maximum() > 0
    # Not scrolled onto empty space: the last row ends at the bottom of the view.
    assert transcript.viewport().height() - _bottom_in_view(transcript, notice) < 30
    assert transcript.following and transcript.jump_button.isHidden()


def test_after_scrolling_up_new_text_leaves_the_view_alone_and_jump_to_latest_returns(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    _, transcript = host
    _conversation(transcript)
    reply = transcript.add_message("assistant")
    _stream(qtbot, reply, 5)
    bar = transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() > 0, timeout=WAIT_MS)

    _wheel_up(transcript)
    reading = bar.value()
    first = transcript.messages[0]
    seen_at = first.mapTo(transcript.viewport(), QPoint(0, 0)).y()
    assert reading < bar.maximum()
    maximum = bar.maximum()
    _stream(qtbot, reply, 20)
    qtbot.waitUntil(lambda: bar.maximum() > maximum, timeout=WAIT_MS)

    assert bar.value() == reading  # the text the user reads did not move
    assert first.mapTo(transcript.viewport(), QPoint(0, 0)).y() == seen_at
    assert not transcript.following
    jump = transcript.jump_button
    assert jump.isVisible() and jump.accessibleName() == "Jump to the latest message"
    assert jump.text() == "↓ Jump to latest"
    transcript.add_notice("A reminder arrived.")
    assert jump.text() == "↓ New messages"
    viewport = transcript.viewport().geometry()
    assert viewport.contains(jump.geometry())  # floats over the bottom of the view
    assert jump.geometry().top() > viewport.center().y()

    qtbot.mouseClick(jump, Qt.MouseButton.LeftButton)

    assert bar.value() == bar.maximum()
    assert transcript.following and jump.isHidden()
    reply.finish(reply.text + "The end.")
    qtbot.waitUntil(lambda: _settled(transcript, transcript.messages[-1].body), timeout=WAIT_MS)


def test_the_keyboard_and_the_scroll_bar_also_stop_the_following(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    _, transcript = host
    _conversation(transcript)
    reply = transcript.add_message("assistant")
    bar = transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() > 0, timeout=WAIT_MS)
    transcript.setFocus()

    qtbot.keyClick(transcript, Qt.Key.Key_PageUp)
    reading, maximum = bar.value(), bar.maximum()
    _stream(qtbot, reply, 10)
    qtbot.waitUntil(lambda: bar.maximum() > maximum, timeout=WAIT_MS)

    assert bar.value() == reading < bar.maximum()
    assert not transcript.following
    transcript.scroll_to_bottom()
    assert transcript.following
    bar.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepSub)  # its arrow, or a drag
    assert not transcript.following
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)  # back at the end by hand
    assert transcript.following and transcript.jump_button.isHidden()


# -- width -----------------------------------------------------------------------


def _content(transcript: Transcript) -> QWidget:
    content = transcript.widget()
    assert content is not None
    return content


def _too_wide(transcript: Transcript) -> list[str]:
    """The shown widgets in the transcript that stick out of the view."""
    viewport = transcript.viewport()
    wider = []
    for widget in _content(transcript).findChildren(QWidget):
        if not widget.isVisible():
            continue
        left = widget.mapTo(viewport, QPoint(0, 0)).x()
        if left < 0 or left + widget.width() > viewport.width():
            wider.append(f"{widget.objectName() or type(widget).__name__}: {widget.width()}")
    return wider


def test_at_the_narrowest_width_nothing_in_the_transcript_is_wider_than_the_view(
    qtbot: QtBot, host: tuple[QWidget, Transcript], memories: MemoryService
) -> None:
    window, transcript = host
    window.resize(NARROWEST, 600)
    _conversation(transcript, 4)
    reply = transcript.add_message("assistant", "Here is what I recall about you.", 50)
    reply.show_memories(_memories(memories, 7))  # five chips and "+2 more"
    token = transcript.add_message(
        "assistant", f"A token: {LONG_TOKEN} and a [link](https://e.org/{LONG_TOKEN})", 51
    )
    transcript.add_message("user", f"`{LONG_TOKEN}`\n\n{PASTE}", 52)
    transcript.add_message("assistant", f"```\n{LONG_TOKEN}\n```", 53)
    transcript.add_notice(f"The message is longer than the model can read: {LONG_TOKEN}")
    transcript.add_memory_update(f"Memory updated. Remembered (#9): {LONG_TOKEN}", 9, True)
    call = transcript.add_tool_call("append_memory", LONG_TOKEN, True, LONG_TOKEN, LONG_TOKEN)
    call.toggle.click()
    qtbot.waitUntil(lambda: _content(transcript).width() == transcript.viewport().width())

    qtbot.wait(50)  # the rows' layout settles
    assert _too_wide(transcript) == []
    assert _content(transcript).width() == transcript.viewport().width()
    chips = reply.memory_chips
    assert len(chips) == 5
    assert len({chip.y() for chip in chips}) > 1  # wrapped onto more than one row
    assert "\u200b" in token.body.text()  # the token got places to break
    token.copy()
    assert QGuiApplication.clipboard().text() == token.text  # copied as written
    assert LONG_TOKEN in transcript.plain_text()
    assert call.toggle.text() == f"append_memory: {LONG_TOKEN}"  # cut only on screen


def test_maximised_the_messages_stand_in_a_column_of_reading_width(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    window, transcript = host
    _conversation(transcript, 4)
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: transcript.viewport().width() > 1800)

    def capped(view: MessageView) -> bool:
        return READING_WIDTH - 40 < view.width() <= READING_WIDTH

    qtbot.waitUntil(lambda: all(capped(view) for view in transcript.messages), timeout=WAIT_MS)
    for view in transcript.messages:
        left = view.mapTo(transcript.viewport(), QPoint(0, 0)).x()
        right = transcript.viewport().width() - (left + view.width())
        assert abs(left - right) <= 2  # centred


# -- keyboard and screen readers -------------------------------------------------


def test_each_message_is_one_focus_stop_named_by_its_speaker_and_read_as_its_text(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    window, transcript = host
    first = transcript.add_message("user", "Hello *there*", 1)
    second = transcript.add_message("assistant", "Hi, **you**.", 2)
    third = transcript.add_message("assistant", "Something else.", 3)
    third.speaker.setText("Reverie · reminder of task #4")

    assert (first.accessibleName(), first.accessibleDescription()) == ("You", "Hello *there*")
    assert (second.accessibleName(), second.accessibleDescription()) == ("Reverie", "Hi, you.")
    assert third.accessibleName() == "Reverie · reminder of task #4"
    window.activateWindow()
    qtbot.waitActive(window)
    qtbot.waitUntil(third.isVisible)
    first.setFocus()
    assert first.hasFocus()
    qtbot.keyClick(first, Qt.Key.Key_Tab)
    assert first.copy_button.hasFocus()  # its buttons, then the next message
    qtbot.keyClick(first.copy_button, Qt.Key.Key_Tab)
    assert second.hasFocus()
    qtbot.keyClick(second, Qt.Key.Key_Down)
    assert third.hasFocus()
    qtbot.keyClick(third, Qt.Key.Key_Home)
    assert first.hasFocus()
    qtbot.keyClick(first, Qt.Key.Key_Return)
    assert first.body.hasFocus()  # into the text, to select it or follow its links


def test_a_reply_announces_its_end_once_and_history_never(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    _, transcript = host
    announced: list[str] = []
    loaded = transcript.add_message("assistant", "From an earlier day.", 1)
    loaded.announced.connect(announced.append)
    reply = transcript.add_message("assistant")
    reply.announced.connect(announced.append)
    reply.append("Your cat is called **Miso**.")

    reply.finish(reply.text)
    reply.finish(reply.text)

    assert announced == ["Reverie said: Your cat is called Miso."]


def test_a_dark_palette_renders_the_markdown_for_a_dark_background(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    _, transcript = host
    reply = transcript.add_message("assistant", "Run `make`.", 1)
    light = reply.body.text()
    palette = QPalette(transcript.palette())
    palette.setColor(QPalette.ColorRole.Window, QColor("#1e1e24"))

    transcript.setPalette(palette)

    assert reply.body.text() != light
    assert "#343942" in reply.body.text()  # the inline code's dark background


def test_a_tool_call_line_is_cut_to_the_row_not_the_row_widened(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    window, transcript = host
    window.resize(NARROWEST, 500)
    row: ToolCallView = transcript.add_tool_call("search_memory", "{}", True, "found " * 60, "[]")
    qtbot.waitUntil(lambda: row.width() > 0 and row.isVisible())

    assert row.toggle.width() <= transcript.viewport().width()
    assert row.toggle.toolTip() == row.toggle.text()  # the whole line, on hover


def test_in_the_chat_window_the_reply_to_a_long_paste_is_in_view_when_it_ends(
    qtbot: QtBot, window: ChatWindow, model: ScriptedChatModel
) -> None:
    window.resize(960, 680)
    for n in range(4):
        say(qtbot, window, f"Question {n}: " + "tell me more about it " * 20)
    model.default = "Line one of the answer.\n" * 30  # the summary of the older messages, too

    say(qtbot, window, PASTE)

    transcript = window.transcript
    reply = transcript.messages[-1]
    assert reply.role == "assistant" and reply.text.startswith("Line one")
    qtbot.waitUntil(lambda: _settled(transcript, reply.body), timeout=WAIT_MS)
    bar = transcript.verticalScrollBar()
    assert bar.value() == bar.maximum()
    # Not scrolled onto empty space: the reply ends at the bottom of the view.
    assert transcript.viewport().height() - _bottom_in_view(transcript, reply) < 30


def test_breaks_in_a_long_token_never_split_an_accent_or_an_entity(
    qtbot: QtBot, host: tuple[QWidget, Transcript]
) -> None:
    _, transcript = host
    accents = transcript.add_message("assistant", "e\u0301\u0323" * 20, 1)  # 3 code points each
    ampersands = transcript.add_message("assistant", "&" * 40, 2)
    short = transcript.add_message("assistant", "A sentence of ordinary words.", 3)

    shown = accents.body.text()
    assert "\u200b" in shown and "\u200b\u0301" not in shown and "\u200b\u0323" not in shown
    pieces = ampersands.body.text().split("\u200b")
    assert len(pieces) > 1 and all(piece.endswith("&amp;") for piece in pieces[:-1])
    assert "\u200b" not in short.body.text()
