"""Migration 17: the full-text indexes keep the marks on a word's letters.

FTS5's ``unicode61`` tokenizer reads only letters and digits as a word's
characters by default, so a mark ended a word: the vowel signs of Hindi,
Bengali or Tamil and the tone marks of Thai split one word into pieces,
"दिल्ली" (Delhi) into द, ल and ल, and any text holding those letters
matched.  ``messages_fts`` and ``memories_fts`` are made again with marks
read as a word's characters (``categories 'L* N* Co M*'``; the accents of
Latin letters are still taken off, ``remove_diacritics 2``), each text as
``fts.indexed_text`` now makes it, which also reads Thai, Lao, Khmer and
Burmese letter by letter, as schema_v16 does Chinese.  Released: never
edit this migration.
"""

from __future__ import annotations


def _index(name: str, table: str) -> str:
    return f"""
DROP TRIGGER {name}_insert;
DROP TRIGGER {name}_delete;
DROP TRIGGER {name}_update;
DROP TABLE {name};
CREATE VIRTUAL TABLE {name} USING fts5 (
    content, content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2 categories ''L* N* Co M*'''
);
INSERT INTO {name} (rowid, content) SELECT id, indexed_text(content) FROM {table};
CREATE TRIGGER {name}_insert AFTER INSERT ON {table} BEGIN
    INSERT INTO {name} (rowid, content) VALUES (new.id, indexed_text(new.content));
END;
CREATE TRIGGER {name}_delete AFTER DELETE ON {table} BEGIN
    DELETE FROM {name} WHERE rowid = old.id;
END;
CREATE TRIGGER {name}_update AFTER UPDATE OF content ON {table} BEGIN
    DELETE FROM {name} WHERE rowid = old.id;
    INSERT INTO {name} (rowid, content) VALUES (new.id, indexed_text(new.content));
END;
"""


SQL = _index("messages_fts", "messages") + _index("memories_fts", "memories")
