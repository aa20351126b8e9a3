"""Round 11: ``/forget #`` reads leading zeros of every script, as schedules
do.  Only ASCII "0" was taken off, so an id written after many Arabic-Indic
or fullwidth zeros was "no memory can have it" while the memory was there.
And the message an edit sends names the ones it replaced (the harvest then
does not count what they said twice: tests/unit/core/memory/test_harvest_round11.py).
"""

from __future__ import annotations

import pytest

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore
from tests.fakes import Recorder, ScriptedChatModel

ARABIC_ZERO = "\u0660"


@pytest.mark.parametrize(
    "zero",
    ["\u0660", "\uff10", "\u0966"],  # Arabic-Indic, fullwidth, Devanagari
    ids=["arabic-indic", "fullwidth", "devanagari"],
)
def test_an_id_after_many_zeros_of_any_script_is_the_memory(chat: ChatService, zero: str) -> None:
    chat.remember("My sister is called Ines.")
    kept = chat.remember("I like green tea.").memory

    forgotten, _ = chat.forget(f"#{zero * 25}{kept.id}")

    assert [m.id for m in forgotten] == [kept.id]


def test_zeros_of_any_script_before_a_number_too_big_for_a_row_forget_nothing(
    chat: ChatService,
) -> None:
    kept = chat.remember("I like green tea.").memory

    assert chat.forget(f"#{ARABIC_ZERO * 5000}{'9' * 20}") == ([], [])
    assert chat.forget(f"#{kept.id}")[0][0].id == kept.id  # nothing was forgotten


def test_the_message_an_edit_sends_names_the_ones_it_replaced(
    chat: ChatService, model: ScriptedChatModel, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()
    ids = []
    for said, edit in (("I keep bess.", False), ("I keep bees.", True), ("Two hives.", True)):
        model.queue("Lovely.")
        turn = chat.edit_last(conversation.id, said) if edit else chat.send(conversation.id, said)
        chat.run(turn, Recorder())
        assert turn.user_message is not None
        ids.append(turn.user_message.id)
    later = chat.send(conversation.id, "And a dog.").user_message

    [final, after] = [m for m in store.messages(conversation.id) if m.role == "user"]
    assert (final.id, final.metadata) == (ids[2], {"replaces": ids[:2]})
    assert later is not None and (after.id, after.metadata) == (later.id, None)


def test_a_name_pasted_over_two_lines_is_one_line(chat: ChatService) -> None:
    conversation = chat.new_conversation()

    renamed = chat.rename(conversation.id, "Trip\r\n<!--\n  to Porto ")

    assert renamed.title == "Trip <!-- to Porto"
