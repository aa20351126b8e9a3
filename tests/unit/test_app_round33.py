"""Round 33 of issue 15 against the start.

The compaction (a long history's summary a turn owed, idle conversations,
old archives purged) ran only at the clock's ticks, the first half an hour
after the start: a summary a quit cut short waited that long to go on.  It
runs soon after the start now, as background work that gives way to the user.
"""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from desktop.app import build_core, load_models
from desktop.core.base.paths import AppPaths
from desktop.ui.shell import application
from desktop.ui.shell.application import ReverieApplication
from tests.unit.test_app import WAIT_MS, app_paths

__all__ = ["app_paths"]  # the fixture, used by name


@pytest.mark.model
def test_the_compaction_runs_soon_after_the_start_without_the_clock(
    qtbot: QtBot, app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(application, "COMPACTION_AFTER_START_MS", 0)
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
