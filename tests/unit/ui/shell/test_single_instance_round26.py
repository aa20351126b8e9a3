"""Round 26: two launches at the same moment.

Over a socket a crash left, both found the socket file refusing (nobody
listened), so both took it for the crash's leftover.  The first removed it
and listened; the second, whose listening then failed because the first now
listened there, removed the first one's live socket as stale and listened
in its place: two Reveries over one database, the first unreachable by any
later launch.  With no socket there, the second's listening failed the same
way and it reported the first one's socket as a file in the way ("if no
Reverie is running, remove that file") instead of waking it."""

from __future__ import annotations

import os

import pytest
from pytestqt.qtbot import QtBot

from desktop.ui.shell.single_instance import SingleInstance
from tests.unit.ui.shell.test_single_instance import _stale_socket
from tests.unit.ui.shell.test_single_instance import key as key  # the fixture

unix_only = pytest.mark.skipif(os.name != "posix", reason="socket files are a Unix matter")


class _Overtaken(SingleInstance):
    """A launch that the *other* one overtakes between its look at the
    socket (refused: stale) and its own listening, as the scheduler may
    order two processes started together."""

    def __init__(self, key: str, other: SingleInstance) -> None:
        super().__init__(key)
        self._other: SingleInstance | None = other

    def _listen(self) -> str:
        if self._other is not None:
            other, self._other = self._other, None
            assert other.claim()  # it removes the stale file and listens
        return super()._listen()


@unix_only
@pytest.mark.parametrize("left_by_a_crash", [True, False], ids=["stale socket", "none"])
def test_a_launch_overtaken_by_another_wakes_it_instead_of_taking_its_socket(
    qtbot: QtBot, key: str, left_by_a_crash: bool
) -> None:
    if left_by_a_crash:
        _stale_socket(key)
    first = SingleInstance(key)
    second = _Overtaken(key, first)
    try:
        with qtbot.waitSignal(first.activation_requested, timeout=5000):
            assert not second.claim()
        with qtbot.waitSignal(first.activation_requested, timeout=5000):
            assert not SingleInstance(key).claim()  # the first still answers
    finally:
        second.release()
        first.release()
