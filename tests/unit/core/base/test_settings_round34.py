"""Round 34: a first save on a full disk said "Your previous settings file
is unchanged" where there was none (a first start with a full disk, or a
read-only folder): the user looked for a file that never was."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from desktop.core.base.settings import Settings, SettingsProblem, save_settings


def _disk_full(source: object, target: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_first_save_that_writes_nothing_says_no_file_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config" / "settings.json"
    monkeypatch.setattr(os, "replace", _disk_full)

    with pytest.raises(SettingsProblem) as raised:
        save_settings(Settings(), path)

    assert "previous" not in str(raised.value)
    assert raised.value.hint == "No settings file was written."
    assert not path.exists()


def test_a_save_over_a_file_that_writes_nothing_says_the_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings.json"
    save_settings(Settings(), path)
    monkeypatch.setattr(os, "replace", _disk_full)

    with pytest.raises(SettingsProblem) as raised:
        save_settings(Settings(), path)

    assert raised.value.hint == "Your previous settings file is unchanged."
