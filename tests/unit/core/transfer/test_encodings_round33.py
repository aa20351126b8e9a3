"""Round 33: an export saved again by an editor in another encoding.

Windows' Notepad saves "Unicode" as UTF-16 with a byte-order mark, and
"ANSI" as the legacy code page (Windows-1252 in Western Europe and the
Americas).  A ``conversations.json`` opened there and saved again was
either refused as "not a ChatGPT or Claude export (not a JSON list at
character 1)", which it is, or imported with every accented letter made
U+FFFD ("Café" stored as "Caf\ufffd", "naïve" as "na\ufffdve"), silently:
the user's words lost.  JSON may be UTF-16 or UTF-32 with its mark, and a
byte that is not UTF-8 is read as Windows-1252 reads it, the encoding a
file not saved as UTF-8 most likely has; the UTF-8 around it is read as
UTF-8.  An empty file (or one of white space, or a byte-order mark alone)
was "not a ChatGPT or Claude export (empty at character 1)", a place it
does not have."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, open_database
from tests.unit.core.transfer.exports import chatgpt_line, claude

TITLE, SAID = "Café plans", "A naïve question about the œuvre \u2013 €5?"


def _stored(paths: AppPaths) -> list[tuple[str, list[str]]]:
    with open_database(paths.database_file) as database:
        store = ConversationStore(database)
        return [(c.title, [m.content for m in store.messages(c.id)]) for c in store.list()]


def _saved(tmp_path: Path, data: bytes, zipped: bool) -> Path:
    """*data* as conversations.json, or in a .zip as the export came."""
    if not zipped:
        path = tmp_path / "conversations.json"
        path.write_bytes(data)
        return path
    with zipfile.ZipFile(tmp_path / "export.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", data)
    return tmp_path / "export.zip"


@pytest.mark.parametrize("zipped", [False, True])
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "cp1252"])
def test_an_export_saved_in_another_encoding_imports_its_words_as_written(
    tmp_path: Path,
    user_dirs: AppPaths,
    capsys: pytest.CaptureFixture[str],
    encoding: str,
    zipped: bool,
) -> None:
    text = json.dumps([chatgpt_line("g1", TITLE, SAID, "Yes.")], ensure_ascii=False)
    mark = "\ufeff" if encoding == "utf-16-be" else ""  # the codec writes no mark of its own
    path = _saved(tmp_path, (mark + text).encode(encoding), zipped)

    assert main(["import", str(path)]) == 0, capsys.readouterr().err

    assert _stored(user_dirs) == [(TITLE, [SAID, "Yes."])]


def test_a_stray_byte_in_a_utf8_export_costs_no_other_letter(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    conversation = claude("c1", TITLE, f"{SAID} MARK", "Sure \u2013 how?")
    text = json.dumps([conversation], ensure_ascii=False).encode()
    path = _saved(tmp_path, text.replace(b"MARK", b"\xe9t\xe9"), False)  # "été" in Windows-1252

    assert main(["import", str(path)]) == 0, capsys.readouterr().err

    assert _stored(user_dirs) == [(TITLE, [f"{SAID} été", "Sure \u2013 how?"])]


@pytest.mark.parametrize("data", [b"", b" \n\t", b"\xef\xbb\xbf"])
def test_an_empty_export_is_said_to_be_empty(
    tmp_path: Path, user_dirs: AppPaths, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    path = _saved(tmp_path, data, False)

    assert main(["import", str(path)]) == 1

    # Not "empty at character 1": there is no character 1.
    assert f"Reverie: {path} is not a ChatGPT or Claude export (it is empty)." in (
        capsys.readouterr().err
    )
