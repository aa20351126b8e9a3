"""Round 24 of the attacks on the settings file: a setting this Reverie
does not know, and a settings file that is a link to nothing.

A newer Reverie adds a setting with a default without a new settings
version; the older one (gone back to, or a `reverie models` command of an
older install) said "not a setting Reverie knows; ignored" at start, and its
next save of anything wrote the file without it: the user's setting was
gone.  A save now writes every entry it does not know back as it was.

A settings file that is a symbolic link to nothing (kept on a drive not
mounted now) was read as no file: defaults, nothing said, and the first-start
save then failed naming a temporary file (".settings.json.d2...part: No such
file or directory") and "your previous settings file is unchanged".  It is
now said as a link to nothing, defaults in use, and left as it is.
"""

from __future__ import annotations

import json

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import (
    Settings,
    SettingsProblem,
    is_absent,
    load_settings,
    save_settings,
)
from tests.unit.core.base.test_settings import _write
from tests.unit.core.base.test_settings_round9 import _with

NEWER = {
    "version": 2,
    "chat": {"language": "de", "voice_speed": 1.25},
    "speech": {"enabled": True, "voice": "Ünä"},
}
"""A file a newer Reverie wrote: a group and a key this one does not know."""


def test_a_save_keeps_a_newer_reverie_s_settings_as_they_were(user_dirs: AppPaths) -> None:
    path = user_dirs.settings_file
    _write(path, NEWER)
    settings, problem = load_settings(path)
    assert "speech: not a setting Reverie knows; ignored" in str(problem)
    assert "chat.voice_speed: not a setting Reverie knows; ignored" in str(problem)

    save_settings(_with(settings, "chat", memories_top_k=7), path, since=settings)

    on_disk = json.loads(path.read_text("utf-8"))
    assert on_disk["speech"] == {"enabled": True, "voice": "Ünä"}
    assert on_disk["chat"]["voice_speed"] == 1.25
    assert on_disk["chat"]["memories_top_k"] == 7 and on_disk["chat"]["language"] == "de"
    again, problem = load_settings(path)  # read as before, and still named
    assert again == _with(settings, "chat", memories_top_k=7)
    assert "speech: not a setting Reverie knows; ignored" in str(problem)


def test_a_save_over_a_file_changed_since_keeps_what_it_does_not_know(user_dirs: AppPaths) -> None:
    path = user_dirs.settings_file
    start = Settings()
    _write(path, {**NEWER, "chat": {"voice_speed": 1.25}})  # a newer Reverie wrote since

    save_settings(_with(start, "dream", every_hours=6), path, since=start)

    on_disk = json.loads(path.read_text("utf-8"))
    assert on_disk["speech"] == NEWER["speech"]
    assert on_disk["chat"]["voice_speed"] == 1.25
    assert on_disk["dream"]["every_hours"] == 6


def test_a_version_1_path_is_moved_on_a_save_not_kept_beside_its_new_place(
    user_dirs: AppPaths,
) -> None:
    path = user_dirs.settings_file
    _write(path, {"version": 1, "models": {"chat_model_path": "/m/q.gguf"}, "extra": 1})
    settings, _ = load_settings(path)

    save_settings(_with(settings, "chat", memories_top_k=7), path, since=settings)

    on_disk = json.loads(path.read_text("utf-8"))
    assert "chat_model_path" not in on_disk["models"]  # upgraded: models.chat holds it
    assert on_disk["models"]["chat"] == [
        {"kind": "local", "model": "/m/q.gguf", "url": "", "dialect": "auto"}
    ]
    assert on_disk["extra"] == 1 and on_disk["version"] == 2


def test_a_settings_file_linked_to_nothing_is_said_and_left_as_it_is(user_dirs: AppPaths) -> None:
    path = user_dirs.settings_file
    target = path.parent / "drive" / "settings.json"  # a drive not mounted now
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert f"{path} is a link to {target}, which does not exist" in str(problem)
    assert "defaults are in use" in str(problem)
    assert not is_absent(path)  # no first file is written through it at start
    with pytest.raises(SettingsProblem, match="which does not exist") as refused:
        save_settings(_with(settings, "chat", memories_top_k=7), path, since=settings)
    assert ".part" not in str(refused.value)
    assert path.is_symlink() and not target.parent.exists()
