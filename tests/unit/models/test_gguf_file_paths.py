"""Tests of the messages for a model path that is not a file at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.errors import ModelFileInvalid
from models.gguf_file import check_gguf_file


def test_a_folder_is_said_to_be_a_folder_not_missing(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()

    with pytest.raises(ModelFileInvalid) as raised:
        check_gguf_file(folder)

    assert f"{folder} is a folder, not a .gguf model file" in str(raised.value)
    assert "not found" not in str(raised.value)


def test_a_missing_file_is_still_said_to_be_missing(tmp_path: Path) -> None:
    with pytest.raises(ModelFileInvalid, match="Model file not found"):
        check_gguf_file(tmp_path / "absent.gguf")
