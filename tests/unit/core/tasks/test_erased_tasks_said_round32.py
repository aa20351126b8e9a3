"""Round 32: a task erased for good ("Delete now", or its restore window
over) stayed word for word in what it had said.

A reminder says the task's text in its conversation, a routine says the
model's answer to its prompt there, and a task whose conversation is gone
speaks as a system event in another conversation, naming its text; an
agenda review's notice quotes the task it added or moved.  Erasing took
the task's row out, not these copies: its text stayed in the transcripts
(shown, and read by the model), the word index, the database file and the
snapshots taken before dreams.  A reminder quotes the text as it read
then, so a task reworded since is not found by its text: what a task said
is found by the task's number in its metadata.  A reminder goes whole; a
routine's answer is what the user asked for, and loses the task's words
only."""

from __future__ import annotations

from datetime import time
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Database
from desktop.core.db.message_kinds import TASKS_REVIEWED
from desktop.core.db.purge import ERASED
from desktop.core.db.schedules import Daily
from desktop.core.dreaming.snapshots import complete_snapshots, take_snapshot
from desktop.core.tasks.routines import RoutineRunner
from desktop.core.tasks.service import TaskService
from tests.erasers import eraser_for
from tests.fakes import ForkableChatModel
from tests.unit.core.tasks.test_routines import (  # noqa: F401 (the fixtures)
    Clock,
    clock,
    runner,
    tasks,
)

MARK = "Quillbrook"


@pytest.fixture
def model() -> ForkableChatModel:
    return ForkableChatModel(default=f"{MARK} stretch: try the cat-cow twist.")


def _files_holding(database: Database, user_dirs: AppPaths, mark: str) -> list[str]:
    files = [database.path, Path(f"{database.path}-wal")]
    files += complete_snapshots(user_dirs.snapshots_dir)
    return [p.name for p in files if p.exists() and mark.encode() in p.read_bytes()]


def _said(store: ConversationStore, conversation_id: int) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in store.messages(conversation_id)]


def test_what_an_erased_task_said_goes_from_the_transcripts_the_index_the_file_and_snapshots(
    runner: RoutineRunner,  # noqa: F811 (a fixture)
    tasks: TaskService,  # noqa: F811 (a fixture)
    store: ConversationStore,
    clock: Clock,  # noqa: F811 (a fixture)
    database: Database,
    user_dirs: AppPaths,
) -> None:
    plants = store.create("plants").id
    store.add_message(plants, "user", "Good morning.")
    reminder = tasks.add(f"Water the {MARK} ferns", conversation_id=plants, schedule=Daily(time(9)))
    routines = [
        tasks.add(
            f"{MARK} stretch",
            conversation_id=conversation_id,  # None: an event in the latest conversation, plants
            schedule=Daily(time(9)),
            ai_prompt=f"Suggest one {MARK} stretch for the back.",
        )
        for conversation_id in (plants, None)
    ]
    clock.set("2026-11-23 09:01")
    runner.run_due()
    tasks.update(reminder.id, text="Water the ferns")  # the reminder said the old text
    take_snapshot(database, user_dirs.snapshots_dir, "20261201T000000Z", skills_dir=None, keep=3)
    said = _said(store, plants)
    assert [role for role, text in said if MARK in text] == ["assistant", "assistant", "event"]
    for task in [reminder, *routines]:
        tasks.delete(task.id)

    eraser_for(database, user_dirs).erase_tasks([reminder.id, *(r.id for r in routines)])

    reminded, answered, event = _said(store, plants)[1:]
    assert reminded == ("assistant", ERASED)  # the text it had then, too
    # What the user asked the routine for stays, without the task's words.
    assert answered == ("assistant", f"{ERASED}: try the cat-cow twist.")
    assert event[1].startswith(f'[SYSTEM EVENT] The routine of task #{routines[1].id} "{ERASED}"')
    assert event[1].endswith(f"\n{ERASED}: try the cat-cow twist.")
    assert store.search(MARK) == []
    assert _files_holding(database, user_dirs, MARK) == []


def test_a_review_notice_loses_the_erased_tasks_text_and_keeps_the_others(
    tasks: TaskService,  # noqa: F811 (a fixture)
    store: ConversationStore,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    conversation = store.create("errands").id
    erased = tasks.add(f"Buy {MARK} paint for the shed", conversation_id=conversation)
    kept = tasks.add("Call the plumber", conversation_id=conversation)
    store.add_message(
        conversation,
        "assistant",
        f"I went over your tasks:\n- added #{erased.id} “{erased.text}”"
        f"\n- added #{kept.id} “{kept.text}”",
        metadata={
            "kind": TASKS_REVIEWED,
            "actions": [
                {"action": "add", "text": erased.text, "priority": 5, "schedule": None},
                {"action": "add", "text": kept.text, "priority": 5, "schedule": None},
            ],
        },
    )
    tasks.delete(erased.id)

    eraser_for(database, user_dirs).erase_tasks([erased.id])

    [notice] = store.messages(conversation)
    assert notice.content.splitlines() == [
        "I went over your tasks:",
        f"- added #{erased.id} “{ERASED}”",
        f"- added #{kept.id} “{kept.text}”",
    ]
    assert [a["text"] for a in (notice.metadata or {})["actions"]] == [ERASED, kept.text]
    assert _files_holding(database, user_dirs, MARK) == []
