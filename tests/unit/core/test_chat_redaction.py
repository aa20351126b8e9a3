"""A secret typed in the chat is taken out before the message is stored: the
database (its messages, their search index, the file and its WAL), the
conversation's title and the model's prompt hold the placeholder, never the
secret; the turn says what was taken out, so the user can be told why."""

from __future__ import annotations

from pathlib import Path

from desktop.core.chat import ChatService, redaction_notice
from desktop.core.db import ConversationStore, Database
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
