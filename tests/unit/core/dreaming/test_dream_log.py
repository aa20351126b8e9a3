"""An unusable dream answer is kept in the log only in part, and redacted."""

from __future__ import annotations

from pathlib import Path

from desktop.core.db import Database
from desktop.core.dreaming.control import DreamControl
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import DAY, Dreaming

REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
HUGE = 5 * 1024 * 1024


def _on_disk(database: Database) -> int:
    """The database's size with its WAL folded in."""
    database.fetch_value("PRAGMA wal_checkpoint(TRUNCATE)")
    path = database.path
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def test_a_5_mb_unusable_answer_grows_the_database_by_little_and_keeps_no_secret(
    dreaming: Dreaming, model: ScriptedChatModel, database: Database
) -> None:
    dreaming.add(REX)
    dreaming.add(REX_TWIN)
    dreaming.clock.advance(DAY)
    start = '{"toSave": [{"content": "my bank password is hunter2 '
    answer = start + "x" * (HUGE - len(start))
    model.queue(answer)
    before = _on_disk(database)

    report = dreaming.dreamer.run("manual", DreamControl())

    log = {e.pass_name: e for e in dreaming.dreamer.dreams.log_entries(report.run.id)}
    assert log["dedup"].outcome == "rolled_back"
    kept = log["dedup"].raw_output
    assert kept is not None
    assert kept.startswith('{"toSave": [{"content": "my bank password is [redacted password]')
    assert "hunter2" not in kept
    assert f"{len(answer):,} characters" in kept
    assert len(kept) < 5_000
    assert _on_disk(database) - before < 100 * 1024


def test_a_short_unusable_answer_is_kept_whole_but_redacted(
    dreaming: Dreaming, model: ScriptedChatModel
) -> None:
    dreaming.add(REX)
    dreaming.add(REX_TWIN)
    answer = '{"toSave": [{"content": "the wifi password is hunter2"'
    model.queue(answer)

    report = dreaming.dreamer.run("manual", DreamControl())

    log = {e.pass_name: e for e in dreaming.dreamer.dreams.log_entries(report.run.id)}
    assert log["dedup"].raw_output == answer.replace("hunter2", "[redacted password]")
