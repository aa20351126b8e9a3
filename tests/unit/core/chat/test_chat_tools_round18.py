"""Round 18: the chat's tools changed the user's memories and tasks on the
model's call alone ("hi" stored an allergy, paused a daily medication,
"take care" deleted it)."""

from __future__ import annotations

import pytest

from desktop.core.chat.tools.tasks import TaskCall, _check_the_users_call
from desktop.core.chat.tools.toolbox import ToolContext, ToolFailed
from desktop.core.db.tasks import Task


def _task(text: str) -> Task:
    return Task(1, 1, text, 5, "active", None, None, 0.0, 0.0, None, None, None)


@pytest.mark.parametrize(
    ("action", "text", "said", "asked"),
    [
        ("pause", "Take warfarin", "hi, what's the weather like?", ""),
        ("delete", "Take warfarin", "Thanks, take care!", ""),
        ("delete", "Renew passport", "Please don't delete the passport task, I still need it", ""),
        ("complete", "Renew passport", "I haven't renewed my passport yet", ""),
        ("complete", "Renew passport", "Should I renew my passport?", ""),
        ("delete", "Take warfarin", "ok", "Good morning! Remember your warfarin at 8."),
    ],
)
def test_a_change_the_user_did_not_ask_for_is_refused(
    action: str, text: str, said: str, asked: str
) -> None:
    context = ToolContext(1, (), said, asked)
    with pytest.raises(ToolFailed):
        _check_the_users_call(_task(text), TaskCall(action=action, id=1), context)


@pytest.mark.parametrize(
    ("action", "text", "said"),
    [
        ("complete", "Renew passport", "I renewed my passport today."),
        ("delete", "Take warfarin", "I don't need the warfarin reminder any more"),
        ("pause", "Take warfarin", "Pause my warfarin reminder while I'm away"),
    ],
)
def test_a_change_the_user_asked_for_is_made(action: str, text: str, said: str) -> None:
    context = ToolContext(1, (), said)
    _check_the_users_call(_task(text), TaskCall(action=action, id=1), context)
