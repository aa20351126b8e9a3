"""Tests of the skill library: Markdown files in the user's skills folder and
their index, kept in step when files change outside Reverie."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Database
from desktop.core.db.skills import (
    SkillNameTaken,
    SkillNotFound,
    SkillStateError,
    SkillStatus,
    SkillStore,
)
from desktop.core.skills.library import (
    SkillFileError,
    SkillLibrary,
    SkillLine,
    SkillRefused,
    SkippedFile,
    skill_name,
    summary_of,
)

TEA = "# Brew the user's tea\n\n1. Boil water.\n2. Steep green tea for 2 minutes.\n"


@pytest.fixture
def folder(user_dirs: AppPaths) -> Path:
    return user_dirs.skills_dir


@pytest.fixture
def library(database: Database, folder: Path) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), folder)


def _files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def test_a_skill_is_a_markdown_file_whose_first_line_is_its_summary(
    library: SkillLibrary, folder: Path
) -> None:
    skill = library.create("Brew tea", TEA)

    assert (folder / "Brew tea.md").read_text(encoding="utf-8") == TEA
    assert (skill.name, skill.summary, skill.status) == (
        "Brew tea",
        "Brew the user's tea",
        "active",
    )
    assert library.read(skill.id).text == TEA
    assert library.list() == [skill]


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("  Brew   tea ", "Brew tea"),
        ("brew tea.md", "brew tea"),
        ("\uff43\uff4f\uff4f\uff4b \ufb01sh", "cook fish"),  # full-width letters, a ligature
        ("tea\u200btime", "teatime"),  # a zero-width space
        ("Café", "Café"),
    ],
)
def test_names_are_normalised(raw: str, name: str) -> None:
    assert skill_name(raw) == name


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "A skill needs a name."),
        ("../secrets", "cannot contain path separators"),
        ("notes/today", "cannot contain path separators"),
        ("C:\\tea", "cannot contain path separators"),
        ("what?", 'any of < > : " | ? *'),
        (".hidden", "cannot start or end with a dot"),
        ("tea.", "cannot start or end with a dot"),
        ("CON", "reserve for devices"),
        ("lpt1.notes", "reserve for devices"),
        ("tea\x07", "cannot contain path separators"),
        ("x" * 65, "at most 64 characters"),
    ],
)
def test_unsafe_names_are_refused_and_nothing_is_written(
    library: SkillLibrary, folder: Path, raw: str, message: str
) -> None:
    with pytest.raises(SkillRefused) as refused:
        library.create(raw, TEA)

    assert message in str(refused.value)
    assert _files(folder) == []
    assert library.list(statuses=("active", "draft", "deleted")) == []


def test_a_skill_needs_text_with_a_first_line(library: SkillLibrary, folder: Path) -> None:
    with pytest.raises(SkillRefused, match="its first line is the one-line summary"):
        library.create("Empty", "\n  \n#\n")

    assert _files(folder) == []


def test_summaries_drop_heading_marks_and_are_one_short_line() -> None:
    assert summary_of("\n\n## How to bake\nsteps") == "How to bake"
    assert len(summary_of("x" * 500)) == 200


def test_names_are_unique_ignoring_case(library: SkillLibrary, folder: Path) -> None:
    library.create("Brew tea", TEA)

    with pytest.raises(SkillNameTaken, match="There is already a skill called 'Brew tea'"):
        library.create("BREW TEA", "Another way\n")

    assert _files(folder) == ["Brew tea.md"]


def test_an_outside_edit_is_read_and_the_summary_follows(
    library: SkillLibrary, folder: Path
) -> None:
    skill = library.create("Brew tea", TEA)
    (folder / "Brew tea.md").write_text("Brew black tea\nwith milk\n", encoding="utf-8")

    read = library.read(skill.id)

    assert read.text == "Brew black tea\nwith milk\n"
    assert read.skill.summary == "Brew black tea"
    assert library.list()[0].summary == "Brew black tea"


def test_a_file_made_invalid_utf8_outside_is_an_error_and_changes_nothing(
    library: SkillLibrary, folder: Path, store: ConversationStore
) -> None:
    skill = library.create("Brew tea", TEA)
    (folder / "Brew tea.md").write_bytes(b"Brew tea\n\xff\xfe broken")
    conversation = store.create("tea").id

    with pytest.raises(SkillFileError) as problem:
        library.use("Brew tea", conversation)

    assert isinstance(problem.value, EnvironmentProblem)
    assert "is not UTF-8 text (byte 0xff at position 9 is not)" in str(problem.value)
    assert "save it with the UTF-8 encoding" in str(problem.value)
    after = library.store.get(skill.id)
    assert after is not None and (after.summary, after.use_count) == ("Brew the user's tea", 0)
    # Listing still works, and says which file it could not read.
    assert [s.name for s in library.list()] == ["Brew tea"]
    [skipped] = library.last_sync.skipped
    assert skipped.file_name == "Brew tea.md" and "not UTF-8" in skipped.reason


def test_a_file_added_by_hand_appears_and_one_removed_by_hand_goes(
    library: SkillLibrary, folder: Path
) -> None:
    library.create("Brew tea", TEA)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Bake bread.md").write_text("Bake the sourdough\n...", encoding="utf-8")
    (folder / "Brew tea.md").unlink()

    listed = library.list()

    assert [(s.name, s.summary) for s in listed] == [("Bake bread", "Bake the sourdough")]
    assert library.last_sync.added == ("Bake bread",)
    assert library.last_sync.removed == ("Brew tea",)
    assert [s.name for s in library.list(statuses=("deleted",))] == ["Brew tea"]


def test_files_that_cannot_be_skills_are_skipped_with_a_reason(
    library: SkillLibrary, folder: Path
) -> None:
    folder.mkdir(parents=True)
    (folder / "CON.md").write_text("Device\n", encoding="utf-8")
    (folder / "bad.md").write_bytes(b"\xc3\x28")
    (folder / ".hidden.md").write_text("Hidden\n", encoding="utf-8")
    (folder / "notes.txt").write_text("Not markdown\n", encoding="utf-8")

    report = library.sync()

    assert report.added == ()
    assert [s.file_name for s in report.skipped] == ["CON.md", "bad.md"]
    assert report.skipped[0] == SkippedFile(
        "CON.md", "'CON' is a name some systems reserve for devices; choose another."
    )
    assert library.list() == []


def test_a_search_looks_at_names_summaries_and_text(library: SkillLibrary) -> None:
    library.create("Brew tea", TEA)
    library.create("Bake bread", "Bake the sourdough\nFeed the starter the day before.\n")

    assert [s.name for s in library.list("starter")] == ["Bake bread"]
    assert [s.name for s in library.list("BREW")] == ["Brew tea"]
    assert [s.name for s in library.list("green tea")] == ["Brew tea"]
    assert library.list("coffee") == []


def test_a_rename_moves_the_file(library: SkillLibrary, folder: Path) -> None:
    skill = library.create("Brew tea", TEA)
    library.create("Bake bread", "Bake\n")

    renamed = library.rename(skill.id, "Make tea")
    recased = library.rename(skill.id, "make TEA")
    with pytest.raises(SkillNameTaken):
        library.rename(skill.id, "bake BREAD")

    assert (renamed.name, recased.name) == ("Make tea", "make TEA")
    assert _files(folder) == ["Bake bread.md", "make TEA.md"]
    assert library.read(skill.id).text == TEA


def test_delete_keeps_the_file_aside_and_restore_brings_it_back(
    library: SkillLibrary, folder: Path
) -> None:
    skill = library.create("Brew tea", TEA)

    deleted = library.delete(skill.id)
    assert deleted.status == "deleted"
    assert _files(folder) == [".deleted/Brew tea.md"]
    assert library.list() == [] and library.table_of_contents(2000) == []

    restored = library.restore(skill.id)
    assert restored.status == "active"
    assert _files(folder) == ["Brew tea.md"]
    assert library.read(skill.id).text == TEA


def test_a_deleted_name_can_be_taken_again_and_the_deleted_text_goes(
    library: SkillLibrary, folder: Path
) -> None:
    old = library.create("Brew tea", TEA)
    library.store.record_use(old.id, None)
    library.delete(old.id)

    new = library.create("Brew tea", "Brew it stronger\n", replace_deleted=True)
    library.delete(new.id)

    assert (new.id, new.name, new.use_count) == (old.id, "Brew tea", 1)
    # The deleted one can no longer be restored (its row is the new one's),
    # and no erasure would look for its file (round 32).
    assert _files(folder) == [".deleted/Brew tea.md"]
    assert library.read(new.id).text == "Brew it stronger\n"


def test_drafts_wait_aside_until_accepted_or_rejected(library: SkillLibrary, folder: Path) -> None:
    proposed = library.create("Plan the week", "Plan the week on Sunday\n", draft=True)
    rejected = library.create("Nap", "Nap after lunch\n", draft=True)

    assert proposed.status == "draft"
    assert library.list() == [] and library.find("Plan the week") is None
    assert [s.name for s in library.list(statuses=("draft",))] == ["Nap", "Plan the week"]
    assert library.read(proposed.id).text == "Plan the week on Sunday\n"

    assert library.accept(proposed.id).status == "active"
    assert library.reject(rejected.id).status == "deleted"
    with pytest.raises(SkillStateError, match="'Plan the week' is active; this needs a skill"):
        library.accept(proposed.id)

    assert _files(folder) == [".deleted/Nap.md", "Plan the week.md"]
    assert library.restore(rejected.id).status == "active"


def test_using_a_skill_records_the_conversation_and_time(
    library: SkillLibrary, store: ConversationStore
) -> None:
    skill = library.create("Brew tea", TEA)
    conversation = store.create("tea").id

    used = library.use("BREW TEA", conversation)

    assert used.text == TEA
    assert (used.skill.use_count, used.skill.id) == (1, skill.id)
    assert [use.conversation_id for use in library.uses(skill.id)] == [conversation]
    with pytest.raises(SkillNotFound, match="There is no skill 'coffee'"):
        library.use("coffee", conversation)


def test_the_table_of_contents_fits_its_limit_keeping_the_recent_ones(
    library: SkillLibrary, database: Database
) -> None:
    clock = iter(range(1_000, 2_000))
    library.store = SkillStore(database, clock=lambda: float(next(clock)))
    for name in ("alpha", "beta", "gamma", "delta"):
        library.create(name, f"How to do {name}\n")
    library.store.record_use(library.store.list()[0].id, None)  # alpha, used just now

    everything = library.table_of_contents(2_000)
    two_lines = library.table_of_contents(len("- alpha: How to do alpha\n- delta: How to do delta"))

    assert everything == [
        SkillLine("alpha", "How to do alpha"),
        SkillLine("beta", "How to do beta"),
        SkillLine("delta", "How to do delta"),
        SkillLine("gamma", "How to do gamma"),
    ]
    assert two_lines == [
        SkillLine("alpha", "How to do alpha"),
        SkillLine("delta", "How to do delta"),
    ]


class _BrokenIndex(SkillStore):
    """An index whose status writes fail, as on a full disk."""

    def set_status(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        raise EnvironmentProblem("The disk is full.")


def test_a_failed_index_write_moves_the_file_back(
    library: SkillLibrary, folder: Path, database: Database
) -> None:
    skill = library.create("Brew tea", TEA)
    library.store = _BrokenIndex(database)

    with pytest.raises(EnvironmentProblem, match=r"The disk is full\."):
        library.delete(skill.id)

    assert _files(folder) == ["Brew tea.md"]


@pytest.mark.parametrize("status", ["active", "draft"])
def test_update_text_rewrites_the_file_and_the_summary(
    library: SkillLibrary, folder: Path, status: SkillStatus
) -> None:
    skill = library.create("Brew tea", TEA, draft=status == "draft")

    updated = library.update_text(skill.id, "Brew oolong\r\nthree times\r\n")

    assert updated.summary == "Brew oolong"
    assert library.read(skill.id).text == "Brew oolong\nthree times\n"
