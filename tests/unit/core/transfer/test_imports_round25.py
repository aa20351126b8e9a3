"""Round 25's attacks on importing another assistant's export: numbers no
export writes, and a null before the first conversation.  Before round 25
a ``create_time`` of 400 digits (a whole number too large for a float)
raised ``OverflowError`` out of the import, one of 5,000 digits anywhere in
the file (past Python's limit on reading whole numbers) a ``ValueError``:
the window and ``reverie import`` met a bug, not a sentence.  A list whose
first item is ``null`` was said to hold no conversations at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import START, chatgpt_line, claude, write_zip

LONG_DIGITS = "7" * 5_000
"""A whole number Python refuses to read (``sys.get_int_max_str_digits``, 4,300)."""


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[Database, Imports]]:
    paths = folder(tmp_path / "fresh")
    database = open_folder(paths)
    yield database, Imports(database, paths, Redactor())
    database.close()


def _imported(fresh: tuple[Database, Imports], path: Path) -> list[str]:
    """Import *path* (previewed first, as the window does); the titles stored."""
    database, imports = fresh
    plan = imports.preview(path)
    assert plan.adds, plan.lines
    done = imports.run(path, learn=False, state=PlainState())
    assert done.imported, done.lines
    return [c.title for c in ConversationStore(database).list()]


def test_a_time_too_large_for_a_float_is_no_time(
    fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    soup = chatgpt_line("soup", "Soup", "A recipe for soup?", "Leeks and potatoes.")
    soup["create_time"] = 10**400
    soup["mapping"]["soup-0"]["message"]["create_time"] = -(10**400)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([soup]), encoding="utf-8")

    assert _imported(fresh, path) == ["Soup"]
    stored = ConversationStore(fresh[0]).list()[0]
    # The conversation's own update time stands; the giant ones stand for nothing.
    assert START <= stored.created_at <= START + 20


@pytest.mark.parametrize("where", ["conversation_id", "weight", "uuid"])
def test_a_number_too_long_to_read_costs_only_what_it_stands_for(
    fresh: tuple[Database, Imports], tmp_path: Path, where: str
) -> None:
    if where == "uuid":
        conversation = claude("tea", "Tea", "Green or black?", "Green.")
    else:
        conversation = chatgpt_line("tea", "Tea", "Green or black?", "Green.")
    placeholder = "999999999"
    if where == "weight":
        conversation["mapping"]["tea-0"]["message"]["weight"] = int(placeholder)
    else:
        conversation[where] = int(placeholder)
    text = json.dumps([conversation]).replace(placeholder, LONG_DIGITS)
    path = tmp_path / "conversations.json"
    path.write_text(text, encoding="utf-8")

    assert _imported(fresh, path) == ["Tea"]


def test_a_null_before_the_first_conversation_hides_none_of_them(
    fresh: tuple[Database, Imports], tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(
        json.dumps([None, claude("a", "Bread", "Rye or wheat?", "Rye."), None]), encoding="utf-8"
    )
    assert _imported(fresh, path) == ["Bread"]


@pytest.mark.parametrize("packed", [False, True])
def test_a_manifest_nested_past_reading_only_loses_its_check(
    fresh: tuple[Database, Imports], tmp_path: Path, packed: bool
) -> None:
    """An ``export_manifest.json`` is read only for the shards it names; one
    that cannot be read costs only that check.  Nested 100,000 deep, the
    unpacked export's raised ``RecursionError`` (a bug, not a sentence) and
    the .zip's was refused as damaged."""
    manifest = "[" * 100_000 + "]" * 100_000
    conversations = json.dumps([chatgpt_line("soup", "Soup", "A recipe?", "Leeks.")])
    if packed:
        path = write_zip(
            tmp_path / "export.zip",
            {"conversations.json": conversations, "export_manifest.json": manifest},
        )
    else:
        path = tmp_path / "export"
        path.mkdir()
        (path / "conversations.json").write_text(conversations, encoding="utf-8")
        (path / "export_manifest.json").write_text(manifest, encoding="utf-8")

    assert _imported(fresh, path) == ["Soup"]
