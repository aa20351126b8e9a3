"""Round 30: a name made only of what shows nothing.  A conversation's
title or a skill's name made of combining marks with no letter under them,
a blank braille cell or a Hangul filler was kept, and the list showed an
empty row (a title made of zero-width spaces, bidi controls or tag
characters was kept empty by the store, and an imported one too).  A title
that shows nothing now falls back to the default (or, imported, to its
first message); such a skill name is refused with a message saying why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.base.text import shows_nothing
from desktop.core.chat.service import NEW_CONVERSATION_TITLE, ChatService, MessageRefused
from desktop.core.db import ConversationStore
from desktop.core.privacy.redaction import Redactor
from desktop.core.skills.library import SkillLibrary, SkillRefused
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import folder, open_folder
from tests.unit.core.transfer.exports import chatgpt_line

NOTHING_SHOWN = [
    "\u0301\u0302\u0303",  # combining marks with no letter
    "\u0301 \u0308",
    "\u200b\u200d",  # zero-width
    "\u202e\u2066\u200f",  # bidi controls
    "\U000e0041\U000e0042\U000e007f",  # tag characters
    "\u2800\u2800",  # blank braille cells
    "\u3164",  # a Hangul filler
    "\ufe0f\u034f",  # a variation selector, the combining grapheme joiner
]


@pytest.mark.parametrize("name", NOTHING_SHOWN)
def test_each_shows_nothing(name: str) -> None:
    assert shows_nothing(name)


@pytest.mark.parametrize("name", ["e\u0301", "\u05e9", "\u4e2d", "\U0001f600", "\u00b7"])
def test_a_letter_a_mark_sits_on_another_script_an_emoji_or_a_dot_shows(name: str) -> None:
    assert not shows_nothing(name)


@pytest.mark.parametrize("name", NOTHING_SHOWN)
def test_a_rename_to_nothing_shown_keeps_the_default_title(
    chat: ChatService, store: ConversationStore, name: str
) -> None:
    conversation = chat.new_conversation()
    chat.send(conversation.id, "What should I cook?")

    renamed = chat.rename(conversation.id, name)

    assert renamed.title == NEW_CONVERSATION_TITLE


@pytest.mark.parametrize("name", NOTHING_SHOWN)
def test_a_first_line_of_nothing_shown_names_the_conversation_by_the_next(
    chat: ChatService, store: ConversationStore, name: str
) -> None:
    conversation = chat.new_conversation()

    chat.send(conversation.id, f"{name}\nWhat should I cook?")

    stored = store.get(conversation.id)
    assert stored is not None and stored.title == "What should I cook?"


@pytest.mark.parametrize("name", NOTHING_SHOWN)
def test_a_store_keeps_no_title_of_nothing_shown(store: ConversationStore, name: str) -> None:
    assert store.create(name).title == ""
    assert store.rename(store.create("Trip").id, name).title == ""


@pytest.mark.parametrize("name", NOTHING_SHOWN)
def test_a_skill_named_with_nothing_shown_is_refused_saying_why(
    skill_library: SkillLibrary, name: str
) -> None:
    with pytest.raises(SkillRefused, match="shows nothing"):
        skill_library.create(name, "Fold a flag\n1. Twice.")
    kept = skill_library.create("Flag", "Fold a flag\n1. Twice.")
    with pytest.raises(SkillRefused, match="shows nothing"):
        skill_library.rename(kept.id, name)

    assert [s.name for s in skill_library.list()] == ["Flag"]


def test_an_imported_title_of_nothing_shown_is_named_by_its_first_message(
    tmp_path: Path,
) -> None:
    paths = folder(tmp_path / "data")
    database = open_folder(paths)
    try:
        export = tmp_path / "conversations.json"
        lines = [
            chatgpt_line(f"c{n}", name, "Plan a trip", "Sure")
            for n, name in enumerate(NOTHING_SHOWN)
        ]
        export.write_text(json.dumps(lines))
        Imports(database, paths, Redactor()).run(export, learn=False, state=PlainState())
        titles = [c.title for c in ConversationStore(database).list()]
    finally:
        database.close()

    assert titles == ["Plan a trip"] * len(NOTHING_SHOWN)


@pytest.mark.parametrize("said", NOTHING_SHOWN)
def test_a_message_that_shows_nothing_is_refused_and_nothing_is_stored(
    chat: ChatService, store: ConversationStore, said: str
) -> None:
    conversation = chat.new_conversation()

    with pytest.raises(MessageRefused, match="nothing to send"):
        chat.send(conversation.id, said)

    assert store.messages(conversation.id) == []
