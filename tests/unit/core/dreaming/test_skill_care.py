"""A dream rewrites a skill only as carefully as it merges memories.

A condensed or merged skill must keep the commands, paths, URLs, code and
numbers of what it replaces; one that drops any waits for the user's
approval, with what went missing, and the skill stays as it was until then.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.evidence import lost_specifics, skill_specifics
from desktop.core.dreaming.skill_notes import ChangeNotes
from desktop.core.skills.library import SkillLibrary
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

DEPLOY = (
    "Deploy the blog\n"
    "1. Build it with `hugo --minify` in ~/blog.\n"
    "2. Copy public/ with `rsync -av public/ web:/var/www/blog`.\n"
    "3. Check https://blog.example.org/health answers within 30 seconds.\n"
) + "Take care, the server is slow; wait for it and do not hurry. " * 25


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], skills: SkillLibrary) -> Dreaming:
    return make_dreaming(skills=skills)


def _skill_changes(dreaming: Dreaming, run_id: int) -> list[tuple[str, str]]:
    return [
        (c.kind, c.status)
        for c in dreaming.dreamer.dreams.changes(run_id)
        if c.pass_name == "skills"
    ]


@pytest.mark.parametrize(
    ("condensed", "missing"),
    [
        ("Build with hugo, rsync it to the server, check the health page.", "hugo --minify"),
        (
            "1. `hugo --minify` in ~/blog. 2. `rsync -av public/ web:/var/www/blog`. "
            "3. Check https://blog.example.org/health within 20 seconds.",
            "30",
        ),
        (
            "1. `hugo --minify` in ~/blog. 2. `rsync -av public/ web:/var/www/blog`. "
            "3. Check the health page within 30 seconds.",
            "https://blog.example.org/health",
        ),
    ],
)
def test_a_condensed_skill_that_drops_a_command_url_or_number_waits_for_approval(
    dreaming: Dreaming,
    skills: SkillLibrary,
    model: ScriptedChatModel,
    condensed: str,
    missing: str,
) -> None:
    blog = skills.create("deploy-blog", DEPLOY)
    before = skills.read(blog.id).text
    model.queue(json.dumps({"text": condensed}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.read(blog.id).text == before
    assert _skill_changes(dreaming, report.run.id) == [("skill_rewrite", "pending")]
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert missing in change.payload["lost"]
    assert f"“{missing}”" in change.payload["waits"]

    dreaming.dreamer.book.approve(change.id)  # the user read it and agrees

    assert skills.read(blog.id).text.startswith("Deploy the blog\n")
    assert skills.read(blog.id).text != before


def test_a_condensed_skill_that_keeps_every_specific_is_applied(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    blog = skills.create("deploy-blog", DEPLOY)
    condensed = (
        "1. `hugo --minify` in ~/blog.\n2. `rsync -av public/ web:/var/www/blog`.\n"
        "3. Check https://blog.example.org/health within 30 seconds; the server is slow."
    )
    model.queue(json.dumps({"text": condensed}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _skill_changes(dreaming, report.run.id) == [("skill_rewrite", "applied")]
    assert "rsync -av public/ web:/var/www/blog" in skills.read(blog.id).text


def test_a_merge_that_drops_a_path_waits_whole_and_changes_neither_skill(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    first = skills.create("backup", "Back up the photos\nCopy ~/Pictures to /mnt/backup.")
    second = skills.create("photo-backup", "Back up the photos\nCopy the photos to the disk.")
    texts = {s.id: skills.read(s.id).text for s in (first, second)}
    model.queue(json.dumps({"overlap": True, "text": "Back up the photos\nCopy them to disk."}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _skill_changes(dreaming, report.run.id) == [
        ("skill_rewrite", "pending"),
        ("skill_retire", "pending"),
    ]
    assert {s.id: skills.read(s.id).text for s in (first, second)} == texts
    assert all(skills.read(s.id).skill.status == "active" for s in (first, second))


def test_specifics_are_commands_paths_urls_flags_variables_and_numbers() -> None:
    text = (
        "Release\n1. Run `make dist` then:\n$ twine upload dist/* --verbose\n"
        "2. Set $PYPI_TOKEN and RELEASE_NAME, see https://pypi.org/manage/ (v2.5.1).\n"
        "```\ngit tag -s v2.5.1\n```\nEdit C:\\Users\\me\\notes.txt and setup.cfg.\n"
    )

    found = skill_specifics(text)

    for expected in (
        "make dist",
        "twine upload dist/* --verbose",
        "git tag -s v2.5.1",
        "https://pypi.org/manage/",
        "$PYPI_TOKEN",
        "RELEASE_NAME",
        "--verbose",
        "2.5.1",
        "C:\\Users\\me\\notes.txt",
        "setup.cfg",
    ):
        assert expected in found, expected
    assert "1" not in found  # a step's own number: renumbering loses nothing


def test_a_number_is_kept_only_as_that_number_and_spacing_does_not_matter() -> None:
    assert lost_specifics(["Steep 3 minutes"], "Steep 30 minutes") == ["3"]
    assert lost_specifics(["Run `git  pull  --rebase`"], "run `git pull --rebase` first") == []


def test_a_merge_into_other_words_altogether_waits_even_without_specifics(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    first = skills.create("guests", "Greeting guests\nSmile, offer a drink, take their coats.")
    second = skills.create(
        "greeting-guests", "Greeting guests\nOffer a drink and take their coats."
    )
    model.queue(json.dumps({"overlap": True, "text": "x"}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _skill_changes(dreaming, report.run.id) == [
        ("skill_rewrite", "pending"),
        ("skill_retire", "pending"),
    ]
    assert all(skills.read(s.id).skill.status == "active" for s in (first, second))
    [rewrite, _] = dreaming.dreamer.dreams.changes(report.run.id)
    assert rewrite.payload["waits"] == "the new text keeps little of what the skill said"


def test_a_skill_edited_while_the_pass_writes_is_left_for_the_next_dream(
    dreaming: Dreaming,
    skills: SkillLibrary,
    model: ScriptedChatModel,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    blog = skills.create("deploy-blog", DEPLOY)
    edited = DEPLOY + "4. The user's own step: tell the team.\n"
    model.queue(json.dumps({"text": DEPLOY.split("Take care")[0]}))  # keeps every specific
    real_write = ChangeNotes.write

    def edit_then_write(notes: ChangeNotes, path: Path, note: dict[str, object]) -> int:
        skills.update_text(blog.id, edited)  # saved in the editor meanwhile
        return real_write(notes, path, note)

    monkeypatch.setattr(ChangeNotes, "write", edit_then_write)

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.read(blog.id).text == edited
    assert _skill_changes(dreaming, report.run.id) == []
    assert "changed since" in report.outcomes["skills"]
    assert "next dream" in report.outcomes["skills"]
    assert not [r for r in caplog.records if r.exc_info]  # a race, not a failure
