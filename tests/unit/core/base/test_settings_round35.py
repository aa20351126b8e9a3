"""Round 35: a settings file holding something this Reverie cannot use (a
value out of range, a newer Reverie's setting) made every save log "changed
since it was read" though nobody had written the file since: the problem was
the one start had already said, and the log cried wolf on each save.  The
warning stays for a file that did change meanwhile."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from desktop.core.base.settings import load_settings, save_settings

CHANGED = "changed since it was read"

UNUSABLE = {
    "a value out of range": {"version": 2, "chat": {"memories_top_k": 0}},
    "a newer Reverie's group": {"version": 2, "voice": {"speed": 1.5}},
    "a newer Reverie's key in a group": {"version": 2, "chat": {"voice_speed": 1.5}},
    "a number as a string": {"version": 2, "chat": {"keep_recent_messages": "12"}},
}


@pytest.mark.parametrize("content", UNUSABLE.values(), ids=UNUSABLE.keys())
def test_saves_over_a_file_nobody_changed_log_no_change(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: dict[str, object]
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(content))
    settings, problem = load_settings(path)
    assert problem is not None  # start said it once

    with caplog.at_level(logging.WARNING):
        for top_k in (7, 8):
            edited = settings.model_copy(
                update={"chat": settings.chat.model_copy(update={"memories_top_k": top_k})}
            )
            settings = save_settings(edited, path, since=settings)

    assert CHANGED not in caplog.text
    assert load_settings(path)[0].chat.memories_top_k == 8


def test_a_save_over_a_file_changed_meanwhile_with_an_unusable_value_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 2}))
    settings, _ = load_settings(path)
    path.write_text(json.dumps({"version": 2, "chat": {"excerpts_top_k": 3, "language": "?"}}))
    edited = settings.model_copy(
        update={"chat": settings.chat.model_copy(update={"memories_top_k": 9})}
    )

    with caplog.at_level(logging.WARNING):
        saved = save_settings(edited, path, since=settings)

    assert CHANGED in caplog.text
    assert (saved.chat.memories_top_k, saved.chat.excerpts_top_k) == (9, 3)
