"""Whether two memories say one thing is read in every script (round 31).

``_specifics`` read words with Python's ``\\w{3,}``, which leaves out the
marks on letters, and denials in English only: "मैं मांस नहीं खाता" (I do
not eat meat) was one fact with "मैं मांस खाता" (I eat meat) when their
vectors were close, so the correction was counted as the old memory seen
again, and a merge of "我对花生过敏" (allergic to peanuts) into "我对花生不过敏"
(not allergic) said nothing opposite."""

from __future__ import annotations

import pytest

from desktop.core.memory.service import merge_problem
from tests.unit.core.memory.test_memory_service_round11 import _fold

DENIED = [
    ("मैं मांस खाता हूँ", "मैं मांस नहीं खाता हूँ"),  # Hindi
    ("我对花生过敏", "我对花生不过敏"),  # Chinese
    ("ฉันแพ้ถั่ว", "ฉันไม่แพ้ถั่ว"),  # Thai
    ("Saya makan daging", "Saya tidak makan daging"),  # Indonesian
    ("Tôi ăn thịt", "Tôi không ăn thịt"),  # Vietnamese
]
OTHER_PLACE = [
    ("मेरी बहन दिल्ली में रहती है", "मेरी बहन मुंबई में रहती है"),
    ("我妹妹住在北京", "我妹妹住在上海"),
]


@pytest.mark.parametrize(("said", "other"), DENIED + OTHER_PLACE)
def test_a_denial_or_another_place_is_another_fact_however_close_the_vectors(
    said: str, other: str
) -> None:
    assert _fold(said, other) == [(said, (0,)), (other, (1,))]
    assert _fold(said, said) == [(said, (0, 1))]


@pytest.mark.parametrize(("said", "other"), DENIED + OTHER_PLACE)
def test_a_merge_into_the_other_is_refused(said: str, other: str) -> None:
    assert merge_problem([said], other) is not None
    assert merge_problem([said, said], said) is None
