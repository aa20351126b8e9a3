"""A merge is judged as faithfully in every script as in English (round 31).

The host read words with Python's ``\\w``, which leaves out the marks on
letters, and took a sentence of Chinese or Thai as one word: a merge of
"मेरी बहन दिल्ली में रहती है" (my sister lives in Delhi) into "... मुंबई ..."
(Mumbai) added no word it could see, and "我对花生过敏" (allergic to peanuts)
merged into "我对花生不过敏" (not allergic) denied nothing it knew of.  Both
replaced the user's memory with the opposite."""

from __future__ import annotations

import pytest

from desktop.core.base.content_words import DENIED, changes, related
from desktop.core.dreaming.dedup import unfaithful

SWAPPED = [
    # (a memory, a merge of it that says another thing)
    ("मेरी बहन दिल्ली में रहती है", "मेरी बहन मुंबई में रहती है"),  # Hindi: Delhi to Mumbai
    ("আমার বোন ঢাকায় থাকে", "আমার বোন চট্টগ্রামে থাকে"),  # Bengali
    ("我妹妹住在北京", "我妹妹住在上海"),  # Chinese
    ("妹は大阪に住んでいます", "妹は東京に住んでいます"),  # Japanese
    ("여동생은 부산에 살아요", "여동생은 서울에 살아요"),  # Korean
    ("น้องสาวฉันอยู่กรุงเทพ", "น้องสาวฉันอยู่เชียงใหม่"),  # Thai
]
DENIED_AFTER = [
    # (a memory, the same with a denial the memory does not have)
    ("我对花生过敏", "我对花生不过敏"),
    ("我吃肉", "我没吃肉"),
    ("ピーナッツアレルギーがあります", "ピーナッツアレルギーはありません"),
    ("땅콩 알레르기가 있어요", "땅콩 알레르기가 없어요"),
    ("ฉันแพ้ถั่ว", "ฉันไม่แพ้ถั่ว"),
    ("मुझे मूंगफली से एलर्जी है", "मुझे मूंगफली से एलर्जी नहीं है"),
    ("У меня аллергия на арахис", "У меня нет аллергии на арахис"),  # noqa: RUF001
    ("Saya alergi kacang", "Saya tidak alergi kacang"),
    ("Tôi bị dị ứng đậu phộng", "Tôi không bị dị ứng đậu phộng"),
    ("Fıstığa alerjim var", "Fıstığa alerjim yok"),  # noqa: RUF001
    ("Ik ben allergisch voor pinda's", "Ik ben niet allergisch voor pinda's"),
    ("Mam alergię na orzeszki", "Nie mam alergii na orzeszki"),
    ("Jag är allergisk mot jordnötter", "Jag är inte allergisk mot jordnötter"),
    ("لدي حساسية من الفول السوداني", "ليس لدي حساسية من الفول السوداني"),
]


@pytest.mark.parametrize(("memory", "merged"), SWAPPED)
def test_a_merge_saying_another_place_is_refused_in_every_script(memory: str, merged: str) -> None:
    assert unfaithful([memory], merged) is not None
    assert unfaithful([memory], memory) is None
    assert unfaithful([memory, merged], merged) is None  # both said it: it adds nothing


@pytest.mark.parametrize(("memory", "denied"), DENIED_AFTER)
def test_a_merge_denying_what_the_memory_says_is_refused(memory: str, denied: str) -> None:
    assert DENIED not in changes(memory)
    assert DENIED in changes(denied)
    assert unfaithful([memory], denied) is not None
    assert unfaithful([denied], denied) is None


def test_texts_of_unspaced_scripts_are_related_by_a_shared_word_not_a_shared_letter() -> None:
    assert related("我住在北京", "北京很冷")
    assert not related("我住在北京", "上海很热")
    assert related("दिल्ली में बारिश", "मैं दिल्ली जा रहा हूँ")
    assert not related("दिल्ली में बारिश", "दल बदल")
