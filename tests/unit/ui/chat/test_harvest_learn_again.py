"""A conversation the harvest skipped part of says so in the list, and its
menu asks for that part to be learned again."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.db import Conversation
from desktop.ui.chat.conversation_list import ConversationList

LEARN_AGAIN = "Learn the skipped part again"


def _conversation(conversation_id: int, title: str, unlearned_parts: int = 0) -> Conversation:
    return Conversation(
        conversation_id, title, 0.0, 0.0, False, None, None, None, None, unlearned_parts
    )


def test_a_conversation_not_fully_learned_is_marked_and_can_be_learned_again(
    qtbot: QtBot,
) -> None:
    listed = ConversationList()
    qtbot.addWidget(listed)
    listed.show_conversations([_conversation(1, "Tea"), _conversation(2, "Garden", 1)], None)

    tea, garden = (listed.items.item(row) for row in range(2))
    assert (tea.text(), garden.text()) == ("Tea", "Garden  · not all learned")
    assert "could not learn from part" in garden.toolTip()
    assert LEARN_AGAIN not in [a.text() for a in listed.menu_for(1).actions()]
    [learn] = [a for a in listed.menu_for(2).actions() if a.text() == LEARN_AGAIN]
    with qtbot.waitSignal(listed.learn_again_requested) as asked:
        learn.trigger()
    assert asked.args == [2]
