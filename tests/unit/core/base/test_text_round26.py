"""Round 26: a cut never splits what a reader sees as one character."""

from __future__ import annotations

import pytest

from desktop.core.base.text import cut
from desktop.core.db.conversations import TITLE_LIMIT, titled

# One emoji of seven code points.
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
FLAG = "\U0001f1eb\U0001f1f7"  # France: two regional indicators
WAVE = "\U0001f44b\U0001f3fd"  # a waving hand and its skin tone
ACCENTED = "e\u0301\u0323"  # e with two combining marks


@pytest.mark.parametrize("cluster", [FAMILY, FLAG, WAVE, ACCENTED])
def test_a_title_cut_keeps_its_last_character_whole(cluster: str) -> None:
    # Each offset puts the cut at a different place inside the cluster.
    for offset in range(len(cluster) + 1):
        title = "a" * (TITLE_LIMIT - 1 - offset) + cluster * 3
        kept = titled(title)
        assert len(kept) <= TITLE_LIMIT
        assert kept.endswith("…")
        body = kept[:-1].lstrip("a")
        assert body in ("", cluster, cluster * 2), (offset, ascii(body))


def test_a_cut_of_text_short_enough_changes_nothing() -> None:
    assert cut(FAMILY * 2, len(FAMILY) * 2) == FAMILY * 2


def test_one_character_longer_than_the_limit_is_still_cut_to_it() -> None:
    # A letter carrying a hundred marks cannot be kept whole in ten: the cut
    # then keeps the letter and what marks fit rather than nothing at all.
    zalgo = "a" + "\u0301" * 100
    kept = cut(zalgo, 10)
    assert len(kept) == 10
    assert kept.startswith("a")
