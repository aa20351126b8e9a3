"""Round 9 of the attacks on the settings file: two writers.

- Eight ``reverie models add`` run at once each read the settings, added
  their file and wrote the whole file back: the file kept two or three.
- The running app's settings window wrote back the whole settings it read
  at start, so a model ``reverie models add`` or ``use`` wrote meanwhile was
  dropped by the window's next save.

Every write now holds a lock on the settings file around its read and
write, and a save made on settings read earlier (``since``) writes only
what was changed since over the file as it is now.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop.core.base import settings_file
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import (
    Backend,
    Settings,
    SettingsProblem,
    load_settings,
    save_settings,
)
from desktop.core.base.settings_file import settings_lock


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    return user_dirs.settings_file


def _with(settings: Settings, group: str, **fields: object) -> Settings:
    changed = getattr(settings, group).model_copy(update=fields)
    return settings.model_copy(update={group: changed})


def _read(path: Path) -> Settings:
    settings, problem = load_settings(path)
    assert problem is None
    return settings


def test_a_save_on_settings_read_earlier_keeps_what_another_wrote_since(path: Path) -> None:
    start = Settings()
    save_settings(start, path)  # the app's first start
    save_settings(_with(start, "models", added=("/m/a.gguf",)), path)  # the command, meanwhile

    written = save_settings(_with(start, "memory", harvest_check_minutes=9), path, since=start)

    assert written == _read(path)
    assert written.models.added == ("/m/a.gguf",)
    assert written.memory.harvest_check_minutes == 9


def test_only_the_settings_changed_since_are_written_over_the_file(path: Path) -> None:
    start = Settings()
    other = _with(start, "models", chat=(Backend(kind="local", model="/m/b.gguf"),))
    save_settings(_with(other, "chat", memories_top_k=3), path)

    mine = _with(start, "chat", keep_recent_messages=20)  # the same group, another key
    save_settings(mine, path, since=start)

    now = _read(path)
    assert now.models.chat == (Backend(kind="local", model="/m/b.gguf"),)
    assert now.chat.memories_top_k == 3
    assert now.chat.keep_recent_messages == 20


def test_a_key_both_changed_takes_the_later_save(path: Path) -> None:
    start = Settings()
    save_settings(_with(start, "chat", memories_top_k=3), path)

    save_settings(_with(start, "chat", memories_top_k=4), path, since=start)

    assert _read(path).chat.memories_top_k == 4


def test_added_files_are_merged_file_by_file(path: Path) -> None:
    start = _with(Settings(), "models", added=("/m/old.gguf", "/m/gone.gguf"))
    save_settings(start, path)
    save_settings(_with(start, "models", added=(*start.models.added, "/m/cli.gguf")), path)

    mine = _with(start, "models", added=("/m/old.gguf", "/m/page.gguf"))  # one removed, one added
    save_settings(mine, path, since=start)

    assert _read(path).models.added == ("/m/old.gguf", "/m/cli.gguf", "/m/page.gguf")


def test_a_file_added_by_both_is_kept_once(path: Path) -> None:
    start = Settings()
    save_settings(start, path)
    both = _with(start, "models", added=("/m/a.gguf",))
    save_settings(both, path)

    save_settings(both, path, since=start)

    assert _read(path).models.added == ("/m/a.gguf",)


def test_a_save_since_onto_no_file_writes_the_settings_whole(path: Path) -> None:
    start = _with(Settings(), "chat", memories_top_k=3)  # the file was removed meanwhile
    mine = _with(start, "dream", nightly_hour=4)

    assert save_settings(mine, path, since=start) == mine

    assert _read(path) == mine


def test_a_file_damaged_meanwhile_is_set_aside_and_the_settings_written_whole(
    path: Path,
) -> None:
    start = _with(Settings(), "chat", memories_top_k=3)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    mine = _with(start, "dream", nightly_hour=4)

    save_settings(mine, path, since=start)

    assert _read(path) == mine
    (kept,) = path.parent.glob("settings.json.damaged-*")
    assert kept.read_text(encoding="utf-8") == "{not json"


def test_a_save_waits_while_another_writer_holds_the_lock(path: Path) -> None:
    save_settings(Settings(), path)
    mine = _with(Settings(), "chat", memories_top_k=3)
    failures: list[BaseException] = []

    def save() -> None:
        try:
            save_settings(mine, path)
        except BaseException as error:  # reported by the test thread
            failures.append(error)

    saver = threading.Thread(target=save)
    with settings_lock(path):
        saver.start()
        saver.join(0.3)
        assert saver.is_alive()  # a save takes milliseconds: it is waiting
        assert _read(path) == Settings()
    saver.join()

    assert failures == []
    assert _read(path) == mine


def test_a_lock_held_too_long_is_named(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_file, "LOCK_WAIT_SECONDS", 0.05)
    save_settings(Settings(), path)

    with settings_lock(path), pytest.raises(SettingsProblem) as refused:
        save_settings(_with(Settings(), "chat", memories_top_k=3), path)

    said = str(refused.value)
    assert str(path) in said
    assert "try again" in said
    assert _read(path) == Settings()
