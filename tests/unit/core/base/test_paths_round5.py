"""Round 5 of the attacks on the paths: a relative folder override would
resolve against whatever folder Reverie was started from, so the data
would seem to vanish when it is started from another; it is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import (
    ENV_CACHE,
    ENV_CONFIG,
    ENV_DATA,
    ENV_HOME,
    RelativeFolder,
    resolve_paths,
)


@pytest.mark.parametrize("variable", [ENV_HOME, ENV_DATA, ENV_CONFIG, ENV_CACHE])
@pytest.mark.parametrize("value", ["reverie-home", "./here", "../up/there"])
def test_a_relative_folder_override_is_refused_naming_it(variable: str, value: str) -> None:
    with pytest.raises(RelativeFolder) as refused:
        resolve_paths({variable: value})

    assert isinstance(refused.value, EnvironmentProblem)  # the user can fix it
    said = str(refused.value)
    assert variable in said
    assert repr(value) in said
    assert "absolute" in said


def test_a_relative_home_is_refused_even_beside_absolute_folders(tmp_path: Path) -> None:
    # Data and config are placed, but the cache would still go under the relative home.
    env = {ENV_HOME: "portable", ENV_DATA: str(tmp_path / "d"), ENV_CONFIG: str(tmp_path / "c")}

    with pytest.raises(RelativeFolder, match=ENV_HOME):
        resolve_paths(env)


def test_absolute_and_home_relative_overrides_still_resolve(tmp_path: Path) -> None:
    resolved = resolve_paths({ENV_HOME: str(tmp_path), ENV_DATA: "~/reverie-data"})

    assert resolved.data_dir == Path("~/reverie-data").expanduser()
    assert resolved.config_dir == tmp_path / "config"
