"""Round 23: a secret typed into a skill file by hand never reaches the
database through a dream's record of the skill.

The skill library takes secrets out of every text it writes, and the
summary it stores; but a dream records each skill it changes as it read
it (to undo the change), and that record went into ``dream_changes`` with
the file's whole text: "the wifi password is ..." written into a skill in
another editor was kept in the database for good, where an export or a
backup of it carries it.  A change now records the skill as the library
would write it, secrets taken out (undone, it is put back so).
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.dreaming.control import DreamControl
from desktop.core.skills.library import SkillLibrary
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming
from tests.unit.core.dreaming.test_skill_review import STEPS, dreaming

__all__ = ["dreaming"]  # the fixture, as the skill review's tests have it

SECRET = "kettle-moon-42-zebra"
WIFI = f"Then join the wifi; the wifi password is {SECRET}"
LONG = f"How to brew tea the way the user likes it\n{STEPS}\n{WIFI}\n" + "Boil, then wait. " * 90
SHORTER = f"How to brew tea\n{STEPS}\nThen join the wifi.\n"


def _database_holds(folder: Path, text: str) -> list[str]:
    """The database files under *folder* (the skills folder aside) holding *text*."""
    return [
        path.name for path in folder.glob("reverie.sqlite3*") if text.encode() in path.read_bytes()
    ]


def _hand_written(skills: SkillLibrary, name: str, text: str) -> int:
    skills.directory.mkdir(parents=True, exist_ok=True)
    (skills.directory / f"{name}.md").write_text(text, encoding="utf-8")
    [skill] = [s for s in skills.list() if s.name == name]
    return skill.id


def test_a_condensed_skill_written_by_hand_with_a_secret_keeps_it_out_of_the_database(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, tmp_path: Path
) -> None:
    tea = _hand_written(skills, "brew-tea", LONG)
    model.queue(json.dumps({"text": SHORTER}))

    report = dreaming.dreamer.run("manual", DreamControl())

    [change] = [
        c for c in dreaming.dreamer.dreams.changes(report.run.id) if c.pass_name == "skills"
    ]
    # It leaves the secret out (the model never saw it): the user approves.
    assert (change.kind, change.status) == ("skill_rewrite", "pending")
    change = dreaming.dreamer.book.approve(change.id)
    assert change.status == "applied"
    assert _database_holds(tmp_path, SECRET) == []
    dreaming.dreamer.book.revert_run(report.run.id)
    assert skills.read(tea).text.startswith("How to brew tea the way the user likes it\n")
    # The long text is back, the secret taken out as every write of a skill does.
    assert "Boil, then wait." in skills.read(tea).text
    assert "the wifi password is [redacted password]" in skills.read(tea).text


def test_a_retired_skill_written_by_hand_with_a_secret_keeps_it_out_of_the_database(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, tmp_path: Path
) -> None:
    first = _hand_written(
        skills, "tea", f"How to brew green tea\nBoil water, steep 3 minutes.\n{WIFI}\n"
    )
    skills.create("green-tea", "How to brew green tea\nSteep green tea 3 minutes.")
    skills.use("green-tea", None)
    merged = "How to brew green tea\nBoil water, then steep the green tea for 3 minutes."
    model.queue(json.dumps({"overlap": True, "text": merged}))

    report = dreaming.dreamer.run("manual", DreamControl())

    for change in dreaming.dreamer.dreams.changes(report.run.id):
        if change.status == "pending":
            dreaming.dreamer.book.approve(change.id)
    changes = dreaming.dreamer.dreams.changes(report.run.id)
    assert [(c.kind, c.status) for c in changes if c.pass_name == "skills"] == [
        ("skill_rewrite", "applied"),
        ("skill_retire", "applied"),
    ]
    assert skills.read(first).skill.status == "deleted"
    assert _database_holds(tmp_path, SECRET) == []
    dreaming.dreamer.book.revert_run(report.run.id)
    assert skills.read(first).skill.status == "active"
