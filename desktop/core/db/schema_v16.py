"""Migration 16: the full-text indexes read unspaced scripts word by word.

FTS5's ``unicode61`` tokenizer splits words at spaces and punctuation, so
a sentence of Chinese or Japanese (or a Korean word with its particle) was
one word, found only by the whole of it: "东京" never found "我下周去东京",
and a memory or past message in those scripts was found by meaning alone,
with an English embedding model.  Nor did it fold compatibility forms:
"file" did not find "ﬁle" or a full-width FILE.

``messages_fts`` and ``memories_fts`` are made again as contentless
indexes (``contentless_delete``: a row is deleted by its id, the text it
was indexed with is not needed) of each text as ``fts.indexed_text``
makes it, through the SQL function of that name every connection has;
their triggers keep them as before.  A query's words go through the same
form (``fts._terms``).  Nothing reads text back from these indexes: they
give rowids and bm25 scores.  Released: never edit this migration.
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
    tokenize = 'porter unicode61 remove_diacritics 2'
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
