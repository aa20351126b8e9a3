"""Importing a history into a real database: the preview, whole
conversations only, nothing twice, no secret stored, times kept, and the
harvest told whether to learn from them."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from pathlib import Path

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redacted, Redactor
from desktop.core.transfer.foreign import ExportRefused, NotAnExport
from desktop.core.transfer.history import ALREADY_THERE, HistoryImporter
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.exports import START, chatgpt_line, claude, write_json, write_zip

NOW = 1_800_000_000.0


@pytest.fixture
def importer(store: ConversationStore, redactor: Redactor) -> HistoryImporter:
    return HistoryImporter(store, redactor, clock=lambda: NOW)


def _export(tmp_path: Path, count: int = 3) -> Path:
    conversations: list[object] = [
        chatgpt_line(f"g{i}", f"Garden {i}", f"question {i}", f"answer {i}", start=START + i)
        for i in range(count)
    ]
    conversations.append(chatgpt_line("empty", "Only a system message"))
    return write_json(tmp_path / "conversations.json", conversations)


def _snapshot(database: Database) -> list[tuple[object, ...]]:
    rows = database.fetch_all("SELECT * FROM conversations")
    messages = database.fetch_all("SELECT * FROM messages")
    return [tuple(r) for r in rows] + [tuple(m) for m in messages]


def test_the_preview_says_what_is_new_there_and_skipped(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    path = _export(tmp_path)
    preview = importer.preview(path)
    assert (preview.source, preview.source_name) == ("chatgpt", "ChatGPT")
    assert [p.external_id for p in preview.new] == ["g0", "g1", "g2"]
    assert preview.new_messages == 6
    assert [(s.title, s.reason) for s in preview.skipped] == [
        ("Only a system message", "no message with text")
    ]
    assert store.list() == []  # a preview stores nothing
    importer.run(path, learn=True, state=PlainState())
    again = importer.preview(path)
    assert again.new == ()
    assert [(s.external_id, s.reason) for s in again.already] == [
        ("g0", ALREADY_THERE),
        ("g1", ALREADY_THERE),
        ("g2", ALREADY_THERE),
    ]


def test_imported_conversations_keep_their_times_and_are_listed_and_found(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    progress: list[tuple[int, int]] = []
    result = importer.run(
        _export(tmp_path), learn=True, state=PlainState(lambda *p: progress.append(p))
    )
    assert result.succeeded and not result.failed and not result.cancelled
    assert [i.title for i in result.imported] == ["Garden 0", "Garden 1", "Garden 2"]
    assert [s.reason for s in result.skipped] == ["no message with text"]
    assert progress == [(0, 3), (1, 3), (2, 3), (3, 3)]
    listed = store.list()
    assert [c.title for c in listed] == ["Garden 2", "Garden 1", "Garden 0"]  # by their own times
    first = next(c for c in listed if c.external_id == "g0")
    assert (first.imported_from, first.created_at, first.updated_at) == (
        "chatgpt",
        START,
        START + 20,
    )
    messages = store.messages(first.id)
    assert [(m.role, m.content, m.created_at) for m in messages] == [
        ("user", "question 0", START),
        ("assistant", "answer 0", START + 10),
    ]
    assert messages[0].metadata == {"external_id": "g0-0"}
    assert [c.external_id for c in store.search("question")] == ["g2", "g1", "g0"]
    assert [c.external_id for c in store.search("Garden 1")] == ["g1"]


def test_importing_the_same_file_twice_adds_nothing(
    tmp_path: Path, importer: HistoryImporter, database: Database
) -> None:
    path = _export(tmp_path)
    assert importer.run(path, learn=True, state=PlainState()).succeeded
    before = _snapshot(database)
    again = importer.run(path, learn=True, state=PlainState())
    assert not again.succeeded and again.imported == ()
    assert [s.reason for s in again.skipped].count(ALREADY_THERE) == 3
    assert "0 conversations imported" in again.summary()
    assert _snapshot(database) == before


def test_a_conversation_twice_in_one_export_is_imported_once(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    twice = chatgpt_line("g1", "t", "hello", "hi")
    result = importer.run(write_json(tmp_path / "c.json", [twice, twice]), True, PlainState())
    assert len(result.imported) == 1
    assert [s.reason for s in result.skipped] == ["it is twice in the export"]
    assert len(store.list()) == 1


def test_a_truncated_file_is_refused_and_changes_nothing(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore, database: Database
) -> None:
    store.create("mine")
    before = _snapshot(database)
    path = tmp_path / "conversations.json"
    text = json.dumps([chatgpt_line(f"g{i}", "t", "hello", "hi") for i in range(10)])
    path.write_text(text[: len(text) - 200], encoding="utf-8")
    with pytest.raises(ExportRefused, match="damaged or cut short"):
        importer.run(path, learn=True, state=PlainState())
    assert _snapshot(database) == before


def test_a_zip_damaged_inside_is_refused_and_changes_nothing(
    tmp_path: Path, importer: HistoryImporter, database: Database
) -> None:
    conversations = [claude(f"c{i}", "t", "hello " * 200, "hi") for i in range(20)]
    path = write_zip(tmp_path / "export.zip", {"conversations.json": conversations})
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("conversations.json")
    middle = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    data[middle : middle + 8] = b"\x00" * 8
    path.write_bytes(bytes(data))
    with pytest.raises(ExportRefused):
        importer.run(path, learn=True, state=PlainState())
    assert _snapshot(database) == []


def test_an_unknown_file_is_refused_clearly(tmp_path: Path, importer: HistoryImporter) -> None:
    path = tmp_path / "notes.json"
    path.write_text(json.dumps({"archive": "reverie"}), encoding="utf-8")
    with pytest.raises(NotAnExport, match="not a ChatGPT or Claude export"):
        importer.preview(path)


class _CancelAfter(PlainState):
    """Cancels once *count* conversations are imported (a user pressing
    Stop while the next one would start)."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self._count = count

    def set_progress(self, done: int, total: int) -> None:
        if done >= self._count:
            self.cancel()


def test_a_cancel_leaves_only_whole_conversations(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    result = importer.run(_export(tmp_path, count=5), learn=True, state=_CancelAfter(2))
    assert result.cancelled and result.succeeded
    assert [i.title for i in result.imported] == ["Garden 0", "Garden 1"]
    assert "cancelled" in result.summary()
    stored = store.list()
    assert len(stored) == 2
    assert all(len(store.messages(c.id)) == 2 for c in stored)
    rest = importer.run(_export(tmp_path, count=5), learn=True, state=PlainState())
    assert [i.title for i in rest.imported] == ["Garden 2", "Garden 3", "Garden 4"]


class _StopWhileRead(Redactor):
    """A redactor that has the user press Stop as it reads the third of a
    conversation's messages of the user (a long conversation's minutes)."""

    def __init__(self, state: PlainState) -> None:
        super().__init__()
        self._state = state
        self.read = 0

    def __call__(self, text: str, *, after: Iterable[str] = ()) -> Redacted:
        self.read += 1
        if self.read == 3:
            self._state.cancel()
        return super().__call__(text, after=after)


def test_a_cancel_stops_within_a_long_conversation_and_keeps_none_of_it(
    tmp_path: Path, store: ConversationStore
) -> None:
    said = [f"line {i} of the long talk" for i in range(400)]
    path = write_json(tmp_path / "conversations.json", [chatgpt_line("long", "Long", *said)])
    state = PlainState()
    redactor = _StopWhileRead(state)
    result = HistoryImporter(store, redactor, clock=lambda: NOW).run(path, learn=True, state=state)
    assert result.cancelled and not result.succeeded
    assert "cancelled" in result.summary()
    assert redactor.read == 3  # not the other 197 of the user's messages
    assert store.list() == []
    again = HistoryImporter(store, Redactor(), clock=lambda: NOW).run(path, True, PlainState())
    assert [i.messages for i in again.imported] == [400]  # a later import brings it whole


def test_a_cancel_while_the_file_is_read_imports_nothing(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    state = PlainState()
    state.cancel()
    result = importer.run(_export(tmp_path), learn=True, state=state)
    assert result.cancelled and not result.succeeded
    assert store.list() == []


def test_a_secret_in_an_imported_message_is_not_stored(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore, database: Database
) -> None:
    path = write_json(
        tmp_path / "conversations.json",
        [
            chatgpt_line("g1", "Wifi", "my wifi password is hunter2", "Noted."),
            claude("c1", "Later", "what is the code?", "Which one?", "Zx8!pre55q", "OK"),
        ],
    )
    assert importer.run(path, learn=True, state=PlainState()).succeeded
    texts = [row[0] for row in database.fetch_all("SELECT content FROM messages")]
    assert "my wifi password is [redacted password]" in texts
    assert not any("hunter2" in text for text in texts)
    assert store.search("hunter2") == []


def test_a_secret_named_later_is_taken_out_of_what_came_before(
    tmp_path: Path, importer: HistoryImporter, database: Database
) -> None:
    said = ("remember Zx8!pre55q for me", "Sure.", "^ that's my email password", "Got it.")
    path = write_json(tmp_path / "conversations.json", [chatgpt_line("g1", "t", *said)])
    importer.run(path, learn=True, state=PlainState())
    texts = [row[0] for row in database.fetch_all("SELECT content FROM messages")]
    assert not any("Zx8!pre55q" in text for text in texts)
    assert all(row[0] == 1 for row in database.fetch_all("SELECT secrets_checked FROM messages"))


def test_without_learning_the_harvest_never_reads_them(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    result = importer.run(_export(tmp_path), learn=False, state=PlainState())
    assert "will not learn" in result.summary()
    assert store.harvest_backlog() == []
    for conversation in store.list():
        last = store.messages(conversation.id)[-1]
        assert conversation.harvested_through_message_id == last.id


def test_with_learning_the_harvest_reads_them_as_any_conversation(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    importer.run(_export(tmp_path), learn=True, state=PlainState())
    backlog = store.harvest_backlog()
    assert len(backlog) == 3
    assert all(b.new_user_messages == 1 for b in backlog)


def test_untitled_and_timeless_conversations_get_a_title_and_now(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    untitled = chatgpt_line(
        "g1", None, "a first line that is rather long, longer than titles are\nmore", "ok"
    )
    timeless = claude(None, None, "hello there", "hi")
    timeless["created_at"] = timeless["updated_at"] = None
    for message in timeless["chat_messages"]:
        message["created_at"] = None
    empty_title = chatgpt_line("g2", "  ", "my wifi password is hunter2", "ok")
    path = write_json(tmp_path / "c.json", [untitled, empty_title])
    importer.run(path, learn=True, state=PlainState())
    titles = sorted(c.title for c in store.list())
    assert titles == [
        "a first line that is rather long, longer than ti…",
        "my wifi password is [redacted password]",
    ]
    importer.run(write_json(tmp_path / "d.json", [timeless]), learn=True, state=PlainState())
    (claude_one,) = [c for c in store.list() if c.imported_from == "claude"]
    assert (claude_one.title, claude_one.created_at, claude_one.updated_at) == (
        "hello there",
        NOW,
        NOW,
    )
    assert claude_one.external_id is not None and claude_one.external_id.startswith("sha256:")
    assert [m.created_at for m in store.messages(claude_one.id)] == [NOW, NOW]


def test_odd_unicode_round_trips_into_the_store(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore
) -> None:
    said = "\u202eevil\u202c \u200f\u05e9\u05dc\u05d5\u05dd 😀👩‍👩‍👧 \ud83d lone\x00nul"
    path = write_json(tmp_path / "c.json", [claude("c1", "Ünïcödé \ud800", said, "ok")])
    importer.run(path, learn=True, state=PlainState())
    (conversation,) = store.list()
    assert conversation.title == "Ünïcödé \ufffd"
    stored = store.messages(conversation.id)[0].content
    assert stored == "\u202eevil\u202c \u200f\u05e9\u05dc\u05d5\u05dd 😀👩‍👩‍👧 \ufffd lonenul"
    assert [c.id for c in store.search("שלום")] == [conversation.id]


def test_a_conversation_that_cannot_be_stored_leaves_nothing_and_the_rest_goes_on(
    tmp_path: Path, importer: HistoryImporter, store: ConversationStore, database: Database
) -> None:
    with database.transaction() as tx:  # the database refuses one message half way
        tx.execute(
            "CREATE TEMP TRIGGER refuse BEFORE INSERT ON messages WHEN new.content = 'boom'"
            " BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    path = write_json(
        tmp_path / "c.json",
        [
            chatgpt_line("g1", "Fine", "hello", "hi"),
            chatgpt_line("g2", "Broken", "first", "boom", "never"),
            chatgpt_line("g3", "Also fine", "bye", "ciao"),
        ],
    )
    result = importer.run(path, learn=True, state=PlainState())
    assert [i.title for i in result.imported] == ["Fine", "Also fine"]
    assert [(f.title, "refused" in f.reason) for f in result.failed] == [("Broken", True)]
    assert sorted(c.title for c in store.list()) == ["Also fine", "Fine"]
    assert database.fetch_value("SELECT count(*) FROM messages WHERE content = 'first'") == 0
    assert "1 failed" in result.summary()
