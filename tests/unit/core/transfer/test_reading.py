"""Opening an export: the files of a .zip, a folder or a shard, the format
said by the content, and a clear refusal of anything else."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from desktop.core.transfer.foreign import ExportRefused, ForeignConversation, NotAnExport
from desktop.core.transfer.reading import open_export
from tests.unit.core.transfer.exports import chatgpt_line, claude, write_json, write_zip


def _ids(path: Path) -> list[str | None]:
    return [c.external_id for c in open_export(path).conversations()]


def test_the_format_is_said_by_the_content_not_the_name(tmp_path: Path) -> None:
    gpt = write_json(tmp_path / "claude.json", [chatgpt_line("g1", "t", "hi")])
    anthropic = write_json(tmp_path / "chatgpt.json", [claude("c1", "t", "hi")])
    assert open_export(gpt).source == "chatgpt"
    assert open_export(anthropic).source == "claude"
    assert _ids(gpt) == ["g1"]


@pytest.mark.parametrize(
    "content",
    [
        json.dumps([{"messages": [{"role": "user", "content": "hi"}]}]),
        json.dumps({"version": 1, "conversations": []}),
        json.dumps(["just", "text"]),
        "plain text, not JSON",
        "",
    ],
)
def test_anything_else_is_not_an_export(tmp_path: Path, content: str) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(NotAnExport, match="not a ChatGPT or Claude export"):
        open_export(path)


def test_an_empty_export_holds_nothing_to_import(tmp_path: Path) -> None:
    with pytest.raises(ExportRefused, match="holds no conversations"):
        open_export(write_json(tmp_path / "conversations.json", []))


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportRefused, match="is not there"):
        open_export(tmp_path / "nothing.zip")


def test_a_truncated_file_is_refused_when_read_through(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    text = json.dumps([chatgpt_line(f"g{i}", "t", "hello") for i in range(5)])
    path.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    export = open_export(path)  # its start is sound: recognised
    with pytest.raises(ExportRefused, match="damaged or cut short"):
        list(export.conversations())


def test_a_zip_is_read_entry_by_entry_without_extracting(tmp_path: Path) -> None:
    path = write_zip(
        tmp_path / "export.zip",
        {
            "chat.html": "<html></html>",
            "user.json": {"id": "user"},
            "conversations.json": [chatgpt_line("g1", "t", "hi"), chatgpt_line("g2", "t", "yo")],
        },
    )
    assert _ids(path) == ["g1", "g2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.zip"]


def test_a_claude_zip_in_a_folder_is_read(tmp_path: Path) -> None:
    path = write_zip(
        tmp_path / "data.zip",
        {"data-2024/conversations.json": [claude("c1", "t", "hi")], "data-2024/users.json": []},
    )
    assert open_export(path).source == "claude"
    assert _ids(path) == ["c1"]


def test_a_damaged_zip_is_refused(tmp_path: Path) -> None:
    whole = write_zip(tmp_path / "whole.zip", {"conversations.json": [claude("c1", "t", "hi")]})
    cut = tmp_path / "cut.zip"
    cut.write_bytes(whole.read_bytes()[:-30])
    with pytest.raises(ExportRefused, match=r"damaged \.zip"):
        list(open_export(cut).conversations())


def test_a_zip_without_conversations_is_not_an_export(tmp_path: Path) -> None:
    with pytest.raises(NotAnExport):
        open_export(write_zip(tmp_path / "photos.zip", {"a.jpg": "not really"}))


def _shards(folder: Path) -> None:
    folder.mkdir()
    for index in range(3):
        write_json(
            folder / f"conversations-{index:03d}.json",
            [chatgpt_line(f"g{index}-{n}", "t", "hi") for n in range(2)],
        )
    manifest = {"export_files": [f"conversations-{i:03d}.json" for i in range(3)]}
    (folder / "export_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


_SHARDED = ["g0-0", "g0-1", "g1-0", "g1-1", "g2-0", "g2-1"]


def test_sharded_files_are_read_in_order_from_a_folder_a_shard_or_a_zip(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    _shards(folder)
    assert _ids(folder) == _SHARDED
    assert _ids(folder / "conversations-001.json") == _SHARDED  # its siblings come with it
    zipped = tmp_path / "export.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for shard in sorted(folder.iterdir(), reverse=True):
            archive.write(shard, shard.name)
    assert _ids(zipped) == _SHARDED


def test_a_shard_the_manifest_names_missing_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    _shards(folder)
    (folder / "conversations-001.json").unlink()
    with pytest.raises(ExportRefused, match=r"incomplete: conversations-001\.json is missing"):
        open_export(folder)


def test_an_unreadable_manifest_only_loses_its_check(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    _shards(folder)
    (folder / "export_manifest.json").write_text("{not json", encoding="utf-8")
    assert _ids(folder) == _SHARDED


def test_non_utf8_bytes_and_a_bom_do_not_stop_the_reading(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    text = json.dumps([chatgpt_line("g1", "caf_", "hello")]).replace("caf_", "caf\udcff")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8", "surrogateescape"))
    (read,) = open_export(path).conversations()
    assert isinstance(read, ForeignConversation)
    assert read.title == "caf\u00ff"  # as Windows-1252 reads the byte (round 33)


def test_json_nested_past_any_sense_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text("[" + "[" * 200_000 + "]" * 200_001, encoding="utf-8")
    with pytest.raises(ExportRefused) as refused:
        list(open_export(path).conversations())
    # Said plainly (round 33), not as Python's "maximum recursion depth exceeded".
    assert str(refused.value) == (
        f"{path} is nested deeper than any export (lists or objects within one another "
        "hundreds of levels deep); nothing was imported. Download the export again and "
        "import the new file."
    )
