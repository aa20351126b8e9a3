"""Round 32: the log named a skill, and kept its name once it was erased.

A dream change to a skill whose file was removed meanwhile, and a skill
file that went while a dream's safety copy was taken, were logged by the
skill's name (its file's path holds it too).  The log rotates but is not
purged when a skill is erased for good, so its name stayed in
``reverie.log`` after "Delete now".  They are logged by the skill's
number, or by what happened alone, as the other lines about the user's
words are."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import pytest

from desktop.core.db import DreamStore
from desktop.core.dreaming.proposals import Proposal
from desktop.core.dreaming.skill_changes import digests
from desktop.core.dreaming.snapshots import take_snapshot
from tests.skill_worlds import SHORT_TEA, TEA, World

NAME = "Quillbrook tea"


def _logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_a_change_to_a_skill_whose_file_went_is_logged_by_its_number(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    tea = world.skills.create(NAME, TEA)
    run = DreamStore(world.database).start("manual")
    read_at = time.time()
    condense = Proposal(
        "skill_rewrite",
        "Condensed.",
        {"skill": tea.id, "text": SHORT_TEA, "read": digests({tea.id: TEA})},
    )
    world.skills.path(tea).unlink()  # by hand, while the model condensed it

    with caplog.at_level(logging.INFO):
        applied = world.book.apply_pass(run.id, "skills", [condense], None, read_at)

    assert applied.applied == 0
    assert [m for m in _logged(caplog) if f"#{tea.id}" in m]
    assert [m for m in _logged(caplog) if "Quillbrook" in m] == []


def test_a_skill_file_gone_while_a_safety_copy_is_taken_is_not_named_in_the_log(
    world: World, home: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    tea = world.skills.create(NAME, TEA)
    copy = shutil.copy2

    def deleted_meanwhile(source: str, target: Path) -> object:
        if Path(source).name == world.skills.path(tea).name:
            Path(source).unlink()  # the user deleted it as the copy reached it
        return copy(source, target)

    monkeypatch.setattr(shutil, "copy2", deleted_meanwhile)

    with caplog.at_level(logging.INFO):
        taken = take_snapshot(
            world.database, home / "snapshots", "20261201T000000Z", skills_dir=home / "skills",
            keep=3,
        )  # fmt: skip

    assert taken.exists()
    assert [m for m in _logged(caplog) if "went while" in m]
    assert [m for m in _logged(caplog) if "Quillbrook" in m] == []
