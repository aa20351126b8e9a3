"""Redaction skips the patterns whose needed words a text lacks
(``text_scan.may_match``); what it takes out must be exactly what it takes
out when every pattern is searched."""

from __future__ import annotations

import random

import pytest

from desktop.core.base import text_scan
from desktop.core.privacy.redaction import redact
from tests import (
    secret_families,
    secret_families_round22,
    secret_families_round23,
    secret_situations,
)

EVERYDAY = [
    "We planted tulips before the frost and the soil was still warm.",
    "Can you remind me to call the plumber on Tuesday at 3?",
    "The recipe wants 200 g of butter, 2 eggs and a pinch of salt.",
    "I keep forgetting where I put the spare key to the shed.",
    "My sister passed her driving test on the second try!",
]


def _texts() -> list[tuple[str, tuple[str, ...]]]:
    texts: list[tuple[str, tuple[str, ...]]] = [(text, ()) for text in EVERYDAY]
    for module in (secret_families, secret_families_round22, secret_families_round23):
        for family in module.FAMILIES:
            texts += [(trial.text, trial.after) for trial in module.trials(family, 2, seed=21)]
            texts += [(negative[1], ()) for negative in module.negatives(family)][:2]
    for make in secret_situations.FAMILIES.values():
        rng = random.Random(21)
        texts += [(trial.text, trial.after) for trial in (make(rng) for _ in range(2))]
    # A paste of many of them, as one text.
    texts.append(("\n".join(text for text, _ in texts[::4]), ()))
    return texts


@pytest.mark.slow
def test_redaction_with_the_word_tests_is_redaction_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = _texts()
    tested = [redact(text, after=after).text for text, after in texts]
    monkeypatch.setattr(text_scan, "may_match", lambda pattern, text: True)
    searched = [redact(text, after=after).text for text, after in texts]
    assert len(texts) > 200
    for (text, _), left, right in zip(texts, tested, searched, strict=True):
        assert left == right, text
