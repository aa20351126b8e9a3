"""Round 5: the converted memory model's own path is in the way.

With the sidecar of an earlier start beside it, the converted GGUF's path
being a link that leads back to itself (or a file this user may not look
at) escaped ``ensure_default_embedder_gguf`` as a bare ``OSError``: a
traceback at start-up.  It is a ``ModelUnavailable`` naming the file, like
the models folder's other problems.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from models.convert_bert import DEFAULT_GGUF_NAME, ensure_default_embedder_gguf
from models.embedded import default_embedding_source
from models.errors import ModelUnavailable

SIDECAR_NAME = DEFAULT_GGUF_NAME + ".json"


@pytest.fixture
def cache_with_sidecar(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A models folder holding only the sidecar of an earlier conversion."""
    shared = tmp_path_factory.getbasetemp() / "minilm-cache"  # test_convert_bert's session cache
    ensure_default_embedder_gguf(default_embedding_source(), shared)
    cache = tmp_path / "models"
    cache.mkdir()
    shutil.copy(shared / SIDECAR_NAME, cache / SIDECAR_NAME)
    return cache


def test_a_link_loop_where_the_converted_model_goes_is_named(cache_with_sidecar: Path) -> None:
    model = cache_with_sidecar / DEFAULT_GGUF_NAME
    model.symlink_to(model)

    with pytest.raises(ModelUnavailable) as refused:
        ensure_default_embedder_gguf(default_embedding_source(), cache_with_sidecar)

    assert f"{model} is a link that leads back to itself" in str(refused.value)
    assert "Move" in refused.value.hint


def test_a_converted_model_this_user_may_not_look_at_is_named(
    cache_with_sidecar: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = cache_with_sidecar / DEFAULT_GGUF_NAME
    model.write_bytes(b"")
    real_stat = Path.stat

    def stat_as_the_system_would(path: Path, *, follow_symlinks: bool = True) -> os.stat_result:
        if path == model:  # as behind a folder without search permission (root passes those)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_stat(path, follow_symlinks=follow_symlinks)

    monkeypatch.setattr(Path, "stat", stat_as_the_system_would)

    with pytest.raises(ModelUnavailable) as refused:
        ensure_default_embedder_gguf(default_embedding_source(), cache_with_sidecar)

    assert f"{model} cannot be looked at" in str(refused.value)
