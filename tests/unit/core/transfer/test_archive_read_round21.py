"""Round 21's attacks on reading a Reverie archive: a zip bomb, a named pipe,
and rows holding what no Reverie database holds (an edited or hostile
archive).  Before round 21 the bomb was read whole into memory (a 600 KB
file asked for 600 MB), the pipe hung the import for ever, and the rows
either escaped as a raw Python error (a reference 'abc' or null in a merge, a
text with an escaped lone surrogate ('\\ud800', UnicodeEncodeError; in the
settings, raised after the rows were in), JSON
nested 100,000 deep, an id past SQLite's integers) or were stored and broke
the app afterwards (a conversation's id twice made a merge add both, the
first without its messages): an id sequence at SQLite's last made every new
conversation fail as if the disk were full, a time of 1e300 cannot be shown
as a date."""

from __future__ import annotations

import hashlib
import json
import os
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.conversations import TITLE_LIMIT
from desktop.core.transfer.archive import MANIFEST, SETTINGS, ArchiveRefused, export_archive
from desktop.core.transfer.archive_import import run
from desktop.core.transfer.archive_read import is_archive, read_archive
from desktop.core.transfer.progress import PlainState
from desktop.core.transfer.unpacking import FREE_BYTES
from tests.unit.core.transfer.archive_world import fill, folder, open_folder

Entries = dict[str, bytes]
Row = dict[str, Any]
BOMB_BYTES = FREE_BYTES * 2
"""What the bombs unpack to: past what any zip may, from about 130 KB."""


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("round21")
    world = fill(folder(root / "source"))
    try:
        export_archive(world.database, world.paths, root / "good.zip")
    finally:
        world.database.close()
    return root / "good.zip"


@pytest.fixture
def empty(tmp_path: Path) -> Iterator[Database]:
    database = open_folder(folder(tmp_path / "empty"))
    yield database
    database.close()


@pytest.fixture
def holding(tmp_path: Path) -> Iterator[Database]:
    """A data folder holding a conversation: an archive is merged into it."""
    database = open_folder(folder(tmp_path / "holding"))
    store = ConversationStore(database)
    store.add_message(store.create("Mine").id, "user", "hello")
    yield database
    database.close()


def _entries(path: Path) -> Entries:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(path: Path, entries: Entries, bomb: str | None = None) -> Path:
    """*entries* as a zip; *bomb* names an entry of ``BOMB_BYTES`` newlines
    that the manifest lists with its true checksum."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        if bomb is not None:
            with archive.open(bomb, "w", force_zip64=True) as entry:
                for _ in range(BOMB_BYTES >> 20):
                    entry.write(b"\n" * (1 << 20))
    return path


def _bomb_manifest(entries: Entries, name: str) -> Entries:
    digest = hashlib.sha256()
    for _ in range(BOMB_BYTES >> 20):
        digest.update(b"\n" * (1 << 20))
    manifest = json.loads(entries[MANIFEST])
    manifest["entries"][name] = {"sha256": digest.hexdigest()}
    return entries | {MANIFEST: json.dumps(manifest).encode()}


@pytest.mark.slow
def test_an_archive_listing_a_zip_bomb_is_refused_unread(good: Path, tmp_path: Path) -> None:
    entries = _bomb_manifest(_entries(good), "notes.txt")
    bomb = _write(tmp_path / "bomb.zip", entries, bomb="notes.txt")
    assert bomb.stat().st_size < BOMB_BYTES // 100
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveRefused, match="zip bomb"):
            read_archive(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < BOMB_BYTES // 8


@pytest.mark.slow
def test_a_zip_whose_manifest_is_a_bomb_is_no_archive_and_not_read(
    good: Path, tmp_path: Path
) -> None:
    entries = {n: d for n, d in _entries(good).items() if n != MANIFEST}
    bomb = _write(tmp_path / "bomb.zip", entries, bomb=MANIFEST)
    tracemalloc.start()
    try:
        assert not is_archive(bomb)
        with pytest.raises(ArchiveRefused, match="zip bomb"):
            read_archive(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < BOMB_BYTES // 8


@pytest.mark.timeout(20)
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    pipe = tmp_path / "export.zip"
    os.mkfifo(pipe)
    assert not is_archive(pipe)
    with pytest.raises(ArchiveRefused, match="named pipe"):
        read_archive(pipe)


def _resealed(entries: Entries, table: str, change: Callable[[list[Row]], list[Row]]) -> Entries:
    """*entries* with the rows of *table* changed, its manifest agreeing."""
    name = f"tables/{table}.jsonl"
    rows = change([json.loads(line) for line in entries[name].decode().splitlines()])
    data = "".join(json.dumps(row) + "\n" for row in rows).encode()
    manifest = json.loads(entries[MANIFEST])
    manifest["entries"][name] |= {"sha256": hashlib.sha256(data).hexdigest(), "rows": len(rows)}
    return entries | {name: data, MANIFEST: json.dumps(manifest).encode()}


def _with_sequence(value: int) -> Callable[[Entries], Entries]:
    def change(entries: Entries) -> Entries:
        manifest = json.loads(entries[MANIFEST])
        manifest["sequences"]["conversations"] = value
        return entries | {MANIFEST: json.dumps(manifest).encode()}

    return change


def _lone_conversation(**values: object) -> Callable[[Entries], Entries]:
    """One more conversation, with no messages, holding *values*."""

    def change(entries: Entries) -> Entries:
        return _resealed(
            entries,
            "conversations",
            lambda rows: [*rows, rows[0] | {"id": 900, "title": "Edited in"} | values],
        )

    return change


def _first_message(**values: object) -> Callable[[Entries], Entries]:
    return lambda entries: _resealed(
        entries, "messages", lambda rows: [rows[0] | values, *rows[1:]]
    )


def _settings_unwritable(entries: Entries) -> Entries:
    """Settings the import would write last, after the rows are in."""
    settings = json.loads(entries[SETTINGS]) | {"language": "en\ud800"}
    data = json.dumps(settings).encode()
    manifest = json.loads(entries[MANIFEST])
    manifest["entries"][SETTINGS] = {"sha256": hashlib.sha256(data).hexdigest()}
    return entries | {SETTINGS: data, MANIFEST: json.dumps(manifest).encode()}


def _nested_row(entries: Entries) -> Entries:
    name = "tables/tasks.jsonl"
    data = b"[" * 100_000 + b"\n"
    manifest = json.loads(entries[MANIFEST])
    manifest["entries"][name] |= {"sha256": hashlib.sha256(data).hexdigest(), "rows": 1}
    return entries | {name: data, MANIFEST: json.dumps(manifest).encode()}


SPOILS: list[tuple[str, Callable[[Entries], Entries], str]] = [
    ("the last id sequence", _with_sequence(2**63 - 1), "id sequences"),
    ("the last id", _lone_conversation(id=2**63 - 1), "not an id"),
    ("an id past SQLite's integers", _lone_conversation(id=2**70), "not an id"),
    ("a count past SQLite's integers", _first_message(token_count=2**70), "too large"),
    ("a reference that is text", _first_message(conversation_id="abc"), "not an id"),
    ("a message of no conversation", _first_message(conversation_id=None), "no conversation_id"),
    ("a time of 1e300", _lone_conversation(created_at=1e300), "not a time"),
    ("a time before 1970", _lone_conversation(updated_at=-5e12), "not a time"),
    ("an infinite time", _first_message(created_at=float("inf")), "not a number"),
    ("a time in words", _first_message(created_at="yesterday"), "not a time"),
    ("JSON nested 100,000 deep", _nested_row, "not JSON"),
    ("an id twice", _lone_conversation(id=1), "two rows of the same id"),
    ("a lone surrogate", _first_message(content="Hello \ud800"), "lone surrogate"),
    ("a lone surrogate in the settings", _settings_unwritable, "lone surrogate"),
]


@pytest.mark.parametrize(("spoil", "reason"), [s[1:] for s in SPOILS], ids=[s[0] for s in SPOILS])
@pytest.mark.parametrize("into", ["empty", "holding"])
def test_a_row_no_reverie_holds_is_refused_and_the_app_goes_on(
    good: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    spoil: Callable[[Entries], Entries],
    reason: str,
    into: str,
) -> None:
    database: Database = request.getfixturevalue(into)
    spoiled = _write(tmp_path / "spoiled.zip", spoil(_entries(good)))
    store = ConversationStore(database)
    before = [(c.id, c.title, c.created_at) for c in store.list()]
    with pytest.raises(ArchiveRefused, match=reason):
        run(spoiled, database, folder(tmp_path / into), PlainState())
    assert [(c.id, c.title, c.created_at) for c in store.list()] == before
    assert store.create("After the import").id > 0


@pytest.mark.parametrize("into", ["empty", "holding"])
def test_a_title_edited_to_reorder_the_list_is_stored_as_the_store_would(
    good: Path, tmp_path: Path, request: pytest.FixtureRequest, into: str
) -> None:
    """A title holding a right-to-left override ('cod.exe' shown as
    'exe.doc') is cleaned by the store when typed or imported from
    ChatGPT; an archive's row went past it."""
    database: Database = request.getfixturevalue(into)
    edited = _lone_conversation(title="Invoice \u202ecod.exe")(_entries(good))
    spoiled = _write(tmp_path / "edited.zip", edited)
    paths = folder(tmp_path / into)
    run(spoiled, database, paths, PlainState())
    store = ConversationStore(database)
    assert "Invoice cod.exe" in [c.title for c in store.list()]
    assert not any("\u202e" in c.title for c in store.list())
    again = run(spoiled, database, paths, PlainState())
    assert not any(counts["added"] for counts in again.counts.values())


@pytest.mark.parametrize("into", ["empty", "holding"])
def test_an_archive_s_megabyte_title_is_kept_to_a_title_s_length(
    good: Path, tmp_path: Path, request: pytest.FixtureRequest, into: str
) -> None:
    """Round 22: the store keeps a title to ``TITLE_LIMIT`` characters; an
    edited archive's row went past that too."""
    database: Database = request.getfixturevalue(into)
    edited = _lone_conversation(title="Trip planning " * 80_000)(_entries(good))
    run(_write(tmp_path / "edited.zip", edited), database, folder(tmp_path / into), PlainState())
    titles = [c.title for c in ConversationStore(database).list()]
    assert "Trip planning Trip planning" in " ".join(titles)
    assert max(len(t) for t in titles) <= TITLE_LIMIT
