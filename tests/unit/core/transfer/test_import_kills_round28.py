"""Round 28: an import killed anywhere, then run again at the next start,
holds everything of its file once.

A child process (``import_child``) imports a Reverie archive, or a ChatGPT
export, into a fresh data folder and kills itself (SIGKILL) just before one
of its SQL statements: inside its transaction, just before a COMMIT, just
after one.  The folder is then opened, checked (SQLite's integrity check,
no rollback journal left) and the same file imported again, as the user
would; what it holds must be what one import that was never killed holds:
every conversation, message, memory, task and skill once, each skill with
its file, the archive's settings restored.  The archive's skills were
written after its transaction's commit: a kill between left their rows
without files, which the next look at the folder moved to the bin, and the
file could not be imported again ("The skill file ... could not be read").  A skill in the
bin whose file was removed by hand stopped an archive naming it the same.
"""

from __future__ import annotations

import random
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.base.settings import load_settings
from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.imports import Imports
from desktop.core.transfer.progress import PlainState
from tests.children import Heard, heard, run_child
from tests.unit.core.transfer.archive_world import fill, folder, library, open_folder
from tests.unit.core.transfer.exports import chatgpt_line, write_json

KILLS = 10
CHILD = "tests.unit.core.transfer.import_child"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("archive-kill")
    world = fill(folder(root / "source"))
    try:
        yield export_archive(world.database, world.paths, root / "all.reverie.zip").path
    finally:
        world.database.close()


@pytest.fixture(scope="module")
def chatgpt_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chatgpt-kill")
    said = [
        chatgpt_line(f"c{n}", f"Talk {n}", f"Question {n}?", f"Answer {n}.", f"Thanks {n}.")
        for n in range(6)
    ]
    return write_json(root / "conversations.json", said)


def _held(database: Database, root: Path) -> dict[str, object]:
    """What the data folder under *root* holds of the user's, as multisets."""
    paths = folder(root)
    skills = library(database, paths)

    def counted(sql: str) -> Counter[tuple[object, ...]]:
        return Counter(tuple(row) for row in database.fetch_all(sql))

    settings, _ = load_settings(paths.settings_file)
    return {
        "conversations": counted("SELECT title, deleted_at IS NULL FROM conversations"),
        "messages": counted("SELECT role, content FROM messages"),
        "memories": counted("SELECT content, status FROM memories"),
        "tasks": counted("SELECT text, status FROM tasks"),
        "skills": {
            skill.name: (skill.status, skills.read(skill.id).text)
            for skill in skills.list(statuses=("active", "draft", "deleted"))
        },
        "max_reply_tokens": settings.models.max_reply_tokens,
    }


def _kill_points(counts: Heard, chance: random.Random) -> list[str]:
    """Just before each COMMIT and just after it returned, then before others
    inside a transaction and anywhere, *KILLS* in all (or more, for many commits)."""
    commits = [f"{commit}{after}" for commit in counts.commits for after in ("", "+")]
    inside = sorted(set(counts.inside) - set(counts.commits))
    some = chance.sample(inside, min(len(inside), max(0, KILLS - len(commits)) // 2))
    anywhere = sorted(set(range(1, counts.count + 1)) - set(counts.commits) - set(some))
    some += chance.sample(anywhere, min(len(anywhere), max(0, KILLS - len(commits) - len(some))))
    return commits + [str(n) for n in sorted(some)]


def _kill_and_import_again(file: Path, tmp_path: Path) -> list[str]:
    """Each kill's difference from an import never killed, in words."""
    whole_root = tmp_path / "whole"
    open_folder(folder(whole_root)).close()  # made before: no kill lands in its making
    finished = run_child(CHILD, file, whole_root, "0")
    assert finished.returncode == 0, finished.stderr
    counts = heard(finished.stdout)
    with open_folder(folder(whole_root)) as database:
        expected = _held(database, whole_root)
    wrong: list[str] = []
    points = _kill_points(counts, random.Random(20261201))
    assert len(points) >= KILLS
    for kill_at in points:
        root = tmp_path / f"kill-{kill_at}"
        paths = folder(root)
        open_folder(paths).close()
        killed = run_child(CHILD, file, root, kill_at)
        assert killed.returncode == -signal.SIGKILL, f"statement {kill_at}: {killed.stderr}"
        if paths.database_file.with_name(paths.database_file.name + "-journal").exists():
            wrong.append(f"statement {kill_at}: a rollback journal was left")
        with open_folder(paths) as database:
            if (verdict := database.fetch_value("PRAGMA integrity_check")) != "ok":
                wrong.append(f"statement {kill_at}: integrity_check says {verdict}")
            imports = Imports(database, paths, Redactor(), library(database, paths))
            imports.run(file, learn=True, state=PlainState())  # the user tries again
            held = _held(database, root)
        wrong += [
            f"killed at statement {kill_at} of {counts.count} (commits {counts.commits}): "
            f"{key} {held[key]!r}, not {expected[key]!r}"
            for key in expected
            if held[key] != expected[key]
        ]
    return wrong


@pytest.mark.slow
def test_an_archive_import_killed_anywhere_and_run_again_holds_everything_once(
    archive: Path, tmp_path: Path
) -> None:
    assert _kill_and_import_again(archive, tmp_path) == []


@pytest.mark.slow
def test_a_chatgpt_import_killed_anywhere_and_run_again_holds_everything_once(
    chatgpt_export: Path, tmp_path: Path
) -> None:
    assert _kill_and_import_again(chatgpt_export, tmp_path) == []


def test_an_archive_naming_a_skill_whose_file_is_gone_imports_the_rest(
    archive: Path, tmp_path: Path
) -> None:
    paths = folder(tmp_path / "mine")
    with open_folder(paths) as database:
        skills = library(database, paths)
        skills.delete(skills.create("Packing", "My own packing list\n- tent").id)
        (paths.skills_dir / ".deleted" / "Packing.md").unlink()  # the bin emptied by hand
        imports = Imports(database, paths, Redactor(), skills)

        plan = imports.preview(archive)
        done = imports.run(archive, learn=True, state=PlainState())

        assert plan.adds and done.imported
        note = (
            "1 skill(s) were not imported: a skill of the same name is there already "
            "whose file cannot be read (Packing)."
        )
        assert note in plan.lines and note in done.lines
        assert [s.name for s in skills.list(statuses=("draft",))] == ["Draft idea"]
        assert "Trip plans" in [c.title for c in ConversationStore(database).list()]
