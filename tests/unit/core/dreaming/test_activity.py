"""Whether the user is mid-conversation (``UserActivity``): a dream asked for
right after Reverie's own greeting does not wait the quiet period."""

from __future__ import annotations

from desktop.core.dreaming.activity import UserActivity


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_turn_of_the_user_starts_the_quiet_period_again() -> None:
    clock = Clock()
    activity = UserActivity(clock)
    activity.turn_started()
    assert activity.busy and not activity.quiet(30)

    activity.turn_ended()

    assert not activity.quiet(30)
    clock.now += 30
    assert activity.quiet(30)


def test_a_greeting_reverie_said_on_its_own_is_waited_for_but_not_after() -> None:
    activity = UserActivity(Clock())
    activity.turn_started()
    assert not activity.quiet(30)  # the model is busy with it

    activity.turn_ended(by_user=False)

    assert activity.quiet(30)
    assert activity.wait_until_quiet(30, lambda: False)
