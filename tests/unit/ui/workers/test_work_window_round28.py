"""Round 28: a worker free to run, waiting for the one before it or for the
user to go quiet, was listed as "Waiting for its time", as if a time were
set: it now says "Waiting its turn", and its tip what it waits for.

Cancel in the Work window did the whole cancel on the UI
thread: the workers waiting on the one cancelled fail and each is reported,
one transaction at a time, so cancelling the first of 1,000 chained workers
held the window still for seconds (4.4 s here, 22 s on the machine it was
found on), not drawing, not answering a click.

The cancel now runs on a thread of its own: the click returns at once, the
window says "Cancelling…" with Cancel off, and shows the outcome when it is
done (``cancel_ended``).  The database is held by the test while it clicks,
so the cancel cannot be done by the time the click returns, whatever the
machine's speed."""

from __future__ import annotations

from datetime import datetime, timedelta

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.core.workers.service import Workers
from desktop.ui.workers.window import ID_ROLE, WorkWindow
from models.broker import InferenceBroker
from tests.unit.ui.workers.test_work_window import _state
from tests.work import workers_over

WAIT_MS = 10_000
CHAIN = 30


def _chain(workers: Workers, database: Database) -> list[int]:
    """*CHAIN* workers, each waiting on the one before."""
    context = ToolContext(ConversationStore(database).create("A long chain").id)
    ids = [workers.spawn(SpawnCall(objective="step 0"), context)]
    for number in range(1, CHAIN):
        call = SpawnCall(objective=f"step {number}", depends_on=[ids[-1]])
        ids.append(workers.spawn(call, context))
    return ids


def test_cancel_returns_at_once_says_cancelling_and_shows_the_outcome_when_done(
    qtbot: QtBot, database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> None:
    workers = workers_over(database, broker, prompts)
    chain = _chain(workers, database)
    window = WorkWindow(workers)
    qtbot.addWidget(window)
    window.show()
    window.select(chain[0])
    waiting = _state(workers, chain[0])
    try:
        with database.transaction():  # the cancel waits for the database (another thread's)
            qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)

            assert _state(workers, chain[0]) == waiting != "cancelled"  # not on this thread
            assert window.notice.text().startswith(f"Cancelling #{chain[0]}")
            assert window.cancelling
            assert not window.cancel_button.isEnabled()  # asked once
        with qtbot.waitSignal(window.cancel_ended, timeout=WAIT_MS):
            pass

        assert not window.cancelling
        assert [_state(workers, i) for i in chain] == ["cancelled"] + ["failed"] * (CHAIN - 1)
        assert window.notice.text().startswith(f"Cancelled #{chain[0]}")
        assert window.count_label.text() == f"{CHAIN} workers, 0 not ended"
    finally:
        window.shutdown()


def test_a_worker_free_to_run_waits_its_turn_and_a_gated_one_for_its_time(
    qtbot: QtBot, database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> None:
    workers = workers_over(database, broker, prompts)
    context = ToolContext(ConversationStore(database).create("Errands").id)
    free = workers.spawn(SpawnCall(objective="Sum the bills"), context)
    evening = (datetime.now().astimezone() + timedelta(days=1)).replace(hour=20, minute=0)
    gated = workers.spawn(SpawnCall(objective="Remind me", not_before=evening.isoformat()), context)
    window = WorkWindow(workers)
    qtbot.addWidget(window)
    rows = {int(item.data(0, ID_ROLE)): item for item in window._items()}

    assert rows[free].text(1) == "Waiting its turn"
    assert "no other worker runs" in rows[free].toolTip(1)
    assert rows[gated].text(1) == "Waiting for its time"
    assert rows[gated].toolTip(1).startswith("Waiting for its time (")
    window.shutdown()
