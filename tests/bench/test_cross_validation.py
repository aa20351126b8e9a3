"""The benchmark's cross-validation: a variant is chosen on the other folds only."""

from __future__ import annotations

from tests.bench.cross_validation import Scored, cross_validated


def _item(group: str, a: float, b: float) -> Scored:
    return Scored(f"{group}-{a}-{b}", group, "1", {"a": {"r": a}, "b": {"r": b}})


def test_each_fold_is_scored_with_the_variant_best_on_the_others() -> None:
    # Both score 2/3 in-sample; held out, the choice made without a fold loses on it.
    items = [_item("x", 0.0, 1.0), _item("y", 1.0, 0.5), _item("z", 1.0, 0.5)]

    figure, chosen = cross_validated(items, ["a", "b"], "r")

    # Without x, "a" does better (1.0 against 0.5); without y or z, "b" does
    # (0.75 against 0.5): each choice then loses on the fold it is scored on.
    assert chosen == {"x": "a", "y": "b", "z": "b"}
    assert figure == (0.0 + 0.5 + 0.5) / 3


def test_a_tie_goes_to_the_earlier_simpler_variant() -> None:
    items = [_item("x", 0.5, 0.5), _item("y", 0.5, 0.5)]

    assert cross_validated(items, ["a", "b"], "r")[1] == {"x": "a", "y": "a"}
