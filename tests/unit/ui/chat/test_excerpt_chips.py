"""A reply shows the excerpts of other conversations it was given as chips;
a chip opens that conversation at that message (real window, offscreen)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.service import ChatService
from desktop.core.db import Database
from desktop.core.memory.message_index import MessageIndexer
from desktop.ui.chat.window import ChatWindow
from models.broker import InferenceBroker
from tests.fakes import Recorder
from tests.recalling import recalling_chat
from tests.unit.ui.conftest import WAIT_MS, say


@pytest.fixture
def recalling(database: Database, broker: InferenceBroker, user_dirs: AppPaths) -> ChatService:
    return recalling_chat(database, broker, PromptLibrary(user_dirs.config_dir / "prompts"))


@pytest.fixture
def window(qtbot: QtBot, recalling: ChatService) -> Iterator[ChatWindow]:
    win = ChatWindow(recalling, recalling.new_conversation().id, hide_on_close=False)
    qtbot.addWidget(win)
    try:  # shut down even when the greeting times out: a running thread's window aborts
        with qtbot.waitSignal(win.turn_ended, timeout=WAIT_MS):  # the greeting
            win.set_chat_available(True, "")
        win.show()
        yield win
    finally:
        win.shutdown()


def test_an_excerpt_chip_opens_the_conversation_at_the_message(
    qtbot: QtBot,
    window: ChatWindow,
    recalling: ChatService,
    database: Database,
    broker: InferenceBroker,
) -> None:
    earlier = recalling.new_conversation()
    recalling.rename(earlier.id, "Climbing plans")
    turn = recalling.send(earlier.id, "My climbing coach at the bouldering hall is Brigitte.")
    recalling.run(turn, Recorder())
    for n in range(30):  # enough after it that opening the conversation must scroll to it
        recalling.run(recalling.send(earlier.id, f"Another thing, number {n}."), Recorder())
    MessageIndexer.over(database, broker).index_missing()
    asked = turn.user_message
    assert asked is not None

    here = window.conversation_id
    say(qtbot, window, "What is my climbing coach called?")

    chips = window.transcript.messages[-1].excerpt_chips
    [chip] = [c for c in chips if "Brigitte" in c.toolTip()]
    assert chip.text().startswith("Climbing plans, ")
    assert chip.text().endswith(": My climbing coach at…")
    chip.click()
    assert window.conversation_id == earlier.id
    view = window.transcript.view_of(asked.id)
    assert view is not None and view.property("found")
    # Back, reloaded from the database: the reply keeps its chip.
    assert here is not None
    window.open_conversation(here)
    chips = window.transcript.messages[-1].excerpt_chips
    assert [c.text() for c in chips if "Brigitte" in c.toolTip()] == [chip.text()]
