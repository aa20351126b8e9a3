"""A secret typed in the chat shows as its placeholder, and the first time
in a run of the app a notice says why; later secrets are replaced quietly."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.privacy.redaction import redaction_notice
from desktop.ui.chat.window import ChatWindow
from tests.unit.ui.conftest import say

WHY = redaction_notice(("password",))


def test_the_user_sees_the_placeholder_and_is_told_why_once(
    qtbot: QtBot, window: ChatWindow
) -> None:
    say(qtbot, window, "hello")
    assert WHY not in window.transcript.plain_text()  # nothing was replaced

    say(qtbot, window, "the wifi password at the cabin is hunter2")
    say(qtbot, window, "and the PIN for the door is 4821")

    shown = [view.text for view in window.transcript.messages if view.role == "user"]
    assert shown == [
        "hello",
        "the wifi password at the cabin is [redacted password]",
        "and the PIN for the door is [redacted password]",
    ]
    text = window.transcript.plain_text()
    assert text.count(WHY) == 1
    assert text.index(WHY) > text.index(shown[1])  # under the message it explains
    assert "hunter2" not in text and "4821" not in text


def test_a_value_named_by_the_next_message_turns_into_its_placeholder_on_screen(
    qtbot: QtBot, window: ChatWindow
) -> None:
    say(qtbot, window, "Bn5Qt62Wx")

    say(qtbot, window, "^ that's my email password")

    shown = [view.text for view in window.transcript.messages if view.role == "user"]
    assert shown == ["[redacted password]", "^ that's my email password"]
    assert "Bn5Qt62Wx" not in window.transcript.plain_text()
    assert WHY in window.transcript.plain_text()
