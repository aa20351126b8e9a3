"""Round 9 of the attacks on the paths: ``REVERIE_DATA_DIR`` set to the
settings file's path (``<config>/settings.json``) made the first start
create the data folder there, and every later start took that folder for a
damaged settings file.  A data or cache folder at (or inside) the settings
file's path is now refused at start, naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import (
    ENV_CACHE,
    ENV_CONFIG,
    ENV_DATA,
    ENV_HOME,
    FolderOverrideProblem,
    resolve_paths,
)


@pytest.mark.parametrize("variable", [ENV_DATA, ENV_CACHE])
@pytest.mark.parametrize("below", ["", "/inner"])
def test_a_folder_at_the_settings_file_s_path_is_refused(
    tmp_path: Path, variable: str, below: str
) -> None:
    value = f"{tmp_path}/config/settings.json{below}"

    with pytest.raises(FolderOverrideProblem) as refused:
        resolve_paths({ENV_HOME: str(tmp_path), variable: value})

    said = str(refused.value)
    assert refused.value.variable == variable
    assert repr(value) in said
    assert f"{tmp_path}/config/settings.json" in said  # what it would stand on
    assert "Set" in said and "or unset it" in said  # what to do


def test_the_settings_file_of_another_config_folder_is_refused_too(tmp_path: Path) -> None:
    env = {ENV_CONFIG: str(tmp_path / "c"), ENV_DATA: str(tmp_path / "c" / "settings.json")}

    with pytest.raises(FolderOverrideProblem, match=ENV_DATA):
        resolve_paths(env)


def test_a_data_folder_beside_the_settings_file_is_fine(tmp_path: Path) -> None:
    paths = resolve_paths({ENV_CONFIG: str(tmp_path), ENV_DATA: str(tmp_path / "settings")})

    assert paths.data_dir == tmp_path / "settings"


def test_the_start_refuses_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_HOME, str(tmp_path))
    monkeypatch.delenv(ENV_CONFIG, raising=False)
    monkeypatch.delenv(ENV_CACHE, raising=False)
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "config" / "settings.json"))

    assert main(["--check"]) == 2

    assert ENV_DATA in capsys.readouterr().err
    assert not (tmp_path / "config").exists()
