"""Round 26: a memory the user just acted on, faded and archived as unused.

Fading and staleness are keyed on when a memory was last seen, and only a
harvest (or a preference) seeing it again moved that time.  So a memory the
user restored from the archive was archived again by the very next dream
("unseen for 90 days"), and one the user had just corrected, unseen by a
harvest for three months, was faded and archived after their edit: what
the user had just chosen was undone without them.
"""

from __future__ import annotations

from desktop.core.dreaming.control import DreamControl
from tests.unit.core.dreaming.conftest import DAY, Dreaming


def _dream(dreaming: Dreaming) -> None:
    dreaming.dreamer.run("manual", DreamControl())


def test_a_memory_the_user_restored_is_not_archived_again_by_the_next_dream(
    dreaming: Dreaming,
) -> None:
    band = dreaming.add("The user once liked a band called Vesper.")
    dreaming.clock.advance(91 * DAY)
    _dream(dreaming)
    assert dreaming.get(band.id).status == "archived"

    dreaming.clock.advance(DAY)
    dreaming.memories.set_status([band.id], "active")  # the user restores it
    dreaming.clock.advance(DAY)
    _dream(dreaming)

    assert dreaming.get(band.id).status == "active"


def test_a_memory_the_user_just_corrected_neither_fades_nor_is_archived(
    dreaming: Dreaming,
) -> None:
    band = dreaming.add("The user once liked a band called Vesper.")
    dreaming.clock.advance(89 * DAY)
    dreaming.memories.edit(
        band.id, "The user still likes a band called Vesper.", expected=band.content
    )
    dreaming.clock.advance(2 * DAY)
    _dream(dreaming)

    kept = dreaming.get(band.id)
    assert kept.status == "active"
    assert kept.current_importance == band.importance


def test_a_memory_merely_unseen_still_fades_and_goes_stale(dreaming: Dreaming) -> None:
    band = dreaming.add("The user once liked a band called Vesper.")
    dreaming.clock.advance(60 * DAY)
    _dream(dreaming)
    assert dreaming.get(band.id).current_importance < band.importance
    dreaming.clock.advance(31 * DAY)
    _dream(dreaming)
    assert dreaming.get(band.id).status == "archived"


def test_an_archive_the_user_undid_is_not_made_again_by_the_next_dream(
    dreaming: Dreaming,
) -> None:
    band = dreaming.add("The user once liked a band called Vesper.")
    dreaming.clock.advance(91 * DAY)
    report = dreaming.dreamer.run("manual", DreamControl())
    assert dreaming.get(band.id).status == "archived"

    dreaming.clock.advance(DAY)
    dreaming.dreamer.book.revert_run(report.run.id)
    dreaming.clock.advance(DAY)
    _dream(dreaming)

    assert dreaming.get(band.id).status == "active"
