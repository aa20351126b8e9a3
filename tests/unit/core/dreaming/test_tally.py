"""Tests of a pass's count of changes: said when it ends, said again as the user decides."""

from __future__ import annotations

import pytest

from desktop.core.db.tally import described, notes_of, outcome_now, recounted

NOTE = "A merge of #1, #2 was refused: it dropped 10."


@pytest.mark.parametrize(
    ("counts", "said"),
    [
        ({}, "Nothing to change."),
        ({"applied": 1}, "1 change applied."),
        ({"applied": 2, "pending": 1}, "2 changes applied, 1 waiting for your approval."),
        ({"pending": 1}, "1 change waiting for your approval."),
        ({"applied": 0, "pending": 2}, "2 changes waiting for your approval."),
        ({"rejected": 1, "reverted": 2}, "1 change rejected, 2 undone."),
    ],
)
def test_a_count_says_only_what_there_is(counts: dict[str, int], said: str) -> None:
    assert described(counts) == said


@pytest.mark.parametrize(
    "logged",
    [
        "0 changes applied, 1 waiting for your approval.",  # as dreams wrote it before
        "1 change waiting for your approval.",
    ],
)
def test_a_recount_replaces_the_count_and_keeps_the_notes(logged: str) -> None:
    assert recounted(f"{logged} {NOTE}", ["applied"]) == f"1 change applied. {NOTE}"
    assert recounted(logged, ["rejected"]) == "1 change rejected."
    assert notes_of(f"{logged} {NOTE}") == NOTE


def test_a_message_without_a_count_is_all_notes() -> None:
    assert notes_of(NOTE) == NOTE
    assert notes_of("Nothing to change.") == ""
    assert recounted(NOTE, ["applied", "pending"]) == (
        f"1 change applied, 1 waiting for your approval. {NOTE}"
    )


@pytest.mark.parametrize(
    ("statuses", "now"),
    [
        (["applied", "rejected"], "applied"),
        (["reverted"], "applied"),  # it made a change, later undone
        (["pending", "rejected"], "pending"),
        (["rejected", "rejected"], "nothing"),
        ([], "applied"),
    ],
)
def test_a_pass_that_made_changes_reads_as_its_changes_stand(statuses: list[str], now: str) -> None:
    assert outcome_now("applied", statuses) == now
    assert outcome_now("rolled_back", statuses) == "rolled_back"
