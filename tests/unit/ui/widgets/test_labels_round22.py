"""Round 22: a run without spaces is given places to break, and nothing else
changes: an accent, an emoji's parts and the text itself stay whole."""

from __future__ import annotations

import unicodedata

from desktop.ui.widgets.labels import BREAK_EVERY, unwrapped, wrappable

ZWSP = "\u200b"


def test_a_long_run_breaks_every_so_often_and_reads_the_same() -> None:
    link = "https://example.com/" + "a" * 200
    shown = wrappable(f"see {link} now")

    assert unwrapped(shown) == f"see {link} now"
    assert max(len(part) for part in shown.split(ZWSP)) <= BREAK_EVERY + len("see ")
    assert wrappable("short words stay as they are") == "short words stay as they are"


def test_no_break_splits_an_accent_or_an_emoji() -> None:
    zalgo = "Z\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308" * 20
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466" * 20
    thumbs = "\U0001f44d\U0001f3fd\ufe0f" * 30
    for text in (zalgo, family, thumbs):
        shown = wrappable(text)
        assert ZWSP in shown and unwrapped(shown) == text
        for index, char in enumerate(shown):
            if char == ZWSP:
                after, before = shown[index + 1], shown[index - 1]
                assert unicodedata.category(after) not in ("Mn", "Cf")
                assert "\u200d" not in (before, after)
                assert not 0x1F3FB <= ord(after) <= 0x1F3FF and after != "\ufe0f"
