"""A dream change's before and after, as the rich text its view shows.

Struck through means "superseded by this change": what an applied change
replaced, or what a pending one would.  Once a change is undone, what it
replaced is live again and reads as plain text ("active again"), and what it
made is greyed with "taken back"; a rejected change never touched anything,
so nothing of it is struck and what it would have made is greyed.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from desktop.core.base.text import cut
from desktop.core.db import DreamChange, Memory
from desktop.core.db.memory_writes import from_snapshot
from desktop.ui.widgets.labels import count
from desktop.ui.widgets.line_breaks import breakable
from desktop.ui.widgets.theme import active_palette

_SHOWN_FADED = 5
"""Faded memories listed before "Show all" (a decay change may hold hundreds)."""
_MEMORY_CHARS = 400
_SKILL_CHARS = 300
_QUOTE_CHARS = 300
_TAGS = {"reverted": "undone", "rejected": "not applied"}
"""What became of a change that holds nothing now, said after what it made."""


def _link(target: str, text: str) -> str:
    style = f"color:{active_palette().accent}; text-decoration:none"
    return f'<a href="{target}" style="{style}">{text}</a>'


def memory_link(memory_id: int) -> str:
    return _link(f"memory:{memory_id}", f"#{memory_id}")


def _held(change: DreamChange) -> bool:
    """Does the change hold (applied), or would it (pending)?"""
    return change.status in ("applied", "pending")


def _tag(change: DreamChange, said: str | None = None) -> str:
    tag = said or _TAGS.get(change.status, "")
    return f" <i>({tag})</i>" if tag and not _held(change) else ""


def _replaced(change: DreamChange, text: str) -> str:
    """*text*, which the change replaced: struck while it holds, live again once undone."""
    if _held(change):
        colour = active_palette().danger_text
        return f'<span style="color:{colour}; text-decoration:line-through">{text}</span>'
    return text + (" <i>(active again)</i>" if change.status == "reverted" else "")


def _made(change: DreamChange, text: str) -> str:
    """*text*, which the change made: green while it holds, grey once taken back or rejected."""
    colours = active_palette()
    return f'<span style="color:{colours.success_text if _held(change) else _gone()}">{text}</span>'


def _gone() -> str:
    """The colour of what an undone change made, or a rejected one would have: not there."""
    return active_palette().text_faint


def _escaped(text: str) -> str:
    """*text* (a memory, a name, a quote) for the report's rich text, with
    places to break a long link (unbroken, it widened the whole report past
    the window, Undo this dream with it)."""
    return html.escape(breakable(text))


def _text(memory: Memory | None) -> str:
    if memory is None:
        return ""
    text = memory.content.strip()
    if len(text) > _MEMORY_CHARS:
        text = text[:_MEMORY_CHARS].rstrip() + "…"
    return _escaped(text)


def snapshot_memories(state: Mapping[str, Any] | None) -> dict[int, Memory]:
    """The memories a change's before (or after) state holds, by id."""
    found = (state or {}).get("memories", {})
    return {int(key): from_snapshot(data) for key, data in found.items()}


def before_after_html(change: DreamChange, *, show_all: bool = False) -> str:
    """The memories *change* touched, as they were, then what it makes of them."""
    if change.kind == "merge":
        return _merge_html(change)
    if change.kind == "decay":
        return _decay_html(change, show_all)
    if change.kind.startswith("task_"):
        return _task_html(change)
    if change.kind.startswith("skill_"):
        return _skill_html(change)
    if change.kind == "add":
        return _new_memory(change)
    if change.kind == "archive":
        return _archive_html(change)
    if change.kind == "supersede":
        return _supersede_html(change)
    return _escaped(change.summary)


def _merge_html(change: DreamChange) -> str:
    before, payload = snapshot_memories(change.before), change.payload
    superseded = {int(i) for i in payload.get("superseded", [])}
    sources = [int(i) for i in payload.get("sources", sorted(before))]
    lines = [f"<b>{len(sources)} memories → 1</b>"]
    for memory_id in sources:
        text = _text(before.get(memory_id))
        if memory_id in superseded:
            lines.append(f"{memory_link(memory_id)} {_replaced(change, text)}")
        else:
            lines.append(f"{memory_link(memory_id)} {text} <i>(kept)</i>")
    lines.append(_new_memory(change))
    return "<br>".join(lines)


def _new_memory(change: DreamChange) -> str:
    """The memory a merge or an add wrote (or would write)."""
    text = _made(change, _escaped(str(change.payload.get("content", ""))))
    created = [int(i) for i in (change.after or {}).get("created", [])]
    if not created:
        return f"→ a new memory: {text}{_tag(change)}"
    if change.status == "reverted":  # the memory it wrote is gone: no link to follow
        return f"→ #{created[0]} {text}{_tag(change, 'taken back')}"
    return f"→ {memory_link(created[0])} {text}"


def _archive_html(change: DreamChange) -> str:
    memory_id = int(change.payload.get("memory", 0))
    memory = snapshot_memories(change.before).get(memory_id)
    was = "active" if memory is None else memory.status
    moved = f"{was} → archived"
    if change.status == "reverted":
        moved = f'<span style="color:{_gone()}">{moved}</span> <i>(undone: {was} again)</i>'
    elif not _held(change):
        moved = f'<span style="color:{_gone()}">{moved}</span>{_tag(change)}'
    return f"{memory_link(memory_id)} {_text(memory)}<br>{moved}"


def _supersede_html(change: DreamChange) -> str:
    before, after = snapshot_memories(change.before), snapshot_memories(change.after)
    memory_id, by = int(change.payload.get("memory", 0)), int(change.payload.get("by", 0))
    replacement = after.get(by) or before.get(by)
    new = "" if replacement is None else " " + _made(change, _text(replacement))
    return (
        f"{memory_link(memory_id)} {_replaced(change, _text(before.get(memory_id)))}"
        f"<br>→ replaced by {memory_link(by)}{new}{_tag(change)}"
    )


def _decay_html(change: DreamChange, show_all: bool) -> str:
    before = snapshot_memories(change.before)
    faded = [(int(i), float(value)) for i, value in change.payload.get("memories", [])]
    shown = faded if show_all else faded[:_SHOWN_FADED]
    back = _tag(change, "undone: their importance is back" if change.status == "reverted" else "")
    lines = [f"<b>{count(len(faded))} faded</b>{back}"]
    for memory_id, importance in shown:
        memory = before.get(memory_id)
        old = "?" if memory is None else f"{memory.current_importance:.2f}"
        lowered = _made(change, f"{importance:.2f}")
        lines.append(f"{memory_link(memory_id)} importance {old} → {lowered} · {_text(memory)}")
    if len(faded) > len(shown):
        lines.append(_link("more", f"Show all {len(faded)}"))
    return "<br>".join(lines)


def _task_html(change: DreamChange) -> str:
    """A task as it was (struck through where it changed) and as it became
    (or would become), after the user's words a completion rests on."""
    then = next(iter((change.before or {}).get("tasks", {}).items()), None)
    if then is None:
        return _escaped(change.summary)
    key, was = then
    became = (change.after or {}).get("tasks", {}).get(key, {})
    if not became and change.kind == "task_complete":
        became = {**was, "status": "completed"}  # what approving it does
    elif not became and change.kind == "task_update":
        asked = {k: change.payload[k] for k in ("text", "priority") if k in change.payload}
        became = {**was, **asked}  # what approving it does
    old = _escaped(f"{was['text']} (P{was['priority']}, {was['status']})")
    quoted = _evidence(change)
    if not became:
        return f"{quoted}Task #{key}: {old}{_tag(change)}"
    new = _escaped(f"{became['text']} (P{became['priority']}, {became['status']})")
    return f"{quoted}Task #{key}: {_replaced(change, old)}<br>→ {_made(change, new)}{_tag(change)}"


def _evidence(change: DreamChange) -> str:
    """The user's own words a completion rests on, as a line ("" without)."""
    quote = str(change.payload.get("evidence") or "").strip().strip('"“”')
    if not quote:
        return ""
    return f"You said: “<i>{_escaped(cut(quote, _QUOTE_CHARS))}</i>”<br>"


def _skill_html(change: DreamChange) -> str:
    """A skill's text as it was and as it became (the beginning of each)."""
    payload = change.payload
    if change.kind == "skill_draft":
        name = _escaped(str(payload.get("name", "")))
        draft = _made(change, _excerpt(payload.get("text")))
        return f"New draft “{name}”:{_tag(change)}<br>{draft}"
    then: dict[str, Any] = next(iter((change.before or {}).get("skills", {}).values()), {})
    name = _escaped(str(then.get("name", "")))
    if change.kind == "skill_retire":
        into = payload.get("into")
        return f"“{name}” → deleted (restorable), merged into skill #{into}{_tag(change)}"
    # While it waits, the approval line above says what it leaves out.
    lost = [str(item) for item in payload.get("lost", [])] if change.status != "pending" else []
    left_out = (
        "<b>Leaves out:</b> " + _escaped(", ".join(cut(s, 60) for s in lost)) + "<br>"
        if lost
        else ""
    )
    return (
        f"{left_out}“{name}”:<br>{_replaced(change, _excerpt(then.get('text')))}"
        f"<br>→ {_made(change, _excerpt(payload.get('text')))}{_tag(change)}"
    )


def _excerpt(text: object) -> str:
    return _escaped(cut(str(text or ""), _SKILL_CHARS)).replace("\n", "<br>")


def risk_reason(change: DreamChange) -> str:
    """Why a risky change waits for the user: what the pass found wrong with
    it (a skill's rewrite that leaves something out, a completion whose
    quoted words do not name the task), or what it touches that they hold dear."""
    said = str(change.payload.get("waits") or "")
    if said:
        return said
    before = snapshot_memories(change.before)
    for memory_id, memory in before.items():
        if memory.pinned:
            return f"it touches a pinned memory (#{memory_id})"
    for memory_id, memory in before.items():
        if memory.source_kind == "user_explicit":
            return f"it touches a memory you told Reverie yourself (#{memory_id})"
    seen = max(before.values(), key=lambda m: m.reinforcement_count, default=None)
    if seen is not None and seen.reinforcement_count > 1:
        return f"it touches a memory seen {seen.reinforcement_count} times (#{seen.id})"
    return "dreaming asks before making this kind of change"
