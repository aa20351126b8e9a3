"""Round 26: the Work window read each worker's dependencies with a query of
its own, so a listing of N workers cost N + 1 reads of the database (on
the UI thread, at every change of any worker)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.ui.workers.window import ID_ROLE, WorkWindow
from models.broker import InferenceBroker
from tests.reads import statements_of
from tests.work import workers_over


def _reads_of_a_refresh(window: WorkWindow, database: Database) -> int:
    return len(statements_of(window.refresh, database))


def test_a_listing_reads_the_same_whatever_the_number_of_workers(
    qtbot: QtBot, database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> None:
    workers = workers_over(database, broker, prompts)
    context = ToolContext(ConversationStore(database).create("chain").id)
    first = workers.spawn(SpawnCall(objective="fetch the bills"), context)
    workers.spawn(SpawnCall(objective="sum them", depends_on=[first]), context)
    window = WorkWindow(workers)
    qtbot.addWidget(window)
    few = _reads_of_a_refresh(window, database)
    for number in range(10):
        workers.spawn(SpawnCall(objective=f"step {number}", depends_on=[first]), context)

    many = _reads_of_a_refresh(window, database)

    rows = {int(item.data(0, ID_ROLE)): item.text(4) for item in window._items()}
    assert len(rows) == 12
    assert sorted(rows.values()) == [""] + [f"#{first}"] * 11
    assert many == few
    window.shutdown()
