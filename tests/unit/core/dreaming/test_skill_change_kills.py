"""A dream change to a skill is recorded with its file, or not made: killed
anywhere, failed anywhere.

A skill change writes two places that share no transaction (the skill's
file and index row, the change's record).  Each test runs one operation
(approving a pending rewrite, undoing an applied one, a pass merging two
skills or proposing a draft) and copies the database file, its WAL and the
skills folder after every step that reaches the disk (a rename, a file
removed, a transaction committed): each copy is what a SIGKILL at that
moment leaves.  Reverie opened on each copy must show the change recorded
with the skill as it made it, or not recorded with the skill as it was, and
the user must be able to go on (approve again, undo).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.db import Database, DreamStore, open_database
from desktop.core.db.errors import QueryFailed
from desktop.core.dreaming.proposals import Proposal
from tests.skill_worlds import COFFEE, DB, SHORT_TEA, TEA, World, open_world

ROOT = Path(__file__).resolve().parents[4]
KILLS = 14


def _rewrite(skill_id: int, text: str, *, waits: bool) -> Proposal:
    payload: dict[str, Any] = {"skill": skill_id, "text": text}
    if waits:
        payload["waits"] = "the new text leaves out “4 minutes”"
    return Proposal("skill_rewrite", "Condensed the skill “tea”.", payload, needs_approval=waits)


def _pending_rewrite(world: World) -> tuple[int, int]:
    """A skill and a pending change condensing it (it drops "4 minutes")."""
    tea = world.skills.create("tea", TEA)
    run = DreamStore(world.database).start("manual")
    world.book.apply_pass(run.id, "skills", [_rewrite(tea.id, SHORT_TEA, waits=True)], None)
    [change] = DreamStore(world.database).changes(run.id)
    assert change.status == "pending"
    return tea.id, change.id


class Images:
    """Copies of the home folder after every step that reaches the disk."""

    def __init__(self, home: Path, into: Path) -> None:
        self.home = home
        self.into = into
        self.taken: list[Path] = []
        self._busy = False

    def take(self) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            image = self.into / f"image-{len(self.taken)}"
            image.mkdir(parents=True)
            if (self.home / "skills").exists():
                shutil.copytree(self.home / "skills", image / "skills", symlinks=True)
            for name in (DB, f"{DB}-wal"):  # no -shm: SQLite rebuilds it from the WAL
                if (self.home / name).exists():
                    shutil.copy2(self.home / name, image / name)
            self.taken.append(image)
        finally:
            self._busy = False

    @contextlib.contextmanager
    def every_step(self, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
        real_replace, real_unlink = os.replace, Path.unlink
        real_transaction = Database.transaction

        def replace(*args: Any, **kwargs: Any) -> None:
            real_replace(*args, **kwargs)
            self.take()

        def unlink(path: Path, missing_ok: bool = False) -> None:
            real_unlink(path, missing_ok=missing_ok)
            self.take()

        @contextlib.contextmanager
        def transaction(database: Database) -> Iterator[Any]:
            with real_transaction(database) as tx:
                yield tx
            self.take()

        self.take()
        with monkeypatch.context() as patch:
            patch.setattr(os, "replace", replace)
            patch.setattr(Path, "unlink", unlink)
            patch.setattr(Database, "transaction", transaction)
            yield
        self.take()


def _each_image(images: Images, check: Callable[[World], None]) -> int:
    assert len(images.taken) >= 4  # the operation reached the disk in several steps
    for image in images.taken:
        reopened = open_world(image)  # as Reverie starts after the kill
        try:
            check(reopened)
        except AssertionError as failure:
            raise AssertionError(f"killed at {image.name}: {failure}") from failure
        finally:
            reopened.close()
    return len(images.taken)


def _text(world: World, skill_id: int) -> str:
    return world.skills.read(skill_id).text


def test_approving_a_skill_rewrite_killed_anywhere_is_recorded_with_its_file_or_not_made(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea, change_id = _pending_rewrite(world)
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.book.approve(change_id)

    def check(after: World) -> None:
        change = DreamStore(after.database).change(change_id)
        text = _text(after, tea)
        assert (change.status, text) in {("pending", TEA), ("applied", SHORT_TEA)}
        if change.status == "pending":  # the user can approve it again
            after.book.approve(change_id)
            assert _text(after, tea) == SHORT_TEA
        after.book.revert(change_id)  # and undo it: the user's text back whole
        assert _text(after, tea) == TEA
        assert not list((after.skills.directory / ".changes").glob("*"))  # all settled

    _each_image(images, check)


def test_undoing_a_skill_rewrite_killed_anywhere_is_recorded_with_its_file_or_not_made(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea, change_id = _pending_rewrite(world)
    world.book.approve(change_id)
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.book.revert(change_id)

    def check(after: World) -> None:
        change = DreamStore(after.database).change(change_id)
        assert (change.status, _text(after, tea)) in {("applied", SHORT_TEA), ("reverted", TEA)}
        if change.status == "applied":
            after.book.revert(change_id)
            assert _text(after, tea) == TEA

    _each_image(images, check)


def test_a_pass_merging_two_skills_killed_anywhere_lands_whole_or_not_at_all(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create("tea", TEA).id
    coffee = world.skills.create("coffee", COFFEE).id
    merged = TEA + "Coffee too: grind 18 g of beans, brew for 3 minutes.\n"
    run = DreamStore(world.database).start("manual")
    proposals = [
        _rewrite(tea, merged, waits=False),
        Proposal("skill_retire", "Retired “coffee”.", {"skill": coffee, "into": tea}),
    ]
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.book.apply_pass(run.id, "skills", proposals, None)

    def check(after: World) -> None:
        changes = DreamStore(after.database).changes(run.id)
        coffee_now = after.skills.read(coffee)
        seen = (_text(after, tea), coffee_now.skill.status, coffee_now.text)
        if not changes:
            assert seen == (TEA, "active", COFFEE)
        else:
            assert [c.status for c in changes] == ["applied", "applied"]
            assert seen == (merged, "deleted", COFFEE)
            assert after.book.revert_run(run.id) == 2
            assert (_text(after, tea), after.skills.read(coffee).skill.status) == (
                TEA,
                "active",
            )

    _each_image(images, check)


def test_a_pass_proposing_a_draft_killed_anywhere_leaves_it_recorded_or_gone(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = DreamStore(world.database).start("manual")
    draft = Proposal(
        "skill_draft",
        "Proposed a new skill for review: “coffee”.",
        {"name": "coffee", "text": COFFEE, "message_ids": [], "conversations": []},
    )
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.book.apply_pass(run.id, "skills", [draft], None)

    def check(after: World) -> None:
        changes = DreamStore(after.database).changes(run.id)
        made = after.skills.store.find("coffee")
        if not changes:
            # No draft the erasure of its messages could not find.
            assert made is None or made.status == "deleted"
            assert not (after.skills.directory / ".drafts" / "coffee.md").exists()
        else:
            assert made is not None and made.status == "draft"
            assert _text(after, made.id) == COFFEE

    _each_image(images, check)


def test_an_approval_whose_record_fails_puts_the_skill_back(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea, change_id = _pending_rewrite(world)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise QueryFailed("disk I/O error")

    with monkeypatch.context() as patch:
        patch.setattr(DreamStore, "record_outcome", staticmethod(fail))
        with pytest.raises(QueryFailed):
            world.book.approve(change_id)

    assert DreamStore(world.database).change(change_id).status == "pending"
    assert _text(world, tea) == TEA
    world.book.approve(change_id)
    assert _text(world, tea) == SHORT_TEA


def test_a_skill_changed_by_hand_after_a_kill_is_left_as_the_user_made_it(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea, change_id = _pending_rewrite(world)
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.book.approve(change_id)
    # The first copy where the file is rewritten but the approval not recorded.
    for image in images.taken:
        with open_database(image / DB) as database:
            status = DreamStore(database).change(change_id).status
        path = image / "skills" / "tea.md"
        if status == "pending" and path.read_text(encoding="utf-8") == SHORT_TEA:
            break
    else:
        pytest.fail("no copy caught the rewrite before its record")
    by_hand = SHORT_TEA + "Milk last.\n"
    path.write_text(by_hand, encoding="utf-8")  # edited while Reverie was not running

    after = open_world(image)
    try:
        assert after.book.finish_interrupted() == []  # settled when the book was built
        assert _text(after, tea) == by_hand
        assert DreamStore(after.database).change(change_id).status == "pending"
    finally:
        after.close()


def test_a_rename_killed_anywhere_keeps_the_skill_and_its_uses(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create("tea", TEA).id
    world.skills.store.record_use(tea, None)
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.skills.rename(tea, "green tea")

    def check(after: World) -> None:
        [skill] = after.skills.list()
        assert (skill.id, skill.use_count) == (tea, 1)  # the same skill, not a new one
        assert skill.name in {"tea", "green tea"}
        assert after.skills.list(statuses=("deleted",)) == []
        assert _text(after, tea) == TEA
        assert [p.name for p in after.skills.directory.glob("*.md")] == [skill.file_name]

    _each_image(images, check)


@pytest.mark.slow
def test_skill_changes_killed_at_random_moments_are_whole_or_not_made(tmp_path: Path) -> None:
    from tests.unit.core.dreaming import skill_change_child as child_work

    chance = random.Random(20261125)
    caught_in_flight = 0
    for attempt in range(KILLS):
        home = tmp_path / f"kill-{attempt}"
        home.mkdir()
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.unit.core.dreaming.skill_change_child", str(home), "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        time.sleep(chance.uniform(0.0, 0.4))  # somewhere inside a later round
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        child.stdout.close()
        notes = home / "skills" / ".changes"
        caught_in_flight += notes.is_dir() and any(notes.glob("*.json"))
        world = open_world(home)  # Reverie starting after the kill
        try:
            assert _kill_problems(world, child_work) == [], f"after kill {attempt}"
        finally:
            world.close()
    assert caught_in_flight >= 1  # some kills landed while a change was in flight


def _kill_problems(world: World, work: Any) -> list[str]:
    """Each skill as the records of its changes say it is (see ``skill_change_child``)."""
    dreams = DreamStore(world.database)
    changes = [c for run in dreams.runs(10_000) for c in dreams.changes(run.id)]
    found: list[str] = []
    skills = world.skills.list(statuses=("active", "draft", "deleted"))
    for skill in skills:
        n = int(skill.name.split()[-1])
        mine = sorted(
            (c for c in changes if c.payload.get("skill") == skill.id), key=lambda c: c.id
        )
        applied = [c for c in mine if c.status == "applied"]
        text, status = world.skills.read(skill.id).text, skill.status
        if skill.name.endswith(f"tea {n}"):
            expected = applied[-1].payload["text"] if applied else work.tea(n)
            if (text, status) != (expected, "active"):
                found.append(f"{skill.name} is {status} holding {text[:60]!r}")
        elif (text, status) != (work.coffee(n), "deleted" if applied else "active"):
            found.append(f"{skill.name} is {status} though its changes say otherwise")
    names = {s.name for s in skills}
    for n in {int(name.split()[-1]) for name in names}:
        if not {f"tea {n}", f"green tea {n}"} & names:
            found.append(f"tea {n} is gone (a rename made it another skill?)")
    if any((world.skills.directory / ".changes").glob("*.json")):
        found.append("a note of a change in flight is left")
    return found


@pytest.mark.parametrize(
    ("prepare", "operation", "outcomes"),
    [
        ("active", "delete", {"active", "deleted"}),
        ("deleted", "restore", {"deleted", "active"}),
        ("draft", "accept", {"draft", "active"}),
        ("draft", "reject", {"draft", "deleted"}),
    ],
)
def test_a_skill_moved_between_folders_killed_anywhere_is_in_one_place_with_its_uses(
    world: World,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    prepare: str,
    operation: str,
    outcomes: set[str],
) -> None:
    tea = world.skills.create("tea", TEA, draft=prepare == "draft").id
    world.skills.store.record_use(tea, None)
    if prepare == "deleted":
        world.skills.delete(tea)
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        getattr(world.skills, operation)(tea)

    def check(after: World) -> None:
        [skill] = after.skills.list(statuses=("active", "draft", "deleted"))
        assert (skill.id, skill.use_count, skill.status in outcomes) == (tea, 1, True)
        assert after.skills.path(skill).is_file()
        assert _text(after, tea) == TEA

    _each_image(images, check)


def test_an_editor_save_killed_anywhere_leaves_the_old_text_or_the_new_with_its_summary(
    world: World, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create("tea", TEA).id
    edited = "Brew green tea\n" + TEA
    images = Images(home, tmp_path / "images")
    with images.every_step(monkeypatch):
        world.skills.update_text(tea, edited)

    def check(after: World) -> None:
        [skill] = after.skills.list()  # the listing syncs the index with the folder
        assert (skill.id, _text(after, tea)) in {(tea, TEA), (tea, edited)}
        assert skill.summary == _text(after, tea).splitlines()[0]

    _each_image(images, check)
