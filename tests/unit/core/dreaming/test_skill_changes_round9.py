"""Dream changes to skills cut short or raced: a draft under a deleted
skill's name killed before its row, a draft's write killed before its
rename, a skill's file removed during a condense, and a hand edit saved
while an approval or a pass writes its note."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from desktop.core.db import DreamStore
from desktop.core.dreaming.proposals import ChangeRefused, Proposal
from desktop.core.dreaming.skill_changes import digests
from desktop.core.dreaming.skill_notes import ChangeNotes, Note
from desktop.core.skills.library import file_text
from tests.skill_worlds import SHORT_TEA, TEA, World, open_world

OLD_LEDGER = "Ledger\n1. Old steps.\n2. More.\n"
DRAFT = "Ledger\n1. Gather the quillfern slips.\n2. File them.\n"
USER_EDIT = TEA + "3. The user's own step: add honey.\n"


def _left_by_a_kill(world: World, home: Path, draft_text: str) -> None:
    """What a dream drafting “ledger” leaves when killed after the draft's
    file was written, before its row: the note, and the file alone."""
    run = DreamStore(world.database).start("manual")
    notes = ChangeNotes(world.skills.directory)
    path = notes.new_path()
    note = Note.model_validate(
        {
            "op": "apply",
            "id": path.stem,
            "run": run.id,
            "pass": "skills",
            "drafts": [{"name": "ledger", "text": file_text(draft_text)}],
        }
    )
    notes.release(notes.write(path, note.model_dump(by_alias=True)))
    (home / "skills" / ".drafts").mkdir(exist_ok=True)
    (home / "skills" / ".drafts" / "ledger.md").write_text(file_text(draft_text))


def _holding(home: Path, words: str) -> list[str]:
    return sorted(
        str(p.relative_to(home))
        for p in (home / "skills").rglob("*")
        if p.is_file() and words in p.read_text(errors="replace")
    )


def test_a_draft_under_a_deleted_skills_name_killed_before_its_row_is_taken_back(
    world: World, home: Path
) -> None:
    old = world.skills.create("ledger", OLD_LEDGER)
    world.skills.delete(old.id)
    _left_by_a_kill(world, home, DRAFT)

    reopened = open_world(home)  # the next start settles the note
    try:
        assert _holding(home, "quillfern") == []  # was skills/.drafts/ledger.md, in no index
        deleted = reopened.skills.read(old.id)
        assert (deleted.skill.status, deleted.text) == ("deleted", OLD_LEDGER)
        assert list((home / "skills" / ".changes").iterdir()) == []
    finally:
        reopened.close()


def test_the_leftover_of_a_drafts_write_killed_before_its_rename_goes_at_the_next_start(
    world: World, home: Path
) -> None:
    drafts = home / "skills" / ".drafts"
    drafts.mkdir(parents=True)
    # As write_atomically leaves it when killed after its text reached the disk.
    (drafts / ".ledger.md.k1ll3d.part").write_text(file_text(DRAFT))
    (home / "skills" / ".tea.md.k1ll3d.part").write_text(TEA)

    reopened = open_world(home)
    try:
        assert _holding(home, "quillfern") == []
        assert _holding(home, "kettle") == []
    finally:
        reopened.close()


def test_a_skill_file_removed_during_a_condense_leaves_the_change_waiting_with_its_reason(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    tea = world.skills.create("tea", TEA)
    run = DreamStore(world.database).start("manual")
    read_at = time.time()
    condense = Proposal(
        "skill_rewrite",
        "Condensed “tea”.",
        {"skill": tea.id, "text": SHORT_TEA, "read": digests({tea.id: TEA})},
    )
    world.skills.path(tea).unlink()  # by hand, while the model condensed it

    with caplog.at_level(logging.WARNING):
        applied = world.book.apply_pass(run.id, "skills", [condense], None, read_at)

    assert (applied.applied, applied.left) == (
        0,
        ("skill “tea” was removed since the dream read it",),
    )
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.exc_info, f"#{tea.id}" in r.getMessage()) for r in warnings] == [(None, True)]
    assert DreamStore(world.database).changes(run.id) == []


def test_a_hand_edit_saved_while_an_approval_writes_its_note_is_not_overwritten(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create("tea", TEA)
    run = DreamStore(world.database).start("manual")
    with world.database.transaction() as tx:
        change_id = DreamStore.add_change(
            tx,
            run.id,
            "skills",
            "skill_rewrite",
            "Condensed “tea”.",
            {"skill": tea.id, "text": SHORT_TEA, "read": {}},
            status="pending",
            risky=True,
            now=time.time(),
            before={"skills": {str(tea.id): {"name": "tea", "status": "active", "text": TEA}}},
        )
    real_write = ChangeNotes.write

    def edit_then_write(notes: ChangeNotes, path: Path, note: dict[str, object]) -> int:
        world.skills.update_text(tea.id, USER_EDIT)  # saved in the editor meanwhile
        return real_write(notes, path, note)

    monkeypatch.setattr(ChangeNotes, "write", edit_then_write)

    with pytest.raises(ChangeRefused, match="changed since"):
        world.book.approve(change_id)

    assert world.skills.read(tea.id).text == USER_EDIT
    assert DreamStore(world.database).change(change_id).status == "pending"


def test_a_hand_edit_saved_while_a_pass_writes_its_note_is_not_overwritten(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create("tea", TEA)
    run = DreamStore(world.database).start("manual")
    condense = Proposal(
        "skill_rewrite", "Condensed “tea”.", {"skill": tea.id, "text": SHORT_TEA, "read": {}}
    )
    real_write = ChangeNotes.write

    def edit_then_write(notes: ChangeNotes, path: Path, note: dict[str, object]) -> int:
        world.skills.update_text(tea.id, USER_EDIT)  # saved in the editor meanwhile
        return real_write(notes, path, note)

    monkeypatch.setattr(ChangeNotes, "write", edit_then_write)

    with pytest.raises(ChangeRefused, match="changed since"):
        world.book.apply_pass(run.id, "skills", [condense], None)

    assert world.skills.read(tea.id).text == USER_EDIT
    assert DreamStore(world.database).changes(run.id) == []
