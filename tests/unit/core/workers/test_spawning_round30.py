"""Round 30: an objective that shows nothing (accents with no letter, a
blank braille cell, a Hangul filler) was a worker's objective: the Work
window showed an empty row and the worker was asked to do nothing.  It is
refused as a blank one is."""

from __future__ import annotations

import pytest

from desktop.core.workers.dag import SpawnRefused
from tests.unit.core.workers.conftest import MakeWorld


@pytest.mark.parametrize("objective", ["\u0301\u0302", "\u2800 \u2800", "\u3164", "\ufe0f\u034f"])
def test_an_objective_that_shows_nothing_is_refused_as_blank(
    make_world: MakeWorld, objective: str
) -> None:
    world = make_world()

    with pytest.raises(SpawnRefused, match="objective is blank"):
        world.spawn(objective)

    assert world.workers.list() == []
