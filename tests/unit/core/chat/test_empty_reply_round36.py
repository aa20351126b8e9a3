"""Round 36 of issue 15: an answer with no words.

A server whose stream's first event is ``[DONE]``, or a model that ends at
once (its end-of-turn token first), gives an answer with no text: nothing
was stored, the window took the empty reply away, and the user, who had
sent a message, was told nothing at all.  Now the turn says the reply was
empty and what to do.
"""

from __future__ import annotations

import pytest

from desktop.core.chat.service import EMPTY_REPLY, ChatService
from tests.fakes import Recorder, ScriptedChatModel


@pytest.mark.parametrize("said", ["", "  \n "])
def test_an_empty_answer_is_told_not_dropped_in_silence(
    chat: ChatService, model: ScriptedChatModel, said: str
) -> None:
    conversation = chat.new_conversation()
    model.queue(said)
    heard = Recorder()

    chat.run(chat.send(conversation.id, "What should I cook tonight?"), heard)

    assert heard.notices() == [EMPTY_REPLY]  # was: no notice, and no reply shown


def test_an_answer_with_words_brings_no_such_notice(
    chat: ChatService, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    model.queue("Risotto.")
    heard = Recorder()

    chat.run(chat.send(conversation.id, "What should I cook tonight?"), heard)

    assert EMPTY_REPLY not in heard.notices()
