"""A secret typed in the chat is taken out before the message is stored: the
database (its messages, their search index, the file and its WAL), the
conversation's title and the model's prompt hold the placeholder, never the
secret; the turn says what was taken out, so the user can be told why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.base.jobs import JobControl
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database
from desktop.core.db.errors import DiskFull
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.dreaming.secret_sweep import sweep_stored_secrets
from desktop.core.memory.service import MemoryService
from desktop.core.privacy.redaction import redaction_notice
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskRefused, TaskService
from tests.fakes import Recorder, ScriptedChatModel

SECRET = "hunter2"
TYPED = "the wifi password at the cabin is hunter2"
STORED = "the wifi password at the cabin is [redacted password]"


def rows_holding(database: Database, word: str) -> list[str]:
    """Every stored message, and every hit of the message search index, with *word*."""
    contents = database.fetch_all("SELECT content FROM messages")
    stored = [str(row[0]) for row in contents if word in str(row[0])]
    indexed = database.fetch_all(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", (f'"{word}"',)
    )
    return stored + [f"messages_fts row {row[0]}" for row in indexed]


def files_holding(database: Database, word: str) -> list[str]:
    paths = [database.path, Path(f"{database.path}-wal")]
    return [str(p) for p in paths if p.exists() and word.encode() in p.read_bytes()]


def test_a_secret_sent_in_the_chat_is_in_no_row_and_no_prompt(
    chat: ChatService, database: Database, store: ConversationStore, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()

    turn = chat.send(conversation.id, TYPED)
    chat.run(turn, Recorder())

    assert turn.user_message is not None and turn.user_message.content == STORED
    assert turn.redacted == ("password",)
    assert rows_holding(database, SECRET) == []
    assert rows_holding(database, "redacted") != []  # the index holds what was stored
    assert files_holding(database, SECRET) == []
    [(prompt, _)] = model.requests
    assert all(SECRET not in message.content for message in prompt)
    assert any(STORED in message.content for message in prompt)
    renamed = chat.conversation(conversation.id)
    assert renamed is not None and SECRET not in renamed.title


def test_a_message_without_a_secret_is_stored_as_typed(
    chat: ChatService, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()

    turn = chat.send(conversation.id, "I forgot my password again, the key is to stay calm")

    assert turn.redacted == ()
    assert [m.content for m in store.messages(conversation.id)] == [
        "I forgot my password again, the key is to stay calm"
    ]


def test_an_edited_message_is_redacted_too(chat: ChatService, database: Database) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, "what is a good wifi password?")

    turn = chat.edit_last(conversation.id, "hunter2 is my wifi password at the cabin")

    assert turn.redacted == ("password",)
    assert rows_holding(database, SECRET) == []


def test_remember_keeps_its_command_without_the_secret(
    chat: ChatService, database: Database, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()

    remembered = chat.remember(TYPED, conversation.id)

    assert remembered.redactions == ("password",)
    [command] = store.messages(conversation.id)
    assert command.content == f"/remember {STORED}"
    assert rows_holding(database, SECRET) == []
    assert SECRET not in database.fetch_value("SELECT group_concat(content) FROM memories")


def test_the_notice_says_what_was_replaced_and_why() -> None:
    assert redaction_notice(("password",)) == (
        "Reverie replaced a password with [redacted password]: secrets are never stored. "
        "Keep them in a password manager."
    )
    assert redaction_notice(("password", "api key", "password")) == (
        "Reverie replaced a password and an api key with [redacted password] and "
        "[redacted api key]: secrets are never stored. Keep them in a password manager."
    )


def test_a_secret_said_across_messages_is_in_no_row_and_no_prompt(
    chat: ChatService, database: Database, model: ScriptedChatModel
) -> None:
    """Said again later, given as the answer to the model's question, or
    split over two messages: round 4's cross-message leaks."""
    conversation = chat.new_conversation()
    model.queue("Noted.", "What is the new wifi password?", "Noted.", "Noted.")

    for text in (
        "the wifi password is Rep3at3d!pw",
        "hmm, Rep3at3d!pw does not work on the TV",  # said again
        "Answ3r!only9",  # the answer to the model's question
        "my email password is",
        "Spl1t!msg77",  # split over two messages
    ):
        chat.run(chat.send(conversation.id, text), Recorder())

    for secret in ("Rep3at3d!pw", "Answ3r!only9", "Spl1t!msg77"):
        assert rows_holding(database, secret) == []
        assert files_holding(database, secret) == []
        assert all(secret not in m.content for prompt, _ in model.requests for m in prompt)


def test_a_secret_said_again_in_another_conversation_is_taken_out_too(
    chat: ChatService, database: Database, model: ScriptedChatModel
) -> None:
    model.queue("Noted.", "Noted.")
    first, second = chat.new_conversation(), chat.new_conversation()

    chat.run(chat.send(first.id, "the router password is Tw0!convos"), Recorder())
    chat.run(chat.send(second.id, "does Tw0!convos still work?"), Recorder())

    assert rows_holding(database, "Tw0!convos") == []
    assert all("Tw0!convos" not in m.content for prompt, _ in model.requests for m in prompt)


def test_a_message_after_a_question_keeps_its_ordinary_words(chat: ChatService) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, "How do I reset my password?")

    turn = chat.send(conversation.id, "I tried it 3 times at 7:30 today")

    assert turn.user_message is not None
    assert turn.user_message.content == "I tried it 3 times at 7:30 today"


# -- every other place text is stored: one redactor, which remembers ----------
CAUGHT = "Zq8!said1"
"""A value redaction catches only where a credential word names it."""


def _caught_in_chat(chat: ChatService) -> int:
    conversation = chat.new_conversation()
    turn = chat.send(conversation.id, f"the router password is {CAUGHT}")
    assert turn.redacted == ("password",)
    return conversation.id


def test_a_secret_caught_in_chat_is_taken_out_of_a_remember_typed_later(
    chat: ChatService, database: Database, store: ConversationStore
) -> None:
    conversation_id = _caught_in_chat(chat)

    remembered = chat.remember(f"The router still takes {CAUGHT} after the reset", conversation_id)

    assert CAUGHT not in remembered.memory.content
    assert remembered.source is not None and CAUGHT not in remembered.source.content
    assert rows_holding(database, CAUGHT) == []
    assert CAUGHT not in database.fetch_value("SELECT group_concat(content) FROM memories")


def test_a_secret_caught_in_chat_is_taken_out_of_a_memory_edited_later(
    chat: ChatService, memories: MemoryService, database: Database
) -> None:
    remembered = chat.remember("The user has a cat named Rex")
    _caught_in_chat(chat)

    edited = memories.edit(
        remembered.memory.id, f"The cat Rex knows {CAUGHT}", expected=remembered.memory.content
    )

    assert edited.memory.content == "The cat Rex knows [redacted password]"
    assert CAUGHT not in database.fetch_value("SELECT group_concat(content) FROM memories")


def test_tasks_and_routines_are_stored_without_secrets(
    chat: ChatService, task_service: TaskService, database: Database
) -> None:
    _caught_in_chat(chat)

    task = task_service.add("Call the bank about the card, PIN 4822", conversation_id=None)
    routine = task_service.add(
        "Check the router",
        conversation_id=None,
        ai_prompt="Log into the router with the password Ro7!tn55 and report",
    )
    task_service.update(routine.id, text=f"Check the router still takes {CAUGHT}")

    rows = " ".join(
        str(v) for row in database.fetch_all("SELECT text, ai_prompt FROM tasks") for v in row
    )
    assert task.text == "Call the bank about the card, PIN [redacted password]"
    assert "4822" not in rows and "Ro7!tn55" not in rows and CAUGHT not in rows
    with pytest.raises(TaskRefused):  # nothing but the secret is left to do
        task_service.add(f"{CAUGHT}", conversation_id=None)


def test_skills_are_written_without_secrets(chat: ChatService, skill_library: SkillLibrary) -> None:
    _caught_in_chat(chat)

    skill = skill_library.create("router", "Restart the router\nLog in with password Sk1!ll99.\n")
    skill_library.update_text(skill.id, f"Restart the router\nIt takes {CAUGHT} now.\n")

    written = skill_library.path(skill_library.store.get(skill.id) or skill).read_text()
    assert "Sk1!ll99" not in written and CAUGHT not in written
    assert "[redacted password]" in written


def test_a_conversation_renamed_to_a_secret_keeps_the_marker(
    chat: ChatService, database: Database
) -> None:
    conversation_id = _caught_in_chat(chat)

    renamed = chat.rename(conversation_id, f"router {CAUGHT}")

    assert renamed.title == "router [redacted password]"
    assert CAUGHT not in database.fetch_value("SELECT group_concat(title) FROM conversations")


def test_a_summary_the_model_writes_is_stored_without_secrets(
    chat: ChatService, database: Database, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    for i in range(14):
        chat.send(conversation.id, f"message number {i} about the garden and the roses")
    model.queue("The user talked about the garden. The user's wifi password is Co6!mp88.")

    result = chat.compact(conversation.id, JobControl())

    assert result is not None and "Co6!mp88" not in result.summary
    assert "Co6!mp88" not in str(database.fetch_value("SELECT summary FROM conversations"))


def test_a_secret_caught_in_a_task_is_taken_out_of_the_next_message(
    chat: ChatService, task_service: TaskService, database: Database
) -> None:
    task_service.add("Change the router password from Ta5k!pw1", conversation_id=None)
    conversation = chat.new_conversation()

    chat.send(conversation.id, "Ta5k!pw1 did not work")

    assert rows_holding(database, "Ta5k!pw1") == []


def test_a_skill_named_with_a_secret_keeps_the_marker(
    chat: ChatService, skill_library: SkillLibrary, database: Database
) -> None:
    _caught_in_chat(chat)

    made = skill_library.create("router password Sk1!ll99", "Restart the router\n")
    renamed = skill_library.rename(made.id, f"router {CAUGHT}")

    assert "Sk1!ll99" not in made.name and renamed.name == "router [redacted password]"
    names = database.fetch_value("SELECT group_concat(name || file_name) FROM skills")
    assert "Sk1!ll99" not in names and CAUGHT not in names
    assert all(CAUGHT not in p.name for p in skill_library.directory.rglob("*"))


def test_a_skill_file_written_by_hand_keeps_its_secret_out_of_the_database(
    skill_library: SkillLibrary, database: Database
) -> None:
    """The file is the user's own; its summary, stored and in every prompt, is not."""
    skill_library.directory.mkdir(parents=True, exist_ok=True)
    (skill_library.directory / "NAS access.md").write_text("NAS password is Gz2!Wm63\nOpen it.\n")

    skill_library.sync()

    [skill] = skill_library.list()
    assert skill.summary == "NAS password is [redacted password]"
    assert "Gz2!Wm63" not in database.fetch_value("SELECT group_concat(summary) FROM skills")


def test_a_tool_calls_arguments_are_stored_without_a_secret_caught_earlier(
    chat: ChatService, database: Database, model: ScriptedChatModel
) -> None:
    conversation_id = _caught_in_chat(chat)
    call = json.dumps({"name": "task", "arguments": {"action": "add", "text": f"Log in {CAUGHT}"}})
    model.queue(TOOL_CALL_START + call, "Added.")

    chat.run(chat.send(conversation_id, "add a task to change it"), Recorder())

    assert rows_holding(database, CAUGHT) == []
    metadata = database.fetch_value("SELECT group_concat(metadata) FROM messages")
    assert CAUGHT not in metadata and "[redacted password]" in metadata


def test_a_value_sent_alone_goes_from_its_message_once_the_next_one_names_it(
    chat: ChatService, database: Database, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, "Bn5Qt62Wx")

    turn = chat.send(conversation.id, "^ that's my email password")

    assert (turn.redacted, turn.rewrote) == (("password",), 1)
    assert [m.content for m in store.messages(conversation.id)] == [
        "[redacted password]",
        "^ that's my email password",
    ]
    assert rows_holding(database, "Bn5Qt62Wx") == [] and files_holding(database, "Bn5Qt62Wx") == []
    named = chat.conversation(conversation.id)
    assert named is not None and "Bn5Qt62Wx" not in named.title


def test_a_value_typed_before_it_was_named_goes_from_every_message_of_the_conversation(
    chat: ChatService, database: Database, model: ScriptedChatModel
) -> None:
    conversation = chat.new_conversation()
    chat.run(chat.send(conversation.id, "to get into the router type Kd8Rv31Hm"), Recorder())
    chat.run(chat.send(conversation.id, "the router password is Kd8Rv31Hm by the way"), Recorder())
    model.requests.clear()

    chat.run(chat.send(conversation.id, "what else should I secure?"), Recorder())

    assert rows_holding(database, "Kd8Rv31Hm") == []
    assert all("Kd8Rv31Hm" not in m.content for prompt, _ in model.requests for m in prompt)


def test_what_was_said_before_stays_when_this_message_names_nothing_in_it(
    chat: ChatService, store: ConversationStore
) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, "see you at 7:30 by the station")

    turn = chat.send(conversation.id, "my password is Zq8!new5 now")

    assert turn.rewrote == 0
    assert store.messages(conversation.id)[0].content == "see you at 7:30 by the station"


def test_a_memory_made_before_its_value_was_named_loses_it_when_it_is(
    chat: ChatService, memories: MemoryService, database: Database
) -> None:
    # Round 15: "/remember when it asks, type X" keeps X (nothing names it a
    # secret); "X is my NAS password" then took it out of the conversation only.
    # A made-up word: since round 25 a generated password there ("Qz2Fv84Mt")
    # is taken out at once.
    value = "quillhorse"
    conversation = chat.new_conversation()
    remembered = chat.remember(f"when the NAS asks, type {value}", conversation.id)
    assert value in remembered.memory.content  # the wording redaction misses

    chat.send(conversation.id, f"the NAS password is {value}")

    memory = memories.store.get(remembered.memory.id)
    assert memory is not None and memory.content == "when the NAS asks, type [redacted password]"
    everything = database.fetch_value(
        "SELECT group_concat(coalesce(old_content, '') || coalesce(new_content, ''))"
        " FROM memory_history"
    )
    assert value not in everything
    assert (
        database.fetch_all(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", (f'"{value}"',)
        )
        == []
    )
    assert files_holding(database, value) == []


def test_a_message_and_what_it_takes_out_of_the_ones_before_commit_together(
    chat: ChatService,
    memories: MemoryService,
    store: ConversationStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Round 15: stored in one transaction and taken out of the earlier message
    # in another, a kill or a full disk between them kept the value for good.
    conversation = chat.new_conversation()
    chat.send(conversation.id, "Zx8!pre55")
    before = store.messages(conversation.id)

    def full_disk(*_: object, **__: object) -> None:
        raise DiskFull("The disk is full.")

    monkeypatch.setattr(memories.store, "rewrite_holding", full_disk)
    with pytest.raises(DiskFull):
        chat.send(conversation.id, "^ that's my email password")

    assert store.messages(conversation.id) == before  # neither the message nor the rewrite
    monkeypatch.undo()
    chat.send(conversation.id, "^ that's my email password")
    assert all("Zx8!pre55" not in m.content for m in store.messages(conversation.id))


def test_a_rewrite_cut_short_before_its_index_was_swept_is_swept_at_the_next_start(
    store: ConversationStore, database: Database
) -> None:
    conversation = store.create("c")
    store.add_message(conversation.id, "user", "Zx8pre55 is it")
    with store.transaction() as tx:  # as ChatService.send, killed before finish_rewrite
        store.rewrite_conversation(
            conversation.id, ["Zx8pre55"], lambda t: t.replace("Zx8pre55", "[redacted]"), tx
        )
    assert store.sweep_unfinished()

    sweep_stored_secrets(store)

    assert not store.sweep_unfinished()
    assert rows_holding(database, "Zx8pre55") == []
    assert files_holding(database, "Zx8pre55") == []


def test_a_memory_rewritten_in_a_message_s_transaction_is_swept_at_the_next_start(
    store: ConversationStore, memories: MemoryService, database: Database
) -> None:
    # Its search index kept the old words if a kill came before finish_rewrite,
    # and nothing was queued for the next start when no message changed.
    memories.remember(
        "when the NAS asks, type quillhorse", source_kind="user_explicit", actor="user"
    )
    with store.transaction() as tx:  # as ChatService.send, killed before finish_rewrite
        assert memories.take_out(["quillhorse"], tx)
        store.rewrote(tx)
    assert store.sweep_unfinished()

    sweep_stored_secrets(store)

    assert not store.sweep_unfinished()
    assert (
        database.fetch_all(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", ('"quillhorse"',)
        )
        == []
    )
    assert files_holding(database, "quillhorse") == []


def test_a_secret_with_nothing_before_it_to_take_out_sweeps_nothing(
    chat: ChatService, store: ConversationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    swept: list[str] = []
    monkeypatch.setattr(store, "_finish", lambda kinds: swept.extend(kinds))
    conversation = chat.new_conversation()

    chat.send(conversation.id, TYPED)

    assert swept == []
