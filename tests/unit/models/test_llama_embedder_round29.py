"""Round 29 of issue 15 against the embedder: a model that cannot embed.

A chat model set for memory search (settings.json edited by hand), or an
embedding model whose pooling is none (a BERT converted for token
classification, offered on the Models page as an embedding model), failed
to load with "/full/path/model.gguf does not pool sentence embeddings" and
the hint "Delete the file so Reverie converts it again": Reverie converts
only its own embedded model, so following it lost the user's file (the
packaged SmolLM2 among them) and converted nothing.  The message now says
what the file is, by its name, and the hint asks for an embedding model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models.errors import ModelFileInvalid
from models.llama_embedder import LlamaEmbedder

_POOLING_KEY = b"bert.pooling_type"
_UINT32 = b"\x04\x00\x00\x00"


def _without_pooling(minilm_path: Path, tmp_path: Path) -> Path:
    """MiniLM with ``bert.pooling_type`` 0 (none): a vector for each token."""
    data = bytearray(minilm_path.read_bytes())
    value = data.index(_POOLING_KEY) + len(_POOLING_KEY)
    assert data[value : value + 4] == _UINT32
    data[value + 4 : value + 8] = (0).to_bytes(4, "little")
    path = tmp_path / "per-token.gguf"
    path.write_bytes(data)
    return path


@pytest.mark.model
def test_a_chat_model_for_memory_search_is_named_a_chat_model_never_to_delete(
    smollm2_path: Path,
) -> None:
    with pytest.raises(ModelFileInvalid) as refused:
        LlamaEmbedder(smollm2_path)

    said = str(refused.value)
    assert said.startswith(f"{smollm2_path.name} is a chat model, not an embedding model")
    assert str(smollm2_path.parent) not in said
    assert "Delete" not in said
    assert "Choose an embedding model" in said


@pytest.mark.model
def test_an_embedding_model_that_does_not_pool_is_said_so_never_to_delete(
    minilm_path: Path, tmp_path: Path
) -> None:
    per_token = _without_pooling(minilm_path, tmp_path)

    with pytest.raises(ModelFileInvalid) as refused:
        LlamaEmbedder(per_token)

    said = str(refused.value)
    assert said.startswith("per-token.gguf gives no vector for a whole text")
    assert "Delete" not in said
    assert "Choose an embedding model" in said
    assert per_token.exists()
