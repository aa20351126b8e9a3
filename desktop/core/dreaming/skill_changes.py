"""Dream changes to skills: rewrite (condense, or take in a merged one),
retire (merged into another), draft (a new skill proposed for review).

Skills are files, which cannot share the database's transaction, so these
changes are applied beside it: each through the skill library (file and
index together), noted first (``skill_notes``) with what each skill will
become, so that changes whose record never landed are put back
(``put_back``), after a failure or a kill alike.  Undoing puts the old text
or status back, unless the skill changed since.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from typing import Any

from desktop.core.base.errors import ReverieError
from desktop.core.db import DreamChange
from desktop.core.db.skills import Skill
from desktop.core.dreaming.proposals import Applying, ChangeRefused, Proposal
from desktop.core.skills.library import (
    DELETED,
    DRAFTS,
    SUFFIX,
    SkillChangedMeanwhile,
    SkillLibrary,
    file_text,
    same_text,
    skill_name,
)

log = logging.getLogger(__name__)

KEY = "skills"
IDS = ("skill", "into")
"""The payload keys naming the skills a change touches."""


def digests(texts: dict[int, str]) -> dict[str, str]:
    """What a change records of the skills' texts it was made from, to know
    them changed: a digest of each, by id."""
    return {str(skill_id): _digest(text) for skill_id, text in texts.items()}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _digest_now(library: SkillLibrary, skill: Skill) -> str | None:
    """The digest of *skill*'s file as it is now (None if it cannot be read:
    making the change then fails, and says why)."""
    try:
        return _digest(library.read(skill.id).text)
    except ReverieError:
        return None


@dataclass
class PutBack:
    """What ``put_back`` did not put back, and the drafts it removed."""

    left: list[str] = field(default_factory=list)
    """Skills changed otherwise since (by hand): their names."""
    discarded: list[int] = field(default_factory=list)
    """Drafts whose files went for good: their rows are to be forgotten."""


class SkillChanges:
    kinds = frozenset({"skill_rewrite", "skill_retire", "skill_draft"})
    in_transaction = False

    def before(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        if proposal.kind == "skill_draft":
            return {KEY: {}}
        return {KEY: {str(proposal.payload["skill"]): _state(at, int(proposal.payload["skill"]))}}

    def apply(
        self, at: Applying, proposal: Proposal, before: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Make *proposal*'s change; with *before* (its skills as the change
        was decided on them), a rewrite is refused (``ChangeRefused``) if the
        file changed since, checked just before the write."""
        library, payload = at.skill_library(), proposal.payload
        if proposal.kind == "skill_draft":
            made = library.create(str(payload["name"]), str(payload["text"]), draft=True)
            return {KEY: {str(made.id): _state(at, made.id)}, "created": [made.id]}
        skill_id = int(payload["skill"])
        if proposal.kind == "skill_rewrite":
            was = (before or {}).get(KEY, {}).get(str(skill_id))
            try:
                library.update_text(
                    skill_id, str(payload["text"]), expected=None if was is None else was["text"]
                )
            except SkillChangedMeanwhile as changed:
                raise ChangeRefused(
                    f"Not applied: skill “{changed.skill.name}” changed since"
                ) from changed
        else:
            library.delete(skill_id)
        return {KEY: {str(skill_id): _state(at, skill_id)}}

    def still_as_before(self, at: Applying, change: DreamChange) -> str:
        return _moved(at, (change.before or {}).get(KEY, {}))

    def moved_since(self, at: Applying, proposal: Proposal, read_at: float) -> str:
        # Its row (a rename, a status, an edit in the app), and its file's text
        # (an edit in another editor, which the row learns only later).
        library = at.skill_library()
        if (
            proposal.kind == "skill_draft"
            and library.store.find(str(proposal.payload["name"])) is not None
        ):
            # Made, or deleted (a draft would take its row: no restoring it), since.
            return "a skill of the drafted name was made or deleted since the dream read them"
        read: dict[str, str] = proposal.payload.get("read", {})
        for key in dict.fromkeys(
            [*read, *(str(proposal.payload[k]) for k in IDS if k in proposal.payload)]
        ):
            skill = library.store.get(int(key)) if key.isdecimal() else None
            if skill is None:
                return f"skill #{key} no longer exists"
            if skill.updated_at > read_at:
                return f"skill “{skill.name}” changed since the dream read it"
            if not os.path.lexists(library.path(skill)):
                # Removed by hand meanwhile (the index learns it at its next
                # sync): the change waits.  A file there that cannot be read
                # fails the pass instead, saying why.  Its number alone:
                # the log would keep its name once it is erased.
                log.warning("the file of skill #%d was removed: its dream change waits", skill.id)
                return f"skill “{skill.name}” was removed since the dream read it"
            if key in read and _digest_now(library, skill) not in (None, read[key]):
                return f"skill “{skill.name}” changed since the dream read it"
        return ""

    def undo(self, at: Applying, change: DreamChange) -> None:
        moved = _moved(at, (change.after or {}).get(KEY, {}))
        if moved:
            raise ChangeRefused(f"Change #{change.id} cannot be undone: {moved}.")
        self.take_back(at, change.before or {}, change.after or {})

    def take_back(self, at: Applying, before: dict[str, Any], after: dict[str, Any]) -> None:
        """Put the skills back as *before* has them, taking back drafts *after* made."""
        library = at.skill_library()
        for skill_id in after.get("created", []):
            library.reject(int(skill_id))  # a draft it proposed: deleted, restorable
        for key, state in before.get(KEY, {}).items():
            now = _state(at, int(key))
            if now["status"] == "deleted" and state["status"] != "deleted":
                library.restore(int(key))
            if now["text"] != state["text"]:
                library.update_text(int(key), state["text"])

    def intent(self, proposal: Proposal, before: dict[str, Any]) -> dict[str, Any]:
        """What applying *proposal* will make of the skills *before* holds: the
        ``skills`` and ``drafts`` of a note (see ``skill_notes``)."""
        payload = proposal.payload
        if proposal.kind == "skill_draft":
            draft = {
                "name": skill_name(str(payload["name"])),
                "text": file_text(str(payload["text"])),
            }
            return {"skills": {}, "drafts": [draft]}
        key = str(payload["skill"])
        state = before[KEY][key]
        if proposal.kind == "skill_rewrite":
            after = {**state, "text": file_text(str(payload["text"]))}
        else:
            after = {**state, "status": "deleted"}
        return {"skills": {key: {"before": state, "after": after}}, "drafts": []}

    def undo_intent(self, change: DreamChange) -> dict[str, Any]:
        """What undoing *change* will make of the skills: part of a note."""
        before = (change.before or {}).get(KEY, {})
        skills = {
            key: {
                "before": state,
                # A draft the change made (no state before it) is rejected.
                "after": before.get(key, {**state, "status": "deleted"}),
            }
            for key, state in (change.after or {}).get(KEY, {}).items()
        }
        return {"skills": skills, "drafts": []}

    def put_back(self, at: Applying, note: dict[str, Any]) -> PutBack:
        """Each skill *note* names as it was before, where it is as the note's
        change would have made it (or half way: a file moved, its row not yet);
        drafts it made are removed for good (never recorded, they are tied to
        no conversation, so erasing one would not find them).  A skill changed
        otherwise since (by hand) is left as it is, and named."""
        library = at.skill_library()
        library.sync()  # a file moved without its row: the row follows the file
        done = PutBack()
        left = done.left
        for key, states in note.get("skills", {}).items():
            try:
                now = _state(at, int(key))
            except ReverieError:
                left.append(str(states["before"]["name"]))
                continue
            if _same(now, states["before"]):
                continue
            if not _same(now, states["after"]):
                left.append(str(states["before"]["name"]))
                continue
            _put(library, int(key), now, states["before"])
        for draft in note.get("drafts", []):
            if not _take_back_draft(library, str(draft["name"]), str(draft["text"]), done):
                left.append(str(draft["name"]))
        return done


def _put(library: SkillLibrary, skill_id: int, now: dict[str, Any], state: dict[str, Any]) -> None:
    """The skill from *now* to *state* (text and status)."""
    text_differs = not same_text(now["text"], state["text"])
    if text_differs and now["status"] != "deleted":  # a deleted skill's text cannot change
        library.update_text(skill_id, state["text"])
        text_differs = False
    if now["status"] != state["status"]:
        library.move(skill_id, state["status"])
    if text_differs:
        library.update_text(skill_id, state["text"])


def _take_back_draft(library: SkillLibrary, name: str, text: str, done: PutBack) -> bool:
    """The draft *name* with *text* a change made, removed (False: it is
    not as the change made it, and stays)."""
    skill = library.store.find(name)
    if skill is None or skill.status != "draft":
        # Killed between its file and its row: the file alone, in the drafts
        # folder, where no row points (a deleted skill of that name, whose row
        # the draft would have revived, has its own file in the deleted ones).
        if not _remove_orphan(library, name, text):
            return False
        return skill is None or skill.status == "deleted"
    if not same_text(library.read(skill.id).text, text):
        return False
    if library.uses(skill.id) or (library.directory / DELETED / skill.file_name).exists():
        # It took the name of a deleted skill, whose uses and file stay.
        library.reject(skill.id)
    else:
        library.discard(skill.id)
        done.discarded.append(skill.id)
    return True


def _remove_orphan(library: SkillLibrary, name: str, text: str) -> bool:
    """The draft file *name* with *text*, which no row holds, removed (or
    absent); False if it cannot be read or holds other text (then it stays)."""
    orphan = library.directory / DRAFTS / f"{name}{SUFFIX}"
    try:
        if orphan.is_file() and same_text(orphan.read_text(encoding="utf-8"), text):
            orphan.unlink()
    except (OSError, UnicodeError):
        return False  # named among those left as they are
    return True


def _same(first: dict[str, Any], second: dict[str, Any]) -> bool:
    return (
        first["name"] == second["name"]
        and first["status"] == second["status"]
        and same_text(first["text"], second["text"])
    )


def _state(at: Applying, skill_id: int) -> dict[str, Any]:
    """The skill as a change records it (in the database, and in a note):
    its text without the secrets a file written by hand may hold, as the
    library writes every text."""
    library = at.skill_library()
    read = library.read(skill_id)
    return {"name": read.skill.name, "status": read.skill.status, "text": library.kept(read.text)}


def _moved(at: Applying, recorded: dict[str, Any]) -> str:
    for key, state in recorded.items():
        try:
            now = _state(at, int(key))
        except ReverieError:
            return f"skill #{key} can no longer be read"
        if now != state:
            return f"skill “{state['name']}” changed since"
    return ""
