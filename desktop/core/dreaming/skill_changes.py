"""Dream changes to skills: rewrite (condense, or take in a merged one),
retire (merged into another), draft (a new skill proposed for review).

Skills are files, which cannot share the database's transaction, so these
changes are applied beside it: each through the skill library (file and
index together), and if any fails the ones already made are taken back, so
a pass still changes all of its skills or none.  Undoing puts the old text
or status back, unless the skill changed since.
"""

from __future__ import annotations

from typing import Any

from desktop.core.db import DreamChange
from desktop.core.dreaming.proposals import Applying, ChangeRefused, Proposal
from desktop.core.errors import ReverieError

KEY = "skills"


class SkillChanges:
    kinds = frozenset({"skill_rewrite", "skill_retire", "skill_draft"})
    in_transaction = False

    def before(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        if proposal.kind == "skill_draft":
            return {KEY: {}}
        return {KEY: {str(proposal.payload["skill"]): _state(at, int(proposal.payload["skill"]))}}

    def apply(self, at: Applying, proposal: Proposal) -> dict[str, Any]:
        library, payload = at.skill_library(), proposal.payload
        if proposal.kind == "skill_draft":
            made = library.create(str(payload["name"]), str(payload["text"]), draft=True)
            return {KEY: {str(made.id): _state(at, made.id)}, "created": [made.id]}
        skill_id = int(payload["skill"])
        if proposal.kind == "skill_rewrite":
            library.update_text(skill_id, str(payload["text"]))
        else:
            library.delete(skill_id)
        return {KEY: {str(skill_id): _state(at, skill_id)}}

    def still_as_before(self, at: Applying, change: DreamChange) -> str:
        return _moved(at, (change.before or {}).get(KEY, {}))

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


def _state(at: Applying, skill_id: int) -> dict[str, Any]:
    read = at.skill_library().read(skill_id)
    return {"name": read.skill.name, "status": read.skill.status, "text": read.text}


def _moved(at: Applying, recorded: dict[str, Any]) -> str:
    for key, state in recorded.items():
        try:
            now = _state(at, int(key))
        except ReverieError:
            return f"skill #{key} can no longer be read"
        if now != state:
            return f"skill “{state['name']}” changed since"
    return ""
