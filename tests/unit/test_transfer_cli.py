"""Tests of ``reverie import FILE``: the preview, the import with its
progress and result, the exit statuses, against the real database of the
test's user folders."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from desktop.core.transfer.archive import export_archive
from tests.unit.core.transfer.archive_world import fill, folder
from tests.unit.core.transfer.exports import chatgpt_line, claude, write_json, write_zip


def _conversations(paths: AppPaths) -> list[tuple[str, str | None, int | None]]:
    with open_database(paths.database_file) as database:
        return [
            (c.title, c.imported_from, c.harvested_through_message_id)
            for c in ConversationStore(database).list()
        ]


def _export(tmp_path: Path) -> Path:
    return write_zip(
        tmp_path / "chatgpt-export.zip",
        {
            "conversations.json": [
                chatgpt_line("g1", "Tomatoes", "how do I grow tomatoes?", "In the sun."),
                chatgpt_line("g2", "Empty"),
            ]
        },
    )


def test_the_preview_imports_nothing(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(_export(tmp_path)), "--preview"]) == 0
    out = capsys.readouterr().out
    assert "is a ChatGPT export" in out
    assert "Would import 1 conversation (2 messages)." in out
    assert "  + Tomatoes (2 messages)" in out
    assert "  - Empty: no message with text" in out
    assert _conversations(user_dirs) == []


def test_an_import_prints_its_progress_and_result(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(_export(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "Imported 1 of 1 conversations" in out
    assert "1 conversation imported from ChatGPT (2 messages), 1 skipped." in out
    assert _conversations(user_dirs) == [("Tomatoes", "chatgpt", None)]

    assert main(["import", str(_export(tmp_path))]) == 1  # nothing new the second time
    out = capsys.readouterr().out
    assert "  - Tomatoes: already imported" in out
    assert "Nothing was imported." in out
    assert main(["import", str(_export(tmp_path)), "--preview"]) == 1


def test_without_learning_marks_them_harvested(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_json(tmp_path / "conversations.json", [claude("c1", "Seeds", "when?", "March")])
    assert main(["import", str(path), "--without-learning"]) == 0
    assert "Reverie will not learn from them" in capsys.readouterr().out
    assert _conversations(user_dirs) == [("Seeds", "claude", 2)]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (json.dumps({"not": "an export"}), "not a ChatGPT or Claude export"),
        ('[{"mapping": {}, "title": "cut', "damaged or cut short"),
        ("[]", "holds no conversations"),
    ],
)
def test_a_refused_file_exits_1_and_says_why(
    tmp_path: Path,
    user_dirs: AppPaths,
    capsys: pytest.CaptureFixture[str],
    content: str,
    said: str,
) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(content, encoding="utf-8")
    assert main(["import", str(path)]) == 1
    assert said in capsys.readouterr().err
    assert _conversations(user_dirs) == []


def test_a_missing_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path / "absent.zip")]) == 1
    assert "is not there" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["import"], ["import", "a.zip", "--learn-nothing"], ["import", ""]]
)
def test_a_usage_error_exits_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2


def test_a_title_cannot_drive_the_terminal(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    title = "\x1b]52;c;cGF5bG9hZA==\x07\x1b[2JCleared"
    path = write_json(tmp_path / "conversations.json", [claude("c1", title, "hi", "hello")])
    assert main(["import", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b]52" in out


def test_a_reverie_archive_is_recognised_and_imported_once(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    source = fill(folder(tmp_path / "elsewhere"))
    archive = tmp_path / "everything.zip"
    with source.database:
        export_archive(source.database, source.paths, archive)

    assert main(["import", str(archive), "--preview"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("This is a Reverie archive.\nEverything in it would be restored: ")
    assert main(["import", str(archive)]) == 0
    out = capsys.readouterr().out
    assert "Imported " in out and " rows" in out
    assert len(_conversations(user_dirs)) > 0
    assert main(["import", str(archive)]) == 1
    assert "Nothing was imported: it is all here." in capsys.readouterr().out


def test_a_one_message_conversation_is_counted_in_the_singular_and_a_refusal_says_reverie(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    lone = chatgpt_line("g1", "Tomatoes", "how do I grow tomatoes?")
    assert main(["import", str(write_json(tmp_path / "c.json", [lone])), "--preview"]) == 0
    assert "  + Tomatoes (1 message)\n" in capsys.readouterr().out
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    assert main(["import", str(empty)]) == 1
    assert capsys.readouterr().err.startswith("Reverie: ")


class _ReadUntilFirstLine(io.StringIO):
    """A pipe whose reader stops after the first line (``| head -1``)."""

    def write(self, text: str) -> int:
        if "\n" in self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_an_import_whose_output_stops_being_read_still_imports_everything(
    tmp_path: Path, user_dirs: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 21: ``reverie import FILE | head -1`` stopped the import at its
    next progress line with a BrokenPipeError traceback."""
    export = write_json(
        tmp_path / "conversations.json",
        [chatgpt_line(f"c{n}", f"Chat {n}", f"question {n}", f"answer {n}") for n in range(30)],
    )
    piped = _ReadUntilFirstLine()
    monkeypatch.setattr(sys, "stdout", piped)
    assert main(["import", str(export)]) == 0
    assert piped.getvalue().count("\n") == 1
    assert len(_conversations(user_dirs)) == 30
