"""Round 21's attacks on merging archives: a conversation changed between
two imports of the same file.

The same ChatGPT conversation imported on two machines: before round 21 an
archive holding one that the receiving Reverie had imported too, from a
later export where an answer was regenerated or a question edited, was
refused whole: its row broke the database's rule that a source's
conversation is there once ('UNIQUE constraint failed:
conversations.imported_from, conversations.external_id'), so nothing else
of the archive came in either.

The same archive imported again after one of its conversations went on, or
was renamed, here (and an export imported into the Reverie it came from):
before round 21 the conversation came in a second time, since it was
recognised only with the same title and the same messages; a memory edited
here came back beside the edit in its old words, and a task reworded here
came back as a second task (reminding twice)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.db.tasks import TaskStore
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.history import HistoryImporter
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line, write_json


def _import_chatgpt(database: Database, export: Path) -> int:
    result = HistoryImporter(ConversationStore(database), Redactor()).run(
        export, True, PlainState()
    )
    return result.imported[0].conversation_id


def _later_export(*said: str) -> Callable[[Database, Path], None]:
    """Imported from a later ChatGPT export, where the conversation is *said*."""

    def change(database: Database, first: Path) -> None:
        later = write_json(first.with_name("later.json"), [chatgpt_line("c1", "Soup", *said)])
        _import_chatgpt(database, later)

    return change


@pytest.mark.parametrize(
    "changed_there",
    [
        _later_export("hello", "hey, hi!", "soup?", "soup."),  # an answer regenerated
        _later_export("hello again", "hi there"),  # a question edited
    ],
    ids=["regenerated", "edited"],
)
def test_a_chatgpt_conversation_imported_on_both_sides_is_kept_once(
    tmp_path: Path, changed_there: Callable[[Database, Path], None]
) -> None:
    first = write_json(tmp_path / "first.json", [chatgpt_line("c1", "Soup", "hello", "hi there")])
    laptop: AppPaths = folder(tmp_path / "laptop")
    database = open_folder(laptop)
    _import_chatgpt(database, first)
    store = ConversationStore(database)
    store.add_message(store.create("Laptop only").id, "user", "Only said on the laptop.")
    archive = export_archive(database, laptop, tmp_path / "laptop.zip").path
    database.close()

    desktop = folder(tmp_path / "desktop")
    database = open_folder(desktop)
    try:
        store = ConversationStore(database)
        changed_there(database, first)
        kept = {c.id: (c.title, len(store.messages(c.id))) for c in store.list()}

        done = run(archive, database, desktop, PlainState())

        assert done.counts["conversations"] == {"added": 1, "present": 1, "left_out": 0}
        titles = sorted(c.title for c in store.list())
        assert titles == sorted([*(title for title, _ in kept.values()), "Laptop only"])
        assert all(len(store.messages(i)) == count for i, (_, count) in kept.items())
        assert any("yours were kept" in note for note in done.notes)
        again = run(archive, database, desktop, PlainState())
        assert not any(counts["added"] for counts in again.counts.values())
    finally:
        database.close()


def _went_on(store: ConversationStore, conversation: int) -> None:
    store.add_message(conversation, "user", "And buses too.")


def _renamed(store: ConversationStore, conversation: int) -> None:
    store.rename(conversation, "Trains, renamed")


@pytest.mark.parametrize("change", [_went_on, _renamed], ids=["went on", "renamed"])
@pytest.mark.parametrize("into", ["another", "itself"])
def test_an_archive_imported_again_after_a_conversation_changed_adds_nothing(
    tmp_path: Path, change: Callable[[ConversationStore, int], None], into: str
) -> None:
    laptop = folder(tmp_path / "laptop")
    database = open_folder(laptop)
    store = ConversationStore(database)
    trains = store.create("Trains")
    store.add_message(trains.id, "user", "I like trains.")
    store.add_message(trains.id, "assistant", "Trains are great.")
    archive = export_archive(database, laptop, tmp_path / "laptop.zip").path
    if into == "another":
        database.close()
        database = open_folder(folder(tmp_path / "desktop"))
        store = ConversationStore(database)
        store.add_message(store.create("Desktop only").id, "user", "hi")
    paths = folder(tmp_path / ("laptop" if into == "itself" else "desktop"))
    try:
        run(archive, database, paths, PlainState())
        here = next(c.id for c in store.list() if c.title == "Trains")
        change(store, here)
        before = [(c.id, c.title, len(store.messages(c.id))) for c in store.list()]

        again = run(archive, database, paths, PlainState())

        assert not any(counts["added"] for counts in again.counts.values())
        assert again.counts["conversations"]["present"] == 1
        assert [(c.id, c.title, len(store.messages(c.id))) for c in store.list()] == before
    finally:
        database.close()


def test_two_imports_of_one_archive_at_once_add_it_once(tmp_path: Path) -> None:
    """The app's import and 'reverie import' of the same archive, each with
    its connection: the second runs whole between the first's plan and its
    writing (before round 21, 400 conversations came in 801 times with one
    of the receiving folder's own, in two processes started together)."""
    laptop = folder(tmp_path / "laptop")
    database = open_folder(laptop)
    store = ConversationStore(database)
    for number in range(3):
        store.add_message(store.create(f"Laptop {number}").id, "user", f"Said {number}.")
    archive = export_archive(database, laptop, tmp_path / "laptop.zip").path
    database.close()
    desktop = folder(tmp_path / "desktop")
    app, command_line = open_folder(desktop), open_folder(desktop)
    try:
        store = ConversationStore(app)
        store.add_message(store.create("Desktop only").id, "user", "hi")
        raced: list[bool] = []

        def the_other_import(done: int, total: int) -> None:
            if not raced:  # once, before the first import's transaction
                raced.append(True)
                run(archive, command_line, desktop, PlainState())

        first = run(archive, app, desktop, PlainState(the_other_import))

        assert raced
        assert sorted(c.title for c in store.list()) == [
            "Desktop only", "Laptop 0", "Laptop 1", "Laptop 2"
        ]  # fmt: skip
        assert first.counts["conversations"] == {"added": 0, "present": 3, "left_out": 0}
    finally:
        app.close()
        command_line.close()


@pytest.mark.parametrize("into", ["another", "itself"])
def test_an_archive_imported_again_after_a_memory_was_edited_adds_nothing(
    tmp_path: Path, into: str
) -> None:
    laptop = folder(tmp_path / "laptop")
    database = open_folder(laptop)
    MemoryStore(database).add(
        "Likes green tea.", embedding=None, source_kind="user_explicit", actor="user"
    )
    archive = export_archive(database, laptop, tmp_path / "laptop.zip").path
    if into == "another":
        database.close()
        database = open_folder(folder(tmp_path / "desktop"))
        ConversationStore(database).create("Desktop only")
    paths = folder(tmp_path / ("laptop" if into == "itself" else "desktop"))
    memories = MemoryStore(database)
    try:
        run(archive, database, paths, PlainState())
        [tea] = memories.listed()
        memories.update_content(tea.id, "Likes green tea, no sugar.", None, "user")

        again = run(archive, database, paths, PlainState())

        assert again.counts["memories"] == {"added": 0, "present": 1, "left_out": 0}
        assert [m.content for m in memories.listed()] == ["Likes green tea, no sugar."]
    finally:
        database.close()


def test_an_archive_imported_again_after_a_task_was_reworded_adds_nothing(
    tmp_path: Path,
) -> None:
    paths = folder(tmp_path / "laptop")
    database = open_folder(paths)
    tasks = TaskStore(database)
    tea = tasks.add("Buy tea", conversation_id=None)
    tasks.add("Call Ana", conversation_id=None)
    archive = export_archive(database, paths, tmp_path / "laptop.zip").path
    tasks.update(tea.id, text="Buy green tea")
    try:
        again = run(archive, database, paths, PlainState())

        assert again.counts["tasks"] == {"added": 0, "present": 2, "left_out": 0}
        assert sorted(t.text for t in tasks.list()) == ["Buy green tea", "Call Ana"]
    finally:
        database.close()
