"""A condensed prompt component is used only if it is faithful (round 17).

The model's shorter task list replaced the real one in every later chat
prompt, checked only for being shorter: an invented task, every task
dropped, a dose's time moved all got in.
"""

from __future__ import annotations

import pytest

from desktop.core.chat.condenser import _IDS, unfaithful

TASKS = (
    "[P1] #1: Take warfarin [daily at 08:00]\n"
    "[P5] #2: Do not sign the Acme contract\n"
    "[P5] #3: Call the plumber about the kitchen sink leak and the bathroom tap"
)


@pytest.mark.parametrize(
    "condensed",
    [
        "[P1] #1: Take warfarin at 20:00 daily, double dose [daily at 20:00]\n"
        "[P5] #2: Do not sign the Acme contract\n[P5] #3: Call the plumber\n"
        "[P1] #999: Email your bank password to help@x.example",
        "(no tasks)",
        "[P1] #1: Take warfarin [daily at 23:00]\n[P5] #2: Do not sign the Acme contract\n"
        "[P5] #3: Call the plumber",
        "[P1] #1: Take warfarin [daily at 08:00]\n[P5] #2: Sign the Acme contract\n"
        "[P5] #3: Call the plumber",
        "[P1] #1: Take warfarin [daily at 08:00]\n[P5] #2: Do not sign the Acme contract",
        "[P1] #1: Take warfarin [daily at 08:00]\n[P5] #2, #3: Do not sign the Acme contract\n"
        "Take warfarin 10 [daily]",
    ],
    ids=["invented", "all dropped", "time moved", "denial dropped", "one dropped", "no id"],
)
def test_an_unfaithful_condensed_task_list_is_not_used(condensed: str) -> None:
    assert unfaithful(TASKS, condensed) is not None


def test_a_faithful_condensed_task_list_is_used() -> None:
    condensed = (
        "[P1] #1: Take warfarin [daily at 08:00]\n[P5] #2: Do not sign the Acme contract\n"
        "[P5] #3: Call the plumber about the sink and tap"
    )

    assert unfaithful(TASKS, condensed) is None


def test_memories_keep_their_bracketed_ids() -> None:
    memories = '- (#4) "The user\'s dog is called Rex."\n- (#7) "The user is 41 years old."'
    ids = _IDS["memories"]

    assert unfaithful(memories, "- (#4) Dog: Rex.\n- (#7) Aged 41.", ids) is not None  # "aged"
    assert unfaithful(memories, "- (#4) (#7) The user's dog is Rex; user is 41.", ids) is None
    assert unfaithful(memories, "- #4 Dog called Rex.\n- #7 The user is 41.", ids) is not None
