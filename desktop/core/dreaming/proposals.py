"""What dream changes are made of: a pass's ``Proposal``, and what applies one.

A pass proposes changes; a ``Handler`` for each kind (memories, tasks,
skills) knows how to record what a change touches, apply it, tell whether
what it was decided on still holds, and undo it.  The ``ChangeBook``
(``changes.py``) drives them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from desktop.core.base.errors import ReverieError
from desktop.core.db import ConversationStore, DreamChange, MemoryStore, Transaction
from desktop.core.db.memory_writes import MemoryWrites
from desktop.core.db.tasks import TaskStore
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService

Vector = npt.NDArray[np.floating[Any]]


@dataclass(frozen=True, eq=False)
class Proposal:
    kind: str
    """What it does: "merge", "supersede", "archive", "decay", "add" (memories),
    "task_complete", "task_update", "task_purge", "skill_rewrite",
    "skill_retire", "skill_draft"."""
    summary: str
    """What it does, in a sentence for the dream report."""
    payload: dict[str, Any]
    touches: tuple[int, ...] = ()
    """Existing memories it changes."""
    retires: tuple[int, ...] = ()
    """Of those, the ones it supersedes or archives (the circuit breaker counts them)."""
    vectors: Mapping[str, Vector] = field(default_factory=dict)
    """Embeddings of the texts it adds, by text (computed before the transaction)."""
    needs_approval: bool = False
    """Risky whatever it touches (e.g. an inferred preference about money)."""


class ChangeRefused(ReverieError):
    """A change cannot be undone or approved as it stands; ``str()`` says why."""


@dataclass(frozen=True)
class Applied:
    applied: int = 0
    pending: int = 0
    left: tuple[str, ...] = ()
    """Why each change left for the next dream was left: what it touches
    changed after its pass read it ("memory #4 changed since the dream read it")."""


@dataclass(frozen=True)
class Applying:
    """What a change is recorded, applied or undone with."""

    tx: Transaction | None
    """The transaction of the pass (None for file changes, which cannot share it)."""
    memories: MemoryStore
    actor: str
    dream_run_id: int
    dream_change_id: int | None = None
    tasks: TaskService | None = None
    """Tasks are written through the service, so a dream's text passes the
    checks every task text passes (``TaskService.checked_text``)."""
    skills: SkillLibrary | None = None

    def memory_writes(self) -> MemoryWrites:
        assert self.tx is not None, "memory changes run in the pass's transaction"
        return self.memories.writes_in(
            self.tx,
            self.actor,
            dream_run_id=self.dream_run_id,
            dream_change_id=self.dream_change_id,
        )

    def task_service(self) -> TaskService:
        if self.tasks is None:
            raise ChangeRefused("Tasks are not available.")
        return self.tasks

    def task_store(self) -> TaskStore:
        return self.task_service().store

    def skill_library(self) -> SkillLibrary:
        if self.skills is None:
            raise ChangeRefused("Skills are not available.")
        return self.skills


def sources_gone(at: Applying, proposal: Proposal) -> str:
    """Why *proposal* no longer holds as drafted ("" if it does): a message
    it was drafted from (its payload's ``message_ids``, or the ``message`` a
    completion quotes) was deleted, edited away or erased since, as read in
    *at*'s transaction: the pass's, or the approval's of a change that
    waited for the user.  A harvest stores nothing the user took back while
    its model read; nor does a dream, nor an approval of what it read (and
    after "Delete now" nothing would retract it any more)."""
    assert at.tx is not None, "checked in the pass's (or the approval's) transaction"
    payload = proposal.payload
    cited = [int(i) for i in payload.get("message_ids", ())]
    if isinstance(payload.get("message"), int):
        cited.append(payload["message"])
    if ConversationStore.missing_messages(at.tx, cited, deleted_too=True):
        return "a message it was drafted from was deleted since the dream read it"
    return ""


class Handler(Protocol):
    kinds: frozenset[str]
    in_transaction: bool
    """False for changes to files, applied beside the pass's transaction."""

    def before(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        """What *proposal* touches, as it is now."""
        ...

    def apply(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        """Make the change; what it touched (and made), as it is after."""
        ...

    def still_as_before(self, at: Applying, change: DreamChange) -> str:
        """ "" if what *change* was decided on still holds, else what moved."""
        ...

    def moved_since(self, at: Applying, proposal: Proposal, read_at: float) -> str:
        """ "" if nothing *proposal* touches changed after *read_at* (when its
        pass read it: the user may delete, edit or archive meanwhile, while
        the model thinks), else what moved."""
        ...

    def undo(self, at: Applying, change: DreamChange) -> None:
        """Take the change back, or ``ChangeRefused`` if that would overwrite
        something changed since."""
        ...
