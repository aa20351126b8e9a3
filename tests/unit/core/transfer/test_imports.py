"""One way in: a Reverie archive or a ChatGPT export, told apart by what the
file holds, previewed and imported in sentences the window and the command
line share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.foreign import NotAnExport
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.erasers import eraser_for
from tests.unit.core.transfer.archive_world import World, fill, folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line, write_json


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    world = fill(folder(tmp_path / "source"))
    yield world
    world.database.close()


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[Database, Imports]]:
    paths = folder(tmp_path / "fresh")
    database = open_folder(paths)
    yield database, Imports(database, paths, Redactor())
    database.close()


def test_an_archive_is_restored_whole_and_a_second_time_adds_nothing(
    world: World, fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    archive = export_archive(world.database, world.paths, tmp_path / "all.zip").path
    database, imports = fresh
    plan = imports.preview(archive)
    assert plan.archive and plan.adds
    assert plan.lines[0] == "This is a Reverie archive."
    assert plan.lines[1].startswith("Everything in it would be restored: ")
    assert "conversations" in plan.lines[1] and "memories" in plan.lines[1]
    assert "Its settings would be restored." in plan.lines

    done = imports.run(archive, learn=True, state=PlainState())
    assert done.imported and not done.cancelled
    assert done.lines[0].startswith("Imported ")
    assert len(ConversationStore(database).list()) == len(ConversationStore(world.database).list())

    again = imports.preview(archive)
    assert not again.adds and again.lines[1] == "It would add nothing."
    second = imports.run(archive, learn=True, state=PlainState())
    assert not second.imported and second.lines[0] == "Nothing was imported: it is all here."


def test_a_cancelled_archive_import_says_nothing_was_imported(
    world: World, fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    archive = export_archive(world.database, world.paths, tmp_path / "all.zip").path
    database, imports = fresh
    state = PlainState()
    state.cancel()
    done = imports.run(archive, learn=True, state=state)
    assert (done.imported, done.cancelled) == (False, True)
    assert done.lines == ("Cancelled: nothing was imported.",)
    assert ConversationStore(database).list() == []


def test_a_chatgpt_export_is_previewed_then_imported_and_what_was_skipped_named(
    fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    export = write_json(
        tmp_path / "conversations.json",
        [
            chatgpt_line("a", "Garden", "When do I plant tulips?", "In autumn."),
            chatgpt_line("b", "Only a system message"),
        ],
    )
    database, imports = fresh
    plan = imports.preview(export)
    assert not plan.archive and plan.adds
    assert plan.lines == (
        "This is a ChatGPT export.",
        "It would add 1 conversation (2 messages).",
        "Would be skipped: 1 conversation.",
        "• Only a system message: no message with text",
    )
    done = imports.run(export, learn=False, state=PlainState())
    assert done.imported and done.lines[0].startswith("1 conversation imported from ChatGPT")
    [garden] = ConversationStore(database).list()
    assert garden.title == "Garden" and garden.imported_from == "chatgpt"

    again = imports.run(export, learn=False, state=PlainState())
    assert not again.imported and again.lines[-1] == "Nothing was imported."


def test_a_file_that_is_neither_is_refused_with_the_reason(
    fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"shopping": ["milk"]}', encoding="utf-8")
    _, imports = fresh
    with pytest.raises(NotAnExport, match="not a ChatGPT or Claude export"):
        imports.preview(notes)


def test_a_conversation_erased_for_good_stays_out_when_the_export_is_imported_again(
    tmp_path: Path,
) -> None:
    """Round 21: only erased ids were kept, so the ChatGPT id of an erased
    conversation was unknown and importing the same export again brought it
    back."""
    export = write_json(
        tmp_path / "conversations.json",
        [
            chatgpt_line("a", "Garden", "When do I plant tulips?", "In autumn."),
            chatgpt_line("b", "Health", "My doctor is Dr. Imrie.", "Noted."),
        ],
    )
    paths = folder(tmp_path / "fresh")
    database = open_folder(paths)
    try:
        imports = Imports(database, paths, Redactor())
        assert imports.run(export, learn=False, state=PlainState()).imported
        conversations = ConversationStore(database)
        [health] = [c for c in conversations.list() if c.title == "Health"]
        eraser_for(database, paths).erase_conversations([health.id])

        assert imports.preview(export).lines == (
            "This is a ChatGPT export.",
            "It would add 0 conversations (0 messages).",
            "Already here: 1 conversation.",
            "Would be skipped: 1 conversation.",
            "• Health: imported before and erased for good since",
        )
        again = imports.run(export, learn=False, state=PlainState())
        assert not again.imported
        assert [c.title for c in conversations.list()] == ["Garden"]
        assert database.fetch_one("SELECT 1 FROM messages WHERE content LIKE '%Imrie%'") is None
    finally:
        database.close()
