"""Round 27: a conversation's title was searched with its case folded alone,
while its messages are searched through an index that reads them without
accents: "cafe" found a message saying "Café" but not a conversation
titled so, and neither "file" found the full-width "File" nor "x2" found
"x²" in a title.  A title is compared in its compatibility form, case
folded, without accents now (``searchable``), the query likewise.
"""

from __future__ import annotations

import pytest

from desktop.core.base.text import searchable
from desktop.core.db import ConversationStore

TITLES = {
    "file": ["My \ufb01le notes", "\uff26\uff49\uff4c\uff45 cabinet"],
    "cafe": ["Caf\u00e9 in Rome", "Cafe\u0301 in Paris"],
    "café": ["Caf\u00e9 in Rome", "Cafe\u0301 in Paris"],
    "x2": ["x\u00b2 and other powers"],
    "hello": ["\u210cello in black letter"],
    "istanbul": ["\u0130stanbul trip"],
    "STRASSE": ["Stra\u00dfe names"],
}


@pytest.mark.parametrize(("query", "found"), TITLES.items(), ids=TITLES.keys())
def test_a_title_is_found_whatever_its_form_or_accents(
    store: ConversationStore, query: str, found: list[str]
) -> None:
    for title in {t for titles in TITLES.values() for t in titles}:
        store.create(title)
    store.create("Unrelated")

    assert sorted(c.title for c in store.search(query)) == sorted(found)


def test_searchable_text_is_what_the_index_reads() -> None:
    assert searchable("\ufb01le \uff26\uff49\uff4c\uff45 Caf\u00e9 x\u00b2 ARGER") == (
        "file file cafe x2 arger"
    )
    assert searchable("\u0416\u0443\u0440\u043d\u0430\u043b \u65e5\u8a18") == (
        "\u0436\u0443\u0440\u043d\u0430\u043b \u65e5\u8a18"
    )  # other scripts: case folded, kept
