"""A Reverie data folder with something of every kind in it, for the archive tests.

Real SQLite, real stores: conversations (one off the record, one deleted
but restorable, one compacted with a part the harvest gave up on, one
erased for good), messages with
metadata, memories with history and provenance (one superseded, one made
by a dream), tasks (one scheduled), a skill, a draft, its use, a dream run
with a change and a log line, a background worker with its transcript, and
settings of the user's own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import ModelSettings, Settings, save_settings
from desktop.core.db import ConversationStore, Database, DreamStore, MemoryStore, open_database
from desktop.core.db.schedules import Interval
from desktop.core.db.skills import SkillStore
from desktop.core.db.tasks import TaskStore
from desktop.core.db.workers import NewWorker, WorkerStore
from desktop.core.skills.library import SkillLibrary
from tests.erasers import eraser_for

ERASED_WORDS = "Zanzibar marmalade ferry"
"""Only ever said in the conversation erased for good."""


@dataclass(frozen=True)
class World:
    paths: AppPaths
    database: Database
    compacted: int
    off_record: int
    deleted: int


def folder(root: Path) -> AppPaths:
    """The folders of one installation under *root* (its data folder made)."""
    paths = AppPaths(root / "data", root / "config", root / "cache")
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    return paths


def open_folder(paths: AppPaths) -> Database:
    return open_database(paths.database_file)


def library(database: Database, paths: AppPaths) -> SkillLibrary:
    return SkillLibrary(SkillStore(database), paths.skills_dir)


def fill(paths: AppPaths) -> World:
    """Open the database of *paths* and put something of every kind in it."""
    database = open_folder(paths)
    conversations = ConversationStore(database)
    memories = MemoryStore(database)

    trip = conversations.create("Trip plans")
    asked = conversations.add_message(trip.id, "user", "I love hiking in the Alps.")
    conversations.add_message(
        trip.id, "assistant", "The Alps are lovely.", token_count=5, metadata={"model": "tiny"}
    )
    latest = conversations.add_message(trip.id, "user", "Remind me to pack socks.")
    conversations.apply_compaction(trip.id, "They talked about hiking.", asked.id)
    conversations.skip_harvest(trip.id, asked.id, asked.id, attempts=3, reason="unusable answer")
    conversations.mark_harvested(trip.id, latest.id)

    diary = conversations.create("Diary", off_record=True)
    conversations.add_message(diary.id, "user", "Nobody should learn this.")
    old = conversations.create("Old chat")
    conversations.add_message(old.id, "user", "Something from long ago.")
    conversations.delete(old.id)

    gone = conversations.create("To forget")
    erased_message = conversations.add_message(gone.id, "user", f"My {ERASED_WORDS} story.")

    hiking = memories.add(
        "The user loves hiking in the Alps.",
        embedding=None,
        source_kind="harvested",
        actor="harvest",
        source_message_ids=[asked.id, erased_message.id],
        external_refs=["bench:turn-1"],
    )
    memories.update_content(hiking.id, "The user loves hiking in the Swiss Alps.", None, "user")
    berlin = memories.add(
        "The user lives in Berlin.", embedding=None, source_kind="user_explicit", actor="user"
    )
    hamburg = memories.add(
        "The user lives in Hamburg.", embedding=None, source_kind="user_explicit", actor="user"
    )
    memories.set_status(berlin.id, "superseded", "user", superseded_by=hamburg.id)
    dreams = DreamStore(database)
    run = dreams.start("manual")
    with database.transaction() as tx:
        change = dreams.add_change(
            tx, run.id, "dedup", "merge", "Merged two memories", {"memory": hiking.id},
            status="applied", risky=False, now=time.time(),
        )  # fmt: skip
    memories.add(
        "The user enjoys mountains.",
        embedding=None,
        source_kind="dream_merged",
        actor="dream:dedup",
        dream_run_id=run.id,
        source_message_ids=[asked.id],
    )
    dreams.log(run.id, "dedup", "applied", f"change {change}")
    with database.transaction() as tx:
        DreamStore.set_judged_through(tx, "dedup", time.time(), time.time())
    dreams.finish(run.id, "completed", {"merged": 1})

    tasks = TaskStore(database)
    tasks.add("Pack socks", conversation_id=trip.id, priority=7)
    tasks.add("Stretch", conversation_id=None, schedule=Interval(90), next_run_at=time.time() + 60)

    skills = library(database, paths)
    skills.create("Packing", "How to pack for a hike\n- socks\n- water")
    skills.create("Draft idea", "A drafted procedure\nstep one", draft=True)
    skills.use("Packing", trip.id)

    workers = WorkerStore(database)
    with workers.transaction() as tx:
        worker = workers.add(
            NewWorker(trip.id, "find huts", "minimal", ("search",), 3, 60.0, asked_in=latest.id),
            tx,
        )
    workers.add_message(worker, "user", "find huts")

    save_settings(Settings(models=ModelSettings(max_reply_tokens=1024)), paths.settings_file)
    eraser_for(database, paths).erase_conversations([gone.id])
    return World(paths, database, trip.id, diary.id, old.id)
