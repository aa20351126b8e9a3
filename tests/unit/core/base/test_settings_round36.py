"""Round 36, settings.json hand-edited or saved by another editor (seeds of
the fuzz 3636+): a comma after the last entry of a group, the slip JSON
refuses most often, set the whole file aside and put every setting back to
its default, lost from the file at the next save; UTF-16 or UTF-32 saved
without a byte order mark was said to be "not JSON".  Both are read now:
each comma named by its line and left out at the next save, nothing else
lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.base.settings import load_settings, save_settings

WRITTEN = {
    "version": 2,
    "chat": {"keep_recent_messages": 7, "language": "en"},
    "memory": {"harvest_after_messages": 33},
    "dream": {"nightly_hour": 3, "contradiction_band": [0.5, 0.8]},
}
TEXT = json.dumps(WRITTEN, indent=2)

SLIPS = {
    "in a group": TEXT.replace('"language": "en"', '"language": "en",'),
    "in a list": TEXT.replace("0.8\n", "0.8,\n"),
    "at the end of the file": TEXT[:-2] + ",\n}",
}


def _kept(path: Path) -> tuple[int, int, int, str, tuple[float, float]]:
    settings, _problem = load_settings(path)
    return (
        settings.chat.keep_recent_messages,
        settings.memory.harvest_after_messages,
        settings.dream.nightly_hour,
        settings.chat.language,
        settings.dream.contradiction_band,
    )


@pytest.mark.parametrize("text", SLIPS.values(), ids=SLIPS.keys())
def test_a_comma_after_the_last_entry_is_named_and_nothing_is_lost(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    assert text != TEXT

    settings, problem = load_settings(path)
    assert problem is not None
    assert "a comma after the last entry; read without it" in str(problem)
    assert _kept(path) == (7, 33, 3, "en", (0.5, 0.8))
    assert list(tmp_path.iterdir()) == [path]  # nothing set aside

    edited = settings.model_copy(
        update={"chat": settings.chat.model_copy(update={"archive_days": 12})}
    )
    save_settings(edited, path, since=settings)

    assert json.loads(path.read_text())["chat"]["archive_days"] == 12  # JSON again
    assert _kept(path) == (7, 33, 3, "en", (0.5, 0.8))
    assert load_settings(path)[1] is None


def test_a_comma_inside_a_quoted_value_stays(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    written = {"version": 2, "tasks": {"time_zone": 'a\\",}'}, "dream": {"nightly_hour": 3}}
    path.write_text(json.dumps(written)[:-2] + ",}}")

    settings, problem = load_settings(path)

    assert settings.dream.nightly_hour == 3
    assert str(problem).count("a comma after the last entry") == 1
    assert repr('a\\",}') in str(problem)  # the value read as written (refused as a zone)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_or_utf32_without_a_byte_order_mark_is_read(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(TEXT.encode(encoding))

    assert load_settings(path)[1] is None
    assert _kept(path) == (7, 33, 3, "en", (0.5, 0.8))
