"""Two passes that need no model: importance decay, and archiving what went stale.

Decay is keyed on when a memory was last seen: after a grace period its
importance halves every half-life, down to a floor.  It is applied up to
the dream's time and that time is recorded (``decayed_through``), so two
dreams a day or one a week trace the same curve over calendar time.  It
fades a copy (``faded_importance``): the importance a memory was given is
what decides whether it is important enough never to be archived, and a
memory seen again is fresh again.

Stale memories (unseen for long, seldom reinforced) are archived, which the
user can undo, never deleted; never one that is pinned, that the user told
Reverie themselves, that is important, or that was reinforced often.
"""

from __future__ import annotations

from desktop.core.dreaming.passes import PassContext
from desktop.core.dreaming.proposals import Proposal

DAY = 86_400.0
DECAY_CHUNK = 500
"""Memories per decay change, to keep each change's before/after readable."""


class DecayPass:
    name = "decay"
    title = "Letting unused memories fade"

    def plan(self, context: PassContext) -> list[Proposal]:
        settings = context.settings
        grace = settings.grace_days * DAY
        half_life = settings.half_life_days * DAY
        faded: list[tuple[int, float]] = []
        for memory in context.memories.store.unseen_since(context.now - grace):
            start = max(memory.last_seen_at + grace, memory.decayed_through or 0.0)
            current = memory.current_importance
            if context.now <= start or current <= settings.importance_floor:
                continue
            factor = 0.5 ** ((context.now - start) / half_life)
            importance = round(max(settings.importance_floor, current * factor), 6)
            if importance < current:
                faded.append((memory.id, importance))
        return [
            Proposal(
                "decay",
                f"{len(chunk)} memories not seen for over {settings.grace_days:g} days faded.",
                {"memories": [list(item) for item in chunk], "through": context.now},
                touches=tuple(memory_id for memory_id, _ in chunk),
            )
            for chunk in (faded[i : i + DECAY_CHUNK] for i in range(0, len(faded), DECAY_CHUNK))
        ]


class StalePass:
    name = "stale"
    title = "Archiving what went stale"

    def plan(self, context: PassContext) -> list[Proposal]:
        settings = context.settings
        most = min(settings.stale_max_reinforcement, settings.risky_reinforcement - 1)
        unseen = context.memories.store.unseen_since(context.now - settings.stale_days * DAY)
        return [
            Proposal(
                "archive",
                f"Archived #{memory.id}, unseen for {settings.stale_days} days: {memory.content}",
                {"memory": memory.id},
                touches=(memory.id,),
                retires=(memory.id,),
            )
            for memory in unseen
            if memory.source_kind != "user_explicit"
            and memory.importance < settings.important
            and memory.reinforcement_count <= most
        ]
