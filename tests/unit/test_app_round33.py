"""Round 33 of issue 15 against the start.

The compaction (a long history's summary a turn owed, idle conversations,
old archives purged) ran only at the clock's ticks, the first half an hour
after the start: a summary a quit cut short waited that long to go on, and
a long history a turn found too long to summarise before its reply waited
for the next tick (a quit before it, and the turn's finding was forgotten).
It runs a minute after the start, and after such a turn, as background
work that gives way to the user.

An embedding server swapped while Reverie was closed for a model of another
vector size said nothing, and the memories' vectors were made again only
once a search had missed them all: the start now asks the model its
vectors' length, says how many memories wait for new ones, and makes them.
"""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from desktop.app import build_core, load_models
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.memories import MemoryStore
from desktop.ui.shell import application
from desktop.ui.shell.application import ReverieApplication
from models.broker import Role
from tests.bench.long_history import imported
from tests.embedding_server import MODEL, EmbeddingServer
from tests.unit.test_app import WAIT_MS, app_paths
from tests.unit.test_app_check_embeddings_round31 import _embeddings_on_server

__all__ = ["app_paths"]  # the fixture, used by name

pytestmark = pytest.mark.allow_hosts(["127.0.0.1"])

SUMMARY_WAIT_MS = 600_000
"""SmolLM2 reading a context's worth and summarising it, on two loaded cores."""


@pytest.mark.model
def test_the_compaction_runs_soon_after_the_start_without_the_clock(
    qtbot: QtBot, app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(application, "COMPACTION_SOON_MS", 0)
    core = build_core(app_paths)
    store, database = core.conversations, core.database
    assert store is not None and database is not None
    conversation = store.create("long ago")
    old = store.add_message(conversation.id, "user", "My bicycle is green.")
    with database.transaction() as tx:  # learned from and summarised a year ago
        tx.execute("UPDATE messages SET archived_at = 1 WHERE id = ?", (old.id,))
        tx.execute(
            "UPDATE conversations SET harvested_through_message_id = ? WHERE id = ?",
            (old.id, conversation.id),
        )
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        # The clock is never started: only the run after the start purges it.
        qtbot.waitUntil(lambda: not store.messages_by_ids([old.id]), timeout=WAIT_MS)
    finally:
        app.shutdown()
        core.close()


def a_memory_embedded_before_the_quit(paths: AppPaths) -> None:
    """A memory whose vector the server's model made then (``MODEL``, 384 numbers)."""
    database = open_database(paths.database_file)
    try:
        MemoryStore(database).add(
            "My bicycle is kept in the garden shed",
            embedding=np.ones(384, np.float32),
            source_kind="user_explicit",
            actor="user",
            embedding_model=MODEL,
        )
    finally:
        database.close()


@pytest.mark.model
@pytest.mark.parametrize("loaded_first", [False, True])
def test_an_embedding_server_of_another_size_since_the_last_start_is_said_and_embedded_again(
    qtbot: QtBot, app_paths: AppPaths, loaded_first: bool
) -> None:
    a_memory_embedded_before_the_quit(app_paths)
    with EmbeddingServer(dimension=48) as server:  # another model now, under the same name
        _embeddings_on_server(app_paths, server.base_url)
        core = build_core(app_paths)
        started = core.database
        assert started is not None
        loads = load_models(core)
        if loaded_first:  # a server "loads" at once: done before the app is built
            loads[Role.EMBEDDINGS].result()  # (in CI the upkeep it asks for never ran)
        app = ReverieApplication(core, loads)
        qtbot.addWidget(app.window)
        try:
            said = "1 memory is being embedded again with the embedding model in use"
            qtbot.waitUntil(lambda: said in app.window.transcript.plain_text(), timeout=WAIT_MS)
            lengths = "SELECT length(embedding) / 4 FROM memory_embeddings"
            qtbot.waitUntil(lambda: started.fetch_value(lengths) == 48, timeout=WAIT_MS)
        finally:
            app.shutdown()
            core.close()


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_turn_that_finds_a_history_too_long_has_it_summarised_soon_not_at_the_next_tick(
    qtbot: QtBot, app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(application, "COMPACTION_SOON_MS", 0)
    core = build_core(app_paths)
    store = core.conversations
    assert store is not None
    long_export = imported(store, 2_500)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    window = app.window
    try:
        qtbot.waitUntil(lambda: window.chat_available and not window.busy, timeout=WAIT_MS)
        window.open_conversation(long_export)
        window.input.setPlainText("hi")
        with qtbot.waitSignal(window.turn_ended, timeout=SUMMARY_WAIT_MS):
            window.send()
        assert "too many to summarise before a reply" in window.transcript.plain_text()

        # The clock is never started: only the run the turn asked for summarises.
        qtbot.waitUntil(lambda: _summary(store, long_export) is not None, timeout=SUMMARY_WAIT_MS)
    finally:
        app.shutdown()
        core.close()


def _summary(store: ConversationStore, conversation_id: int) -> str | None:
    conversation = store.get(conversation_id)
    assert conversation is not None
    return conversation.summary
