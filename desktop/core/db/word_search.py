"""Which words of a query to search an FTS5 index for, by how many rows hold each.

Shared by the searches of memories and of messages: the words chosen are
those ``fts.telling_words`` keeps, given each word's count in the index (the
count stops at the budget: past it a word is too common to search for, and
counting further would cost what leaving it out saves).
"""

from __future__ import annotations

from typing import Any

from desktop.core.db.connection import Database
from desktop.core.db.fts import any_word, searchable_words, telling_words

TEXT_SEARCH_BUDGET = 2000
"""About how many rows one text search may score: FTS5 scores every row that
matches a word (a few microseconds each), and a word common enough to pass
this says little about which memory is meant (at 100,000 memories a word in
2,000 of them weighs a third of a rare one in bm25)."""


def telling_words_in(database: Database, fts_table: str, table: str, query: str) -> list[str]:
    """The words of *query* worth searching *fts_table* (the index of *table*) for."""
    words = searchable_words(query)
    if not words:
        return []
    cap = TEXT_SEARCH_BUDGET + 1
    counted = " UNION ALL ".join(
        f"SELECT {n}, (SELECT count(*) FROM (SELECT 1 FROM {fts_table}"
        f" WHERE {fts_table} MATCH ? LIMIT ?))"
        for n in range(len(words))
    )
    params: list[Any] = []
    for word in words:
        params += [any_word([word]), cap]
    counts = {int(row[0]): int(row[1]) for row in database.fetch_all(counted, params)}
    rows = database.fetch_value(f"SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT ?)", (2 * cap,))
    return telling_words(words, [counts[n] for n in range(len(words))], rows, TEXT_SEARCH_BUDGET)
