"""``reverie export FILE``: the archive written, counted, and never over a file unasked."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from desktop.core.transfer.archive_read import is_archive, read_archive


def _some_data(paths: AppPaths) -> None:
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    database = open_database(paths.database_file)
    try:
        store = ConversationStore(database)
        conversation = store.create("Hello")
        store.add_message(conversation.id, "user", "Hi there.")
    finally:
        database.close()


def test_export_writes_the_archive_and_says_what_is_in_it(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _some_data(user_dirs)
    target = tmp_path / "all.reverie.zip"
    assert main(["export", str(target)]) == 0
    said = capsys.readouterr().out
    assert "Exported 1 conversation, 1 message (" in said and str(target) in said
    assert is_archive(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert read_archive(target).counts["messages"] == 1


def test_export_refuses_to_overwrite_a_file_without_force(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _some_data(user_dirs)
    target = tmp_path / "taken.zip"
    target.write_text("mine")
    assert main(["export", str(target)]) == 1
    assert "--force" in capsys.readouterr().err
    assert target.read_text() == "mine"
    assert main(["export", str(target), "--force"]) == 0
    assert is_archive(target)


def test_export_into_a_missing_folder_says_so(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _some_data(user_dirs)
    assert main(["export", str(tmp_path / "no" / "such" / "a.zip")]) == 1
    assert "could not be written" in capsys.readouterr().err


def test_export_without_any_data_says_so_and_creates_nothing(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "a.zip"
    assert main(["export", str(target)]) == 1
    assert "no Reverie data" in capsys.readouterr().err
    assert not target.exists() and not user_dirs.database_file.exists()
