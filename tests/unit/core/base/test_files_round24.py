"""Round 24 of the attacks on writing a user's file: what stands there is
not a file.

``write_atomically`` renamed its temporary file over whatever was at the
path: a named pipe or a device (as root, ``/dev/full``) was gone, a file
stood in its place, and the writer said it went well (the memory browser's
export of MEMORIES.md to a pipe a script read, for one).  It now refuses,
naming what is there, and leaves it as it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import NotARegularFile, write_atomically
from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.memory.export import export_markdown


@pytest.mark.parametrize("through_a_link", [False, True])
def test_a_named_pipe_is_refused_named_and_left_as_it_is(
    tmp_path: Path, through_a_link: bool
) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    path = pipe
    if through_a_link:
        path = tmp_path / "link"
        path.symlink_to(pipe)

    with pytest.raises(NotARegularFile) as refused:
        write_atomically(path, "text")

    assert str(refused.value) == f"{pipe} is a named pipe, not a regular file"
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"pipe", path.name})


def test_a_folder_is_refused_and_what_it_holds_kept(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("mine")

    with pytest.raises(NotARegularFile, match="is a folder"):
        write_atomically(tmp_path / "notes", "text")

    assert (tmp_path / "notes" / "mine.txt").read_text() == "mine"


def test_exporting_memories_to_a_named_pipe_says_so(database: Database, tmp_path: Path) -> None:
    pipe = tmp_path / "memories.md"
    os.mkfifo(pipe)

    with pytest.raises(EnvironmentProblem) as refused:
        export_markdown(MemoryStore(database), ConversationStore(database), pipe)

    assert f"{pipe} is a named pipe, not a regular file" in str(refused.value)
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
