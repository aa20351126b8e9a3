"""Tests of tidying skills while dreaming: condensing with the summary kept,
merging overlapping skills, proposing drafts for requests that recur; all
undoable, and a pass's file changes land whole or not at all."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import ConversationStore, Database, Message
from desktop.core.dreaming.control import DreamControl, DreamProgress
from desktop.core.dreaming.skill_review import recurring_terms
from desktop.core.skills.library import SkillLibrary
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

STEPS = "1. Boil water. 2. Wait two minutes. 3. Steep green tea for 3 minutes."
LONG = f"How to brew tea the way the user likes it\n{STEPS}\n" + "Boil the water, then wait. " * 60
SHORTER = f"How to brew tea\n{STEPS}\n"


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], skills: SkillLibrary) -> Dreaming:
    return make_dreaming(skills=skills)


def _skill_changes(dreaming: Dreaming, run_id: int) -> list[str]:
    return [c.kind for c in dreaming.dreamer.dreams.changes(run_id) if c.pass_name == "skills"]


def test_a_long_skill_is_condensed_keeping_its_summary_and_can_be_undone(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    tea = skills.create("brew-tea", LONG)
    original = skills.read(tea.id).text
    model.queue(json.dumps({"text": SHORTER}))

    report = dreaming.dreamer.run("manual", DreamControl())

    text = skills.read(tea.id).text
    # The summary stays; the model's own heading for it does not come twice.
    assert text.splitlines()[:2] == [
        "How to brew tea the way the user likes it",
        "1. Boil water. 2. Wait two minutes. 3. Steep green tea for 3 minutes.",
    ]
    assert "Steep green tea for 3 minutes." in text and len(text) < len(LONG)
    assert _skill_changes(dreaming, report.run.id) == ["skill_rewrite"]

    dreaming.dreamer.book.revert_run(report.run.id)
    assert skills.read(tea.id).text == original


@pytest.mark.parametrize("blank", ["   ", "\u200b\u200b\u200b", "\u0000\u0000"])
def test_a_blank_condensed_text_strips_no_skill_to_its_summary(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, blank: str
) -> None:
    """The summary holds every word of this skill, so only the steps' count
    says a summary alone lost them."""
    tea = skills.create("brew-tea", LONG)
    original = skills.read(tea.id).text
    model.queue(json.dumps({"text": blank}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.read(tea.id).text == original
    assert _skill_changes(dreaming, report.run.id) == []


def test_a_short_skill_is_left_alone(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    skills.create("brew-tea", SHORTER)

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _skill_changes(dreaming, report.run.id) == []
    assert not any("Condense" in r[0][0].content for r in model.requests)


def test_overlapping_skills_merge_into_the_more_used_one(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    first = skills.create("tea", "How to brew green tea\nBoil water, steep 3 minutes.")
    second = skills.create("green-tea", "How to brew green tea\nSteep green tea 3 minutes.")
    skills.use("green-tea", None)
    merged = "How to brew green tea\nBoil water, then steep the green tea for 3 minutes."
    model.queue(json.dumps({"overlap": True, "text": merged}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.read(second.id).text == merged + "\n"
    assert skills.read(first.id).skill.status == "deleted"  # retired, restorable
    assert _skill_changes(dreaming, report.run.id) == ["skill_rewrite", "skill_retire"]
    dreaming.dreamer.book.revert_run(report.run.id)
    assert skills.read(first.id).skill.status == "active"
    assert skills.read(second.id).text.startswith("How to brew green tea\nSteep")


def test_requests_recurring_across_conversations_become_a_draft_to_review(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, database: Database
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    for title in ("monday", "friday"):
        conversation = store.create(title)
        store.add_message(conversation.id, "user", "Summarise my invoices into a spreadsheet.")
    draft = {"name": "invoice summary", "text": "Summarise invoices\n1. Collect. 2. Tabulate."}
    model.queue(json.dumps({"skills": [draft]}))

    report = dreaming.dreamer.run("manual", DreamControl())

    [proposed] = skills.list(statuses=("draft",))
    assert proposed.name == "invoice summary"
    assert skills.list() == []  # a draft until the user accepts it
    prompt = next(
        r[0][-1].content for r in model.requests if "several conversations" in r[0][-1].content
    )
    assert "invoices" in prompt and "spreadsheet" in prompt
    dreaming.dreamer.book.revert_run(report.run.id)
    assert skills.list(statuses=("draft",)) == []


def test_recurring_terms_need_two_conversations() -> None:
    def said(conversation: int, text: str) -> Message:
        return Message(0, conversation, "user", text, 0.0, None, None, None)

    terms = recurring_terms(
        [
            said(1, "Plan my running week"),
            said(1, "Plan my running week again"),
            said(2, "What should my running pace be?"),
        ]
    )

    assert terms == ["running"]


def test_a_failing_file_change_takes_back_the_others_and_changes_nothing(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    tea = skills.create("brew-tea", LONG)
    coffee = skills.create("brew-coffee", LONG.replace("tea", "coffee"))
    original = skills.read(tea.id).text
    model.queue(json.dumps({"text": SHORTER}), json.dumps({"text": SHORTER.replace("tea", "co")}))
    blocked = skills.path(coffee)

    def block_coffee_once_planned(progress: DreamProgress) -> None:
        # After both answers, before the changes are made: coffee's file
        # becomes a folder, so rewriting it fails after tea's was rewritten.
        if progress.pass_name == "skills" and len(model.requests) == 2 and blocked.is_file():
            blocked.unlink()
            blocked.mkdir()

    report = dreaming.dreamer.run("manual", DreamControl(on_progress=block_coffee_once_planned))

    assert skills.read(tea.id).text == original  # the first rewrite was taken back
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "skills"
    ]
    assert entry.outcome == "failed"
    assert [
        c for c in dreaming.dreamer.dreams.changes(report.run.id) if c.pass_name == "skills"
    ] == []


def test_a_merged_text_that_drops_steps_keeps_both_skills_and_says_why(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    steps = "1. Ask where and when.\n2. Suggest a plan for each day.\n"
    trip = skills.create("plan-a-trip", "Plan a trip\n" + steps)
    travel = skills.create("plan-trip", "Plan a trip\n" + steps.replace("each", "every"))
    junk = "Plan a trip\nThis is a one-line summary of the above two skills."
    model.queue(json.dumps({"overlap": True, "text": junk}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _skill_changes(dreaming, report.run.id) == []
    assert skills.read(trip.id).text == "Plan a trip\n" + steps
    assert skills.read(travel.id).skill.status == "active"
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "skills"
    ]
    assert entry.message == (
        "Nothing to change. “plan-a-trip” and “plan-trip” look alike, but the text "
        "written for both dropped some of their steps: both were kept as they are."
    )


@pytest.mark.parametrize(
    "draft",
    [
        {"name": "Sam", "text": "I am Sam. I will use Sam to call you."},  # no steps
        {"name": "a/b", "text": "Summarise invoices\n1. Collect. 2. Tabulate."},  # no file name
    ],
)
def test_a_proposed_skill_that_is_model_debris_is_left_out_without_a_word(
    dreaming: Dreaming,
    skills: SkillLibrary,
    model: ScriptedChatModel,
    database: Database,
    draft: dict[str, str],
) -> None:
    store = ConversationStore(database, clock=dreaming.clock)
    for title in ("monday", "friday"):
        conversation = store.create(title)
        store.add_message(conversation.id, "user", "Call me Sam from now on, please.")
    model.queue(json.dumps({"skills": [draft]}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.list(statuses=("draft",)) == []
    assert _skill_changes(dreaming, report.run.id) == []
    [entry] = [
        e for e in dreaming.dreamer.dreams.log_entries(report.run.id) if e.pass_name == "skills"
    ]
    assert entry.message == "Nothing to change."
