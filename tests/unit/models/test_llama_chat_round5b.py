"""Round 5: an embedding model chosen as the chat model.

MiniLM (a BERT encoder, no KV cache) loaded as the chat model, and the
first reply died inside llama-cpp-python with ``AssertionError: Memory is
not initialized``: a traceback out of ``reverie --check``.  It is refused
when it loads, with a message saying what the file is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models.errors import ModelFileInvalid
from models.llama_chat import LlamaChatModel


def test_an_embedding_model_is_refused_as_the_chat_model_when_it_loads(minilm_path: Path) -> None:
    with pytest.raises(ModelFileInvalid) as refused:
        LlamaChatModel(minilm_path, context_length=512)

    message = str(refused.value)
    assert minilm_path.name in message
    assert "embedding model, not a chat model" in message
    assert "chat model" in refused.value.hint
