"""Round 35: the first part of a model split in two (``-00001-of-00002``)
whose second part is missing.

Loading it said "llama.cpp could not load ...: Failed to load model from
file", that the file "may be corrupt or use an architecture this llama.cpp
does not support" (``reverie models add``: that its architecture, 'llama',
was not one llama.cpp knows).  The part that is missing is named now, as
llama.cpp gives it, with the way out for a damaged download.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gguf import GGUFValueType

from models.errors import ModelFileInvalid
from models.llama_chat import LlamaChatModel
from tests.unit.models.tiny_gguf import Metadata, write_tiny_gguf


@pytest.fixture
def first_of_two(smollm2_metadata: Metadata, tmp_path: Path) -> Path:
    split: Metadata = {
        "split.no": (0, GGUFValueType.UINT16, None),
        "split.count": (2, GGUFValueType.UINT16, None),
        "split.tensors.count": (11, GGUFValueType.INT32, None),
    }
    return write_tiny_gguf(tmp_path / "tiny-00001-of-00002.gguf", {**smollm2_metadata, **split})


def test_a_split_model_missing_a_part_names_the_part(first_of_two: Path) -> None:
    with pytest.raises(ModelFileInvalid) as refused:
        LlamaChatModel(first_of_two, context_length=512)

    said = str(refused.value)
    assert "tiny-00002-of-00002.gguf" in said  # was: 'Failed to load model from file'
    assert "architecture" not in said
    assert "Download the model again" in said
