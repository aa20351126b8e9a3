"""Round 17 of the attacks on the preference pass (F3): a message counts
toward a preference only when it says it.  One content word in common
was enough, so "No, don't make the answers short, I like long detailed
answers." was a strong correction *for* "The user prefers short answers."."""

from __future__ import annotations

import pytest

from desktop.core.db import Database
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.evidence import supports
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming
from tests.unit.core.dreaming.test_preference_counts import _answer, _inferred, _said

REVERSED = [
    (
        "strong_correction",
        ["No, don't make the answers short, I like long detailed answers."],
        "The user prefers short answers.",
    ),
    (
        "strong_correction",
        ["No, never delete my old notes, keep every one of them."],
        "The user wants old notes deleted regularly.",
    ),
    (
        "strong_correction",
        ["Stop, don't tell jokes about my weight, I hate it"],
        "The user enjoys jokes about their weight.",
    ),
    (
        "mild_pushback",
        ["I love long answers.", "Long answers suit me best, thanks"],
        "The user prefers short answers.",
    ),
    (
        "casual_remark",
        ["Emails in English are fine.", "I read English emails all day", "English is my work"],
        "The user wants emails written in German, not English.",
    ),
]


@pytest.mark.parametrize(("strength", "texts", "preference"), REVERSED)
def test_messages_saying_the_reverse_do_not_count(
    dreaming: Dreaming,
    model: ScriptedChatModel,
    database: Database,
    strength: str,
    texts: list[str],
    preference: str,
) -> None:
    _said(database, dreaming, *texts)
    model.queue(_answer(strength, list(range(1, len(texts) + 1)), preference))

    dreaming.dreamer.run("manual", DreamControl())

    assert _inferred(dreaming) == []
    assert not any(supports(preference, text) for text in texts)
