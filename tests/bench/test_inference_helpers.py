"""The benchmark's own arithmetic (the benchmark itself runs with `make bench`)."""

from __future__ import annotations

from tests.bench.inference import ratio, sentences, side_by_side, timed


def test_timed_separates_the_wait_for_the_first_piece() -> None:
    text, whole, after_first = timed(iter(["", "", "a", "b"]))
    assert text == "ab"
    assert 0 <= after_first <= whole


def test_side_by_side_reports_every_side_and_their_ratio() -> None:
    results = side_by_side(
        {"one": lambda: iter(["x", "y"]), "two": lambda: iter(["x", "y", "z"])},
        count=len,
        rounds=2,
    )
    assert {results["one"]["tokens"], results["two"]["tokens"]} == {2, 3}
    assert ratio(results, "one", "two", "tokens_per_s") > 0


def test_sentences_are_distinct_and_short() -> None:
    texts = sentences(300)
    assert len(set(texts)) == 300
    assert max(len(t.split()) for t in texts) < 12
