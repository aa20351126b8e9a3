"""Round 27: the Tasks window read each conversation's title with a query of
its own, and every task ever kept (completed and deleted too) at each
refresh, to choose the words of a list it was not showing.

Each conversation its tasks came from cost a read of the database on the
UI thread, at every change (a user with tasks in 1,000 conversations waited
for 1,000 reads), and a refresh read the whole table once more.  The titles
are now read together, and whether any task is kept is counted, only when
the list shown is empty."""

from __future__ import annotations

from desktop.core.db import ConversationStore, Database
from desktop.core.tasks.service import TaskService
from desktop.ui.tasks.window import EMPTY_TASKS, TasksWindow
from tests.reads import statements_of
from tests.unit.ui.tasks.test_tasks_view import clock, tasks, view

__all__ = ["clock", "tasks", "view"]  # the fixtures, as the window's own tests have them


def _reads_of_a_refresh(view: TasksWindow, database: Database) -> list[str]:
    return statements_of(view.refresh, database)


def test_a_refresh_reads_the_same_whatever_the_number_of_conversations(
    view: TasksWindow, tasks: TaskService, store: ConversationStore, database: Database
) -> None:
    tasks.add("Water the ferns", conversation_id=store.create("plants").id)
    few = _reads_of_a_refresh(view, database)
    for number in range(10):
        conversation = store.create(f"errand {number}")
        tasks.add(f"Errand {number}", conversation_id=conversation.id)

    many = _reads_of_a_refresh(view, database)

    assert view.group_titles()[:2] == ["“errand 0” · 1 task", "“errand 1” · 1 task"]
    assert len(many) == len(few)
    assert sum("FROM tasks" in statement for statement in many) == 1


def test_an_empty_filter_still_says_whether_any_task_is_kept(
    view: TasksWindow, tasks: TaskService, database: Database
) -> None:
    view.refresh()
    assert view.empty_label.text() == EMPTY_TASKS
    done = tasks.add("File the receipts", conversation_id=None)
    tasks.complete(done.id)

    reads = _reads_of_a_refresh(view, database)

    assert view.task_ids() == []
    assert view.empty_label.text() == "Nothing to do: every task is completed or deleted."
    assert sum(statement.startswith("SELECT * FROM tasks") for statement in reads) == 1
