"""A skill's rewrite says its prose steps as they were, or waits (round 17).

Keeping every number and command was not enough: a condensed skill swapped
"1 tablet, never more than 3" into "3 tablets, never more than 1", dropped
the "Never" of one step while another kept its own, said a wait was not
needed, or added a step, and was applied unasked.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.evidence import changed_steps
from desktop.core.skills.library import SkillLibrary
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

STEPS = (
    "1. Take 1 tablet of warfarin with a full glass of water, never more than 3 tablets a day.\n"
    "2. Wait 30 minutes before eating anything at all after the tablet.\n"
    "3. Never take it together with aspirin or ibuprofen, they make bleeding more likely.\n"
    "4. Write the dose in the notebook on the kitchen shelf.\n"
)
MEDICATION = (
    "How I take my evening medication\n"
    + STEPS
    + "Take your time with every step and check the notebook before each dose. " * 12
)
FAITHFUL = (
    "1. Take 1 tablet of warfarin with water, never more than 3 tablets a day.\n"
    "2. Wait 30 minutes before eating.\n"
    "3. Never take it with aspirin or ibuprofen (bleeding).\n"
    "4. Write the dose in the notebook on the kitchen shelf."
)
CHANGED = {
    "swapped": FAITHFUL.replace("Take 1 tablet", "Take 3 tablets").replace("than 3", "than 1"),
    "never dropped": FAITHFUL.replace("3. Never take it", "3. Take it"),
    "wait undone": FAITHFUL.replace(
        "Wait 30 minutes before eating", "Eating at once is fine, 30 minutes are not needed"
    ),
    "step added": FAITHFUL + "\n5. Take a second tablet of warfarin before bed.",
}


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], skills: SkillLibrary) -> Dreaming:
    return make_dreaming(skills=skills)


@pytest.mark.parametrize("changed", CHANGED.values(), ids=CHANGED.keys())
def test_a_condensed_skill_saying_a_step_otherwise_waits_with_why(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, changed: str
) -> None:
    skill = skills.create("evening-medication", MEDICATION)
    before = skills.read(skill.id).text
    model.queue(json.dumps({"text": changed}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert skills.read(skill.id).text == before
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert (change.kind, change.status) == ("skill_rewrite", "pending")
    assert change.payload["waits"].startswith("the new text ")


def test_a_condensed_skill_saying_each_step_as_it_was_is_applied(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel
) -> None:
    skill = skills.create("evening-medication", MEDICATION)
    model.queue(json.dumps({"text": FAITHFUL}))

    report = dreaming.dreamer.run("manual", DreamControl())

    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert change.status == "applied"
    assert "never more than 3 tablets a day" in skills.read(skill.id).text


def test_changed_steps_says_which_sentence_reads_otherwise() -> None:
    said = changed_steps([STEPS], CHANGED["never dropped"])

    assert said is not None and "Never take it together" in said
    assert changed_steps([STEPS], FAITHFUL) is None
    assert changed_steps(["1. Boil. 2. Wait 2 minutes."], "1. Boil. 2. Wait 2 minutes.") is None
