"""A process killed with SIGKILL in the middle of a worker's run, then
started again: every worker ends in a final state, none runs twice, and
each is reported once."""

from __future__ import annotations

import signal
from pathlib import Path

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import WorkerSettings
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.workers import WorkerStore
from desktop.core.workers.service import ConversationReporter, Workers
from models.broker import InferenceBroker
from tests.children import READY_S, start_ready
from tests.fakes import HashingEmbedder
from tests.unit.core.db.conftest import FakeClock
from tests.unit.core.workers.conftest import BERLIN, ByObjective, RunningClock
from tests.unit.core.workers.kill_child import GATE_S, note_tool


def test_workers_killed_mid_run_resume_once_and_all_end(tmp_path: Path) -> None:
    path, journal = tmp_path / "reverie.sqlite3", tmp_path / "notes.txt"
    child = start_ready(
        ["-m", "tests.unit.core.workers.kill_child", str(path), str(journal)], "workers"
    )
    child.send_signal(signal.SIGKILL)
    child.wait(READY_S)
    assert child.stdout is not None
    child.stdout.close()

    with open_database(path) as database:
        store = WorkerStore(database)
        before = {w.objective: w for w in store.list()}
        model = ByObjective(RunningClock())
        model.script("draft", "Draft finished.")
        broker = InferenceBroker()
        broker.start()
        try:
            broker.load_chat_model(lambda: model).result(timeout=5)
            broker.load_embedder(HashingEmbedder).result(timeout=5)
            conversations = ConversationStore(database)
            [conversation] = conversations.list()
            now = FakeClock(before["gather"].created_at + 60)
            workers = Workers(
                store,
                conversations,
                broker,
                PromptLibrary(tmp_path / "prompts"),
                ConversationReporter(conversations),
                tools=[note_tool(journal)],
                settings=WorkerSettings(quiet_seconds=0),
                zone=lambda: BERLIN,
                now=now,
            )
            workers.recover()
            resumed = workers.ready()
            for worker_id in resumed:
                workers.run_one(worker_id, lambda: False)
            for worker_id in workers.ready():
                workers.run_one(worker_id, lambda: False)
            waiting = {w.objective: w.state for w in store.list()}
            now.advance(GATE_S)
            for worker_id in workers.ready():
                workers.run_one(worker_id, lambda: False)
            after = {w.objective: w for w in store.list()}
            kept = [m.metadata or {} for m in conversations.messages(conversation.id)]
            events = [m["workers"] for m in kept if m.get("kind") == ConversationReporter.KIND]
        finally:
            broker.stop()

    assert {k: w.state for k, w in before.items()} == {
        "gather": "completed",
        "draft": "running",
        "join": "waiting_deps",
        "digest": "waiting_time",
    }
    assert resumed == [before["draft"].id]
    assert waiting["digest"] == "waiting_time" and waiting["join"] == "completed"
    assert {k: w.state for k, w in after.items()} == dict.fromkeys(after, "completed")
    assert len(after) == 4  # nothing new: the draft resumed, it was not started again
    assert journal.read_text(encoding="utf-8") == "draft one\n"  # its tool ran once
    assert "gather" not in model.asked  # ended before the kill: never run again
    assert model.asked.count("draft") == 1
    assert sorted(ids[0] for ids in events) == sorted(w.id for w in after.values())
    assert "three sources" in model.prompts["join"][0][-1].content
