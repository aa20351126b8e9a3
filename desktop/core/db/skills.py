"""``SkillStore``: all the SQL of ``skills`` and ``skill_usage``.

A skill's text lives in its Markdown file (see ``desktop.core.skills.library``);
its row is the index: name, summary (the file's first line), file name,
status, and every use.  Names are unique ignoring case in every script (the
table's ``COLLATE NOCASE`` folds ASCII only), which is checked here, in the
transaction that writes the name.
"""

from __future__ import annotations

import builtins
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from desktop.core.base.errors import ReverieError
from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Row, Transaction
from desktop.core.db.errors import QueryFailed
from desktop.core.db.rows import from_row

SkillStatus = Literal["active", "draft", "deleted"]
EVERY_STATUS: tuple[SkillStatus, ...] = ("active", "draft", "deleted")

_SELECT = (
    "SELECT s.*, coalesce(u.use_count, 0) AS use_count, u.last_used_at FROM skills s"
    " LEFT JOIN (SELECT skill_id, count(*) AS use_count, max(used_at) AS last_used_at"
    "  FROM skill_usage GROUP BY skill_id) u ON u.skill_id = s.id"
)


class SkillNotFound(ReverieError):
    def __init__(self, what: int | str) -> None:
        super().__init__(
            f"There is no skill #{what}."
            if isinstance(what, int)
            else f"There is no skill {what!r}."
        )
        self.what = what


class SkillNameTaken(ReverieError):
    """Another skill (perhaps a deleted one) has the name, ignoring case."""

    def __init__(self, holder: Skill) -> None:
        status = "" if holder.status == "active" else f" ({holder.status})"
        super().__init__(
            f"There is already a skill called {holder.name!r}{status}; choose another name."
        )
        self.holder = holder


class SkillStateError(ReverieError):
    """A step the skill's status does not allow (accepting a skill that is no draft)."""


@dataclass(frozen=True)
class Skill:
    id: int
    name: str
    summary: str
    file_name: str
    status: SkillStatus
    created_at: float
    updated_at: float
    use_count: int
    last_used_at: float | None


@dataclass(frozen=True)
class SkillUse:
    skill_id: int
    conversation_id: int | None
    """None once that conversation is gone, or for a use outside a conversation."""
    used_at: float


def name_key(name: str) -> str:
    """What two names must differ in to be two skills: case, in any script."""
    return unicodedata.normalize("NFKC", name).casefold()


def _skill(row: Row) -> Skill:
    return from_row(Skill, row)


class SkillStore:
    """The index of the skill files and their usage."""

    def __init__(self, database: Database, *, clock: Clock = system_clock) -> None:
        self._db = database
        self._clock = clock

    # -- reading -----------------------------------------------------------

    def get(self, skill_id: int) -> Skill | None:
        row = self._db.fetch_one(f"{_SELECT} WHERE s.id = ?", (skill_id,))
        return None if row is None else _skill(row)

    def find(self, name: str) -> Skill | None:
        """The skill called *name* ignoring case, whatever its status."""
        return self._holder(self._db, name)

    def list(self, statuses: Sequence[SkillStatus] = ("active",)) -> builtins.list[Skill]:
        """Skills with one of *statuses*, by name."""
        if not statuses:
            return []
        rows = self._db.fetch_all(
            f"{_SELECT} WHERE s.status IN ({', '.join('?' * len(statuses))})"
            " ORDER BY s.name COLLATE NOCASE, s.id",
            list(statuses),
        )
        return [_skill(row) for row in rows]

    def uses(self, skill_id: int) -> builtins.list[SkillUse]:
        """Every use of the skill, the latest first."""
        rows = self._db.fetch_all(
            "SELECT skill_id, conversation_id, used_at FROM skill_usage WHERE skill_id = ?"
            " ORDER BY used_at DESC, id DESC",
            (skill_id,),
        )
        return [SkillUse(row[0], row[1], row[2]) for row in rows]

    # -- writing -----------------------------------------------------------

    def add(self, name: str, summary: str, file_name: str, status: SkillStatus) -> Skill:
        """Index a new skill file; ``SkillNameTaken`` if any skill has the name."""
        [skill_id] = self.add_many([(name, summary, file_name)], status)
        return self._require(skill_id)

    def add_many(
        self, files: Sequence[tuple[str, str, str]], status: SkillStatus
    ) -> builtins.list[int]:
        """Index new skill files (name, summary, file name) in one
        transaction, the names taken read once (a folder of thousands made by
        hand is one sync); their ids.  ``SkillNameTaken``, nothing added, if
        any skill has one of the names."""
        if not files:
            return []  # no transaction: a sync finding nothing new may run inside one
        now = self._clock()
        added: builtins.list[int] = []
        with self._db.transaction() as tx:
            taken = {name_key(str(name)) for (name,) in tx.fetch_all("SELECT name FROM skills")}
            for name, summary, file_name in files:
                if name_key(name) in taken and (holder := self._holder(tx, name)) is not None:
                    raise SkillNameTaken(holder)
                skill_id = tx.fetch_value(
                    "INSERT INTO skills (name, summary, file_name, status, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                    (name, summary, file_name, status, now, now),
                )
                if skill_id is None:  # INSERT ... RETURNING always returns the row it wrote
                    raise QueryFailed("an INSERT ... RETURNING returned no row")
                taken.add(name_key(name))
                added.append(int(skill_id))
        return added

    def revive(
        self, skill_id: int, name: str, summary: str, file_name: str, status: SkillStatus
    ) -> Skill:
        """A deleted skill's row taken by a new skill of its name (its uses stay)."""
        return self._update(
            skill_id,
            {"name": name, "summary": summary, "file_name": file_name, "status": status},
            from_statuses=("deleted",),
        )

    def update(
        self,
        skill_id: int,
        *,
        name: str | None = None,
        file_name: str | None = None,
        summary: str | None = None,
    ) -> Skill:
        """Change what is given; ``SkillNameTaken`` if another skill has the new name."""
        changes = {"name": name, "file_name": file_name, "summary": summary}
        given = {column: value for column, value in changes.items() if value is not None}
        return self._update(skill_id, given, from_statuses=EVERY_STATUS)

    def set_status(
        self, skill_id: int, status: SkillStatus, *, from_statuses: Sequence[SkillStatus]
    ) -> Skill:
        """Move a skill with one of *from_statuses* to *status*."""
        return self._update(skill_id, {"status": status}, from_statuses=from_statuses)

    def record_use(self, skill_id: int, conversation_id: int | None) -> SkillUse:
        now = self._clock()
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO skill_usage (skill_id, conversation_id, used_at) VALUES (?, ?, ?)",
                (skill_id, conversation_id, now),
            )
        return SkillUse(skill_id, conversation_id, now)

    def _update(
        self, skill_id: int, changes: dict[str, Any], *, from_statuses: Sequence[SkillStatus]
    ) -> Skill:
        sets = ", ".join(f"{column} = ?" for column in [*changes, "updated_at"])
        with self._db.transaction() as tx:
            if "name" in changes:
                holder = self._holder(tx, changes["name"])
                if holder is not None and holder.id != skill_id:
                    raise SkillNameTaken(holder)
            status = tx.fetch_value("SELECT status FROM skills WHERE id = ?", (skill_id,))
            if status is None:
                raise SkillNotFound(skill_id)
            if status not in from_statuses:
                raise SkillStateError(
                    f"Skill #{skill_id} is {status}; this needs a skill that is "
                    f"{' or '.join(from_statuses)}."
                )
            tx.execute(
                f"UPDATE skills SET {sets} WHERE id = ?",
                [*changes.values(), self._clock(), skill_id],
            )
        return self._require(skill_id)

    def _holder(self, reader: Database | Transaction, name: str) -> Skill | None:
        # Skills are few (each is a file someone wrote), so comparing every
        # name here is cheap, and exact where SQLite's NOCASE is not.
        wanted = name_key(name)
        rows = reader.fetch_all(f"{_SELECT} ORDER BY s.id")
        return next((_skill(row) for row in rows if name_key(row["name"]) == wanted), None)

    def _require(self, skill_id: int) -> Skill:
        skill = self.get(skill_id)
        if skill is None:
            raise SkillNotFound(skill_id)
        return skill
