"""Dream changes to tasks: complete, update (text, priority), purge.

Applied inside the pass's transaction: a new text through the task
service, so it is checked as every task text is (one line, as a reader
sees it, secrets taken out), the rest through the task store.  The record
keeps what a dream may change of each task (text, priority, status,
completion, next run) before and after; undoing puts it back unless the
task changed since.  A purge is soft: the task is deleted, and restorable.
"""

from __future__ import annotations

from typing import Any

from desktop.core.db import DreamChange
from desktop.core.db.tasks import TaskNotFound, TaskStore
from desktop.core.dreaming.proposals import Applying, ChangeRefused, Proposal, sources_gone

KEY = "tasks"


class TaskChanges:
    kinds = frozenset({"task_complete", "task_update", "task_purge"})
    in_transaction = True

    def before(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        return {KEY: self._state(at, proposal)}

    def apply(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        tasks, payload = at.task_store(), proposal.payload
        task_id = int(payload["task"])
        if proposal.kind == "task_complete":
            tasks.complete(task_id, tx=at.tx)
        elif proposal.kind == "task_purge":
            tasks.delete(task_id, tx=at.tx)
        else:
            # Through the service: the model's text passes the checks of every
            # task text (a refusal here rolls the pass back).
            at.task_service().update(
                task_id, text=payload.get("text"), priority=payload.get("priority"), tx=at.tx
            )
        return {KEY: self._state(at, proposal)}

    def still_as_before(self, at: Applying, change: DreamChange) -> str:
        return self._moved(at, (change.before or {}).get(KEY, {}))

    def moved_since(self, at: Applying, proposal: Proposal, read_at: float) -> str:
        assert at.tx is not None
        task_id = int(proposal.payload["task"])
        updated = at.tx.fetch_value("SELECT updated_at FROM tasks WHERE id = ?", (task_id,))
        if updated is None:
            return f"task #{task_id} no longer exists"
        if updated > read_at:
            return f"task #{task_id} changed since the dream read it"
        return sources_gone(at, proposal)  # a new text, from what the user said

    def undo(self, at: Applying, change: DreamChange) -> None:
        moved = self._moved(at, (change.after or {}).get(KEY, {}))
        if moved:
            raise ChangeRefused(f"Change #{change.id} cannot be undone: {moved}.")
        tasks = at.task_store()
        assert at.tx is not None
        for key, state in (change.before or {}).get(KEY, {}).items():
            tasks.put_back(at.tx, int(key), state)

    @staticmethod
    def _state(at: Applying, proposal: Proposal) -> dict[str, Any]:
        assert at.tx is not None
        task_id = int(proposal.payload["task"])
        return {str(task_id): TaskStore.state(at.tx, task_id)}

    @staticmethod
    def _moved(at: Applying, recorded: dict[str, Any]) -> str:
        assert at.tx is not None
        for key, state in recorded.items():
            try:
                now = TaskStore.state(at.tx, int(key))
            except TaskNotFound:
                return f"task #{key} no longer exists"
            if now != state:
                return f"task #{key} changed since"
        return ""
