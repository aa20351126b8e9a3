"""Round 6 of the attacks on the paths: a folder override naming the home
of a user who does not exist (``~alcie/reverie``, a typo) made
``Path.expanduser`` raise ``RuntimeError`` and start-up die with a
traceback; the variable and the user are now named, as a relative folder is."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.paths import (
    ENV_CACHE,
    ENV_CONFIG,
    ENV_DATA,
    ENV_HOME,
    FolderOverrideProblem,
    UnknownHomeFolder,
    resolve_paths,
)

_NO_SUCH_USER = "nosuchuser-reverie-test"


@pytest.fixture(autouse=True)
def _the_user_really_is_unknown() -> None:
    with pytest.raises(KeyError):
        pwd.getpwnam(_NO_SUCH_USER)


@pytest.mark.parametrize("variable", [ENV_HOME, ENV_DATA, ENV_CONFIG, ENV_CACHE])
def test_the_home_of_an_unknown_user_is_named(variable: str) -> None:
    value = f"~{_NO_SUCH_USER}/reverie"

    with pytest.raises(UnknownHomeFolder) as refused:
        resolve_paths({variable: value})

    assert isinstance(refused.value, EnvironmentProblem)  # the user can fix it
    assert isinstance(refused.value, FolderOverrideProblem)
    said = str(refused.value)
    assert variable in said
    assert repr(value) in said
    assert repr(_NO_SUCH_USER) in said


def test_an_unknown_user_in_an_unused_override_is_still_named(tmp_path: Path) -> None:
    # Every folder is placed by its own variable, so REVERIE_HOME is unused; it is still checked.
    env = {
        ENV_HOME: f"~{_NO_SUCH_USER}",
        ENV_DATA: str(tmp_path / "d"),
        ENV_CONFIG: str(tmp_path / "c"),
        ENV_CACHE: str(tmp_path / "k"),
    }

    with pytest.raises(UnknownHomeFolder, match=ENV_HOME):
        resolve_paths(env)


def test_a_bare_tilde_with_no_home_to_find_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # No HOME and no entry for this user (a container started with a bare uid).
    monkeypatch.delenv("HOME", raising=False)

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", no_entry)

    with pytest.raises(UnknownHomeFolder) as refused:
        resolve_paths({ENV_DATA: "~/reverie"})

    said = str(refused.value)
    assert ENV_DATA in said
    assert "HOME" in said


def test_the_known_user_s_home_still_resolves(tmp_path: Path) -> None:
    me = pwd.getpwuid(os.getuid()).pw_name

    resolved = resolve_paths({ENV_HOME: str(tmp_path), ENV_DATA: f"~{me}/reverie-data"})

    assert resolved.data_dir == Path(f"~{me}/reverie-data").expanduser()


def test_start_up_names_the_unknown_user_and_exits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_HOME, f"~{_NO_SUCH_USER}/reverie")

    assert main(["--check"]) == 2

    err = capsys.readouterr().err
    assert ENV_HOME in err
    assert repr(_NO_SUCH_USER) in err
    assert "Traceback" not in err
