"""Round 9 of the attacks on the settings file: a folder where
``settings.json`` goes (the data folder, when ``REVERIE_DATA_DIR`` named the
settings file's path) was "set aside" like a damaged file, with everything
in it: every start moved the database, models and skills away and began
with an empty database.  Anything but a regular file there (a folder, a
named pipe) is now named and left alone, and never saved over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Settings, SettingsProblem, load_settings, save_settings


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    user_dirs.config_dir.mkdir(parents=True, exist_ok=True)
    return user_dirs.settings_file


def _a_data_folder(path: Path) -> Path:
    path.mkdir()
    database = path / "reverie.sqlite3"
    database.write_bytes(b"SQLite format 3\0" + b"\0" * 100)
    return database


def test_a_folder_at_the_settings_path_is_named_and_left_where_it_is(path: Path) -> None:
    database = _a_data_folder(path)

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert database.exists()  # nothing moved
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
    assert isinstance(problem, SettingsProblem)
    said = str(problem)
    assert f"{path} is a folder, not a settings file" in said
    assert "left as it is" in said
    assert "Move or rename it" in said  # what to do


def test_a_named_pipe_at_the_settings_path_is_named_and_left_alone(path: Path) -> None:
    os.mkfifo(path)

    settings, problem = load_settings(path)

    assert settings == Settings()
    assert path.is_fifo()
    assert f"{path} is a named pipe, not a settings file" in str(problem)


def test_a_save_over_a_folder_is_refused_and_the_folder_kept(path: Path) -> None:
    database = _a_data_folder(path)

    with pytest.raises(SettingsProblem) as refused:
        save_settings(Settings(), path)

    assert f"{path} is a folder, not a settings file" in str(refused.value)
    assert database.exists()
    assert list(path.parent.glob("settings.json?*")) == []  # nothing set aside
