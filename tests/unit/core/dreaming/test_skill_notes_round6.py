"""Notes of skill changes in flight that are damaged, not files, held by
another process, or left by a pass run twice; drafts taken back."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, DreamStore
from desktop.core.dreaming.proposals import Proposal
from desktop.core.dreaming.skill_changes import SkillChanges
from desktop.core.skills.library import SkillFileError
from tests.erasers import eraser_for
from tests.skill_worlds import (
    COFFEE,
    SHORT_TEA,
    TEA,
    World,
    open_world,
)

NOTE_TEXT = "the secret recipe of aunt Zanzibarella"


def _notes(home: Path) -> Path:
    folder = home / "skills" / ".changes"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _failing_record(*args: Any, **kwargs: Any) -> int:
    raise RuntimeError("killed before the record landed")


STATE = {"name": "tea", "status": "active", "text": "How to brew\nboil\n"}
DAMAGED_NOTES = {
    "empty object": {},
    "apply without run": {"op": "apply"},
    "run not a number": {"op": "apply", "run": "three", "pass": "skills"},
    "unknown op": {"op": "frobnicate", "run": 1, "change": 1},
    "skills a list": {"op": "approve", "run": 1, "change": 9, "pass": "s", "skills": ["12"]},
    "state missing before": {
        "op": "approve",
        "run": 1,
        "change": 9,
        "pass": "s",
        "skills": {"1": {"after": STATE}},
    },
    "skill id not a number": {
        "op": "approve",
        "run": 1,
        "change": 9,
        "pass": "s",
        "skills": {"tea": {"before": STATE, "after": STATE}},
    },
    "drafts a dict": {"op": "approve", "run": 1, "change": 9, "pass": "s", "drafts": {"n": 1}},
    "run is null": {"op": "revert", "run": None, "change": 1, "pass": "s"},
    "run past sqlite": {"op": "revert", "run": 2**70, "change": 1, "pass": "s"},
    "revert naming no change": {"op": "revert", "run": 1, "pass": "s"},
}


@pytest.mark.parametrize("note", DAMAGED_NOTES.values(), ids=list(DAMAGED_NOTES))
def test_a_damaged_note_is_set_aside_and_named_and_the_start_goes_on(
    home: Path, note: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    opened = open_world(home)
    opened.skills.create("tea", "How to brew\nboil\n")
    opened.close()
    path = _notes(home) / "0000.json"
    path.write_text(json.dumps({**note, "words": NOTE_TEXT} if note else note))
    with caplog.at_level(logging.WARNING):
        opened = open_world(home)  # raised KeyError/TypeError/ValueError before
    try:
        assert opened.book.finish_interrupted() == []
        assert not path.exists()
        assert [p.name for p in _notes(home).iterdir()] == ["0000.json.damaged"]
        assert "0000.json" in caplog.text
        assert NOTE_TEXT not in caplog.text
    finally:
        opened.close()


@pytest.mark.parametrize("kind", ["fifo", "device link", "directory", "huge"])
def test_a_note_that_is_not_a_regular_note_file_is_passed_over_not_read(
    home: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    open_world(home).close()
    path = _notes(home) / "a.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device link":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    else:
        with path.open("wb") as file:  # sparse: no disk used
            file.truncate(64 << 20)
    built: list[World] = []
    # Building the book blocked forever on the FIFO before (and read /dev/zero
    # until memory ran out): in a thread, so the test ends either way.
    thread = threading.Thread(target=lambda: built.append(open_world(home)), daemon=True)
    with caplog.at_level(logging.WARNING):
        thread.start()
        thread.join(20)
    assert not thread.is_alive(), "building the change book blocked on the note"
    built[0].close()
    assert not os.path.lexists(path)
    assert "a.json" in caplog.text


def test_a_pass_applied_twice_in_one_run_puts_back_the_second_when_its_record_fails(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create("tea", TEA)
    coffee = world.skills.create("coffee", COFFEE)
    dreams = DreamStore(world.database)
    run = dreams.start("manual")
    world.book.apply_pass(
        run.id,
        "skills",
        [Proposal("skill_rewrite", "c", {"skill": tea.id, "text": SHORT_TEA})],
        None,
    )
    monkeypatch.setattr(DreamStore, "add_change", staticmethod(_failing_record))
    shorter = "How to make coffee\nBrew.\n"
    with pytest.raises(RuntimeError):
        world.book.apply_pass(
            run.id,
            "skills",
            [Proposal("skill_rewrite", "c2", {"skill": coffee.id, "text": shorter})],
            None,
        )
    assert world.skills.read(coffee.id).text == COFFEE  # was kept, with no record
    assert world.skills.read(tea.id).text == SHORT_TEA
    assert list(_notes(world.skills.directory.parent).iterdir()) == []


def test_a_note_held_by_a_live_process_is_not_settled_by_another(world: World, home: Path) -> None:
    tea = world.skills.create("tea", TEA)
    run = DreamStore(world.database).start("manual")
    world.skills.update_text(tea.id, SHORT_TEA)  # the change's file, its record to come
    note = {
        "op": "apply",
        "id": "live",
        "run": run.id,
        "pass": "skills",
        "change": None,
        "skills": {
            str(tea.id): {
                "before": {"name": "tea", "status": "active", "text": TEA},
                "after": {"name": "tea", "status": "active", "text": SHORT_TEA},
            }
        },
        "drafts": [],
    }
    path = _notes(home) / "live.json"
    path.write_text(json.dumps(note))
    holder = os.open(path, os.O_RDONLY)  # its own open file: as another process holds it
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        other = open_world(home)  # as `reverie --check` builds one
        try:
            assert other.book.finish_interrupted() == []
        finally:
            other.close()
        assert path.exists()  # was settled: the skill put back under the running change
        assert world.skills.read(tea.id).text == SHORT_TEA
    finally:
        os.close(holder)
    assert world.book.finish_interrupted() == []  # no one holds it now: settled
    assert not path.exists()
    assert world.skills.read(tea.id).text == TEA


def test_a_draft_taken_back_is_removed_for_good_not_kept_restorable(
    world: World, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversations = ConversationStore(world.database)
    talk = conversations.create("birthday")
    said = conversations.add_message(talk.id, "user", f"Plan a party for {NOTE_TEXT}")
    run = DreamStore(world.database).start("manual")
    draft = Proposal(
        "skill_draft",
        "Proposed",
        {
            "name": "party planning",
            "text": f"How to plan a party\nFor {NOTE_TEXT}.\n",
            "message_ids": [said.id],
            "conversations": [talk.id],
        },
    )
    monkeypatch.setattr(DreamStore, "add_change", staticmethod(_failing_record))
    with pytest.raises(RuntimeError):
        world.book.apply_pass(run.id, "skills", [draft], None)
    holding = [
        p for p in (home / "skills").rglob("*") if p.is_file() and NOTE_TEXT in p.read_text()
    ]
    assert holding == []  # was skills/.deleted/party planning.md, tied to no conversation
    assert world.skills.find("party planning", ("active", "draft", "deleted")) is None


def test_erasing_settles_the_notes_left_so_none_keeps_an_erased_conversations_words(
    world: World, home: Path
) -> None:
    conversations = ConversationStore(world.database)
    talk = conversations.create("birthday")
    conversations.add_message(talk.id, "user", f"Plan a party for {NOTE_TEXT}")
    run = DreamStore(world.database).start("manual")
    text = f"How to plan a party\nFor {NOTE_TEXT}.\n"
    # As a kill leaves it: the draft made, its record not, the note still there.
    world.skills.create("party planning", text, draft=True)
    note = {
        "op": "apply",
        "id": "left",
        "run": run.id,
        "pass": "skills",
        "change": None,
        "skills": {},
        "drafts": [{"name": "party planning", "text": text}],
    }
    (_notes(home) / "left.json").write_text(json.dumps(note))
    paths = AppPaths(home, home / "config", home / "cache")
    eraser_for(world.database, paths).erase_conversations([talk.id])
    holding = [
        p.name for p in (home / "skills").rglob("*") if p.is_file() and NOTE_TEXT in p.read_text()
    ]
    assert holding == []  # the note (and its draft) were left as they were


def test_erasing_removes_the_notes_set_aside_as_damaged(world: World, home: Path) -> None:
    conversations = ConversationStore(world.database)
    talk = conversations.create("birthday")
    (_notes(home) / "cut.json").write_text(json.dumps({"op": "apply", "words": NOTE_TEXT}))
    open_world(home).close()  # set aside at the start
    assert (_notes(home) / "cut.json.damaged").exists()
    paths = AppPaths(home, home / "config", home / "cache")
    eraser_for(world.database, paths).erase_conversations([talk.id])
    assert list(_notes(home).iterdir()) == []


def test_notes_found_with_one_failing_to_settle_are_all_let_go(
    world: World, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = DreamStore(world.database).start("manual")
    for name in ("a", "b"):
        note = {"op": "apply", "id": name, "run": run.id, "pass": "skills"}
        (_notes(home) / f"{name}.json").write_text(json.dumps(note))

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise SkillFileError("The skills folder cannot be read.")

    monkeypatch.setattr(SkillChanges, "put_back", failing)
    with pytest.raises(SkillFileError):
        world.book.finish_interrupted()
    monkeypatch.undo()
    assert world.book.finish_interrupted() == []  # "b" stayed locked by this process
    assert list(_notes(home).iterdir()) == []


def test_a_note_another_process_is_writing_is_not_cleared_as_a_leftover(home: Path) -> None:
    open_world(home).close()
    part = _notes(home) / ".n.json.part"
    part.write_text('{"op": "apply", ')
    writer = os.open(part, os.O_RDONLY)  # its own open file: as the writing process holds it
    try:
        fcntl.flock(writer, fcntl.LOCK_EX)
        open_world(home).close()
        assert part.exists()  # was removed under the process writing it
    finally:
        os.close(writer)
    open_world(home).close()
    assert not part.exists()
