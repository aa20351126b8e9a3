"""Tests of ``SkillStore``: the index of skill files, names unique ignoring
case in any script, statuses, and usage."""

from __future__ import annotations

import pytest

from desktop.core.db import ConversationStore, Database
from desktop.core.db.skills import (
    Skill,
    SkillNameTaken,
    SkillNotFound,
    SkillStateError,
    SkillStore,
    SkillUse,
)
from tests.unit.core.db.conftest import START, FakeClock


@pytest.fixture
def skills(db: Database, clock: FakeClock) -> SkillStore:
    return SkillStore(db, clock=clock)


def test_a_skill_is_indexed_with_no_uses_yet(skills: SkillStore) -> None:
    skill = skills.add("Brew tea", "How the user likes their tea.", "Brew tea.md", "active")

    assert skill == Skill(
        id=skill.id,
        name="Brew tea",
        summary="How the user likes their tea.",
        file_name="Brew tea.md",
        status="active",
        created_at=START,
        updated_at=START,
        use_count=0,
        last_used_at=None,
    )
    assert skills.get(skill.id) == skill
    assert skills.get(999) is None


@pytest.mark.parametrize(
    ("first", "second"), [("Brew tea", "brew TEA"), ("Ärger", "äRGER"), ("Straße", "STRASSE")]
)
def test_names_are_unique_ignoring_case_in_any_script(
    skills: SkillStore, first: str, second: str
) -> None:
    kept = skills.add(first, "", f"{first}.md", "active")

    with pytest.raises(SkillNameTaken, match=f"There is already a skill called '{first}'"):
        skills.add(second, "", f"{second}.md", "active")

    assert skills.find(second) == kept
    assert skills.list() == [kept]


def test_a_deleted_skill_still_holds_its_name_and_says_so(skills: SkillStore) -> None:
    old = skills.add("Brew tea", "", "Brew tea.md", "deleted")

    with pytest.raises(SkillNameTaken, match=r"'Brew tea' \(deleted\); choose another name"):
        skills.add("brew tea", "", "brew tea.md", "active")

    revived = skills.revive(old.id, "brew tea", "New way", "brew tea.md", "active")
    assert (revived.id, revived.name, revived.status) == (old.id, "brew tea", "active")
    with pytest.raises(SkillStateError):
        skills.revive(old.id, "brew tea", "", "brew tea.md", "active")  # not deleted now


def test_skills_are_listed_by_name_and_status(skills: SkillStore) -> None:
    tea = skills.add("tea", "", "tea.md", "active")
    bread = skills.add("Bread", "", "Bread.md", "active")
    draft = skills.add("Soup", "", "Soup.md", "draft")

    assert skills.list() == [bread, tea]
    assert skills.list(("draft",)) == [draft]
    assert skills.list(()) == []


def test_a_rename_to_another_skills_name_is_refused(skills: SkillStore, clock: FakeClock) -> None:
    tea = skills.add("tea", "", "tea.md", "active")
    skills.add("bread", "", "bread.md", "active")
    clock.advance(5)

    with pytest.raises(SkillNameTaken):
        skills.update(tea.id, name="BREAD", file_name="BREAD.md")
    renamed = skills.update(tea.id, name="Tea", file_name="Tea.md", summary="Hot.")

    assert (renamed.name, renamed.file_name, renamed.summary) == ("Tea", "Tea.md", "Hot.")
    assert renamed.updated_at == START + 5
    with pytest.raises(SkillNotFound, match="There is no skill #42"):
        skills.update(42, summary="x")


def test_status_moves_only_from_the_statuses_given(skills: SkillStore) -> None:
    draft = skills.add("Soup", "", "Soup.md", "draft")

    accepted = skills.set_status(draft.id, "active", from_statuses=("draft",))
    with pytest.raises(SkillStateError, match="is active; this needs a skill that is draft"):
        skills.set_status(draft.id, "deleted", from_statuses=("draft",))

    assert accepted.status == "active"
    assert skills.get(draft.id) == accepted


def test_uses_are_counted_with_their_conversation_and_time(
    skills: SkillStore, conversations: ConversationStore, clock: FakeClock, db: Database
) -> None:
    tea = skills.add("tea", "", "tea.md", "active")
    conversation = conversations.create("tea talk").id

    skills.record_use(tea.id, conversation)
    clock.advance(60)
    skills.record_use(tea.id, None)

    used = skills.get(tea.id)
    assert used is not None and (used.use_count, used.last_used_at) == (2, START + 60)
    assert skills.uses(tea.id) == [
        SkillUse(tea.id, None, START + 60),
        SkillUse(tea.id, conversation, START),
    ]
    # A use outlives the conversation it was in.
    with db.transaction() as tx:
        tx.execute("DELETE FROM conversations WHERE id = ?", (conversation,))
    assert [use.conversation_id for use in skills.uses(tea.id)] == [None, None]
