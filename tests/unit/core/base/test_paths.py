"""Tests of the paths module: platformdirs defaults, REVERIE_* overrides, shipped folders."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from desktop.core.base import paths
from desktop.core.base.paths import (
    APP_NAME,
    ENV_CACHE,
    ENV_CONFIG,
    ENV_DATA,
    ENV_HOME,
    AppPaths,
    resolve_paths,
)


def test_tests_never_see_the_real_user_folders(user_dirs: AppPaths) -> None:
    real = resolve_paths({})
    home = Path(os.environ[ENV_HOME])

    current = resolve_paths()

    assert current == user_dirs
    for folder in (current.data_dir, current.config_dir, current.cache_dir):
        assert folder.is_relative_to(home)
        assert folder not in (real.data_dir, real.config_dir, real.cache_dir)


def test_without_overrides_the_platform_folders_are_used() -> None:
    resolved = resolve_paths({})

    assert resolved.data_dir == Path(platformdirs.user_data_dir(APP_NAME, False))
    assert resolved.config_dir == Path(platformdirs.user_config_dir(APP_NAME, False))
    assert resolved.cache_dir == Path(platformdirs.user_cache_dir(APP_NAME, False))


def test_reverie_home_moves_every_folder(tmp_path: Path) -> None:
    resolved = resolve_paths({ENV_HOME: str(tmp_path)})

    assert resolved == AppPaths(tmp_path / "data", tmp_path / "config", tmp_path / "cache")


def test_each_folder_variable_wins_over_reverie_home(tmp_path: Path) -> None:
    env = {
        ENV_HOME: str(tmp_path / "home"),
        ENV_DATA: str(tmp_path / "d"),
        ENV_CONFIG: str(tmp_path / "c"),
    }

    resolved = resolve_paths(env)

    assert resolved.data_dir == tmp_path / "d"
    assert resolved.config_dir == tmp_path / "c"
    assert resolved.cache_dir == tmp_path / "home" / "cache"


def test_an_empty_variable_counts_as_unset(tmp_path: Path) -> None:
    resolved = resolve_paths({ENV_HOME: str(tmp_path), ENV_DATA: ""})

    assert resolved.data_dir == tmp_path / "data"


def test_a_tilde_is_expanded(tmp_path: Path) -> None:
    resolved = resolve_paths({ENV_DATA: "~/reverie-data", ENV_HOME: "~/portable"})

    assert resolved.data_dir == Path.home() / "reverie-data"
    assert resolved.cache_dir == Path.home() / "portable" / "cache"


def test_the_environment_is_read_when_no_mapping_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "elsewhere"))

    assert resolve_paths().cache_dir == tmp_path / "elsewhere"


def test_files_live_in_their_folders(tmp_path: Path) -> None:
    resolved = resolve_paths({ENV_HOME: str(tmp_path)})

    assert resolved.database_file.parent == resolved.data_dir
    assert resolved.models_dir.parent == resolved.data_dir
    assert resolved.settings_file.parent == resolved.config_dir
    assert resolved.log_dir.parent == resolved.cache_dir


def test_ensure_creates_the_folders_and_is_idempotent(tmp_path: Path) -> None:
    resolved = resolve_paths({ENV_HOME: str(tmp_path / "fresh")})

    resolved.ensure()
    resolved.ensure()

    for folder in (
        resolved.data_dir,
        resolved.config_dir,
        resolved.cache_dir,
        resolved.models_dir,
        resolved.skills_dir,
    ):
        assert folder.is_dir()
    assert not resolved.database_file.exists()  # folders, not files


def test_shipped_folders_are_found_in_the_checkout() -> None:
    assert (paths.data_dir() / "BASE_PROMPT.txt").is_file()
    assert paths.resources_dir().is_dir()
    assert (paths.resources_dir() / "icons").is_dir()


def test_shipped_folders_are_found_inside_an_installed_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wheel's layout (pyproject's force-include): desktop/_shipped/{data,resources}.
    package = tmp_path / "site-packages" / "desktop"
    for name in ("data", "resources"):
        (package / "_shipped" / name).mkdir(parents=True)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", package)

    assert paths.data_dir() == package / "_shipped" / "data"
    assert paths.resources_dir() == package / "_shipped" / "resources"
