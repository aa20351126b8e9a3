"""Round 25: a merge verdict that changes nothing said nothing in the report.

Two skills that look alike are shown to the model, which says whether they
overlap and writes one text for both.  An answer saying they overlap but
giving no text (or a blank one) was passed over in silence: the report
read "Nothing to change." as if the model had found them different.  A
text that is one of the two skills word for word (a skill "merged" into
itself) retired the other skill, its own steps gone from the prompt, and
recorded a rewrite of the kept one that changed nothing.  Both are kept,
and the report says why."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.dreaming.control import DreamControl
from desktop.core.skills.library import SkillLibrary
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

TEA = "How to brew green tea\nBoil water, steep 3 minutes."
GREEN = "How to brew green tea\nSteep green tea 3 minutes."


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], skills: SkillLibrary) -> Dreaming:
    return make_dreaming(skills=skills)


def _said(dreaming: Dreaming, run_id: int) -> str:
    [entry] = [e for e in dreaming.dreamer.dreams.log_entries(run_id) if e.pass_name == "skills"]
    return entry.message


@pytest.mark.parametrize("verdict", [{"overlap": True}, {"overlap": True, "text": " \u200b\n"}])
def test_an_overlap_without_a_text_keeps_both_and_says_why(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, verdict: dict[str, object]
) -> None:
    tea, green = skills.create("tea", TEA), skills.create("green-tea", GREEN)
    model.queue(json.dumps(verdict))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert [skills.read(s.id).text for s in (tea, green)] == [TEA + "\n", GREEN + "\n"]
    assert _said(dreaming, report.run.id) == (
        "Nothing to change. “green-tea” and “tea” look alike, and the model said they "
        "overlap, but wrote no text for both: both were kept as they are."
    )


@pytest.mark.parametrize("which", ["kept", "retired"])
def test_a_merged_text_that_is_one_of_the_skills_keeps_both_and_says_why(
    dreaming: Dreaming, skills: SkillLibrary, model: ScriptedChatModel, which: str
) -> None:
    tea, green = skills.create("tea", TEA), skills.create("green-tea", GREEN)
    skills.use("green-tea", None)  # the more used: it would keep the text
    written, named = (GREEN, "green-tea") if which == "kept" else (TEA, "tea")
    model.queue(json.dumps({"overlap": True, "text": written}))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert [c.kind for c in dreaming.dreamer.dreams.changes(report.run.id)] == []
    assert [skills.read(s.id).skill.status for s in (tea, green)] == ["active", "active"]
    assert _said(dreaming, report.run.id) == (
        f"Nothing to change. “green-tea” and “tea” look alike, but the text written for "
        f"both is “{named}” as it is: both were kept as they are."
    )
