"""Round 23 of issue 15 against the catalog: file names the models folder
cannot tell apart, or that are not plain names.

Every catalog model is downloaded into the one models folder by its file's
name alone (``ModelLibrary.file_of``).  Two entries whose files share a name
in different folders of their repositories were both accepted: downloading
one made the other "downloaded" too, a role chose one and ran the other,
and a second download replaced the first.  A file name holding a line
break, an escape or a right-to-left override was accepted too, and so was
a backslash, which on Windows makes a folder of what the URL calls a name.
The catalog is refused whole for any of these, as for any other damage.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models.catalog import CatalogInvalid, load_catalog
from tests.unit.models.test_catalog import _embedder, _entry, _write


def _two_models(tmp_path: Path, chat_file: str, embedder_file: str) -> Path:
    """A catalog of a chat model and an embedder in these files of their repositories."""
    models = [_entry(id="small", file=chat_file), _embedder(id="other", file=embedder_file)]
    return _write(tmp_path, {"version": 1, "models": models})


def test_two_files_of_one_name_in_different_folders_are_refused(tmp_path: Path) -> None:
    path = _two_models(tmp_path, "Q4_K_M/model.gguf", "f16/model.gguf")

    with pytest.raises(CatalogInvalid, match=r"file names must be unique; repeated: model\.gguf"):
        load_catalog(path)


@pytest.mark.parametrize(
    "file",
    [
        "tiny\n.gguf",
        "tiny\x1b]0;PWNED\x07.gguf",
        "evil\u202efuggl.gguf",  # a right-to-left override: what follows reads reversed
        "Q4_K_M\\tiny.gguf",
        "tiny\x00.gguf",
    ],
)
def test_a_file_name_that_is_not_a_plain_name_is_refused(tmp_path: Path, file: str) -> None:
    path = _write(tmp_path, {"version": 1, "models": [_entry(file=file)]})

    with pytest.raises(CatalogInvalid, match=r"models\.0\.file: String should match pattern"):
        load_catalog(path)


def test_files_of_different_names_in_folders_are_kept(tmp_path: Path) -> None:
    path = _two_models(tmp_path, "Q4_K_M/small-Q4_K_M.gguf", "my models/modèle #1?%.gguf")

    assert [entry.file for entry in load_catalog(path).entries] == [
        "Q4_K_M/small-Q4_K_M.gguf",
        "my models/modèle #1?%.gguf",
    ]
