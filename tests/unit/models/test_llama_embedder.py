"""Tests of the llama.cpp embedder on the real converted all-MiniLM-L6-v2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from models.convert_bert import DEFAULT_GGUF_NAME, GOLDEN_IDS, ensure_default_embedder_gguf
from models.embedded import default_embedding_source
from models.errors import ModelError, ModelFileInvalid
from models.interfaces import Embedder
from models.llama_embedder import LlamaEmbedder

pytestmark = pytest.mark.model

SENTENCES = [
    "I love climbing",
    "I enjoy bouldering and rock climbing",
    "The invoice is due on Friday",
    "My sister lives in Lisbon and works as a nurse.",
    "Remind me to water the plants tomorrow morning.",
    "What did we talk about yesterday?",
    "The cat sat on the mat.",
    "Quantum computers use qubits.",
]


@pytest.fixture(scope="module")
def gguf_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The same folder test_convert_bert uses: whichever runs first converts.
    cache = tmp_path_factory.getbasetemp() / "minilm-cache"
    return ensure_default_embedder_gguf(default_embedding_source(), cache)


@pytest.fixture(scope="module")
def embedder(gguf_path: Path) -> Iterator[LlamaEmbedder]:
    with LlamaEmbedder(gguf_path) as model:
        yield model


def _cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _per_text(embedder: LlamaEmbedder, texts: list[str]) -> npt.NDArray[np.float32]:
    return np.concatenate([embedder.embed([text]) for text in texts])


# --- golden values -------------------------------------------------------


def test_tokenizer_matches_bert_base_uncased(embedder: LlamaEmbedder) -> None:
    assert tuple(embedder.tokenize("I love climbing")) == GOLDEN_IDS == (101, 1045, 2293, 8218, 102)


def test_related_sentences_are_close(embedder: LlamaEmbedder) -> None:
    a, b = embedder.embed(["I love climbing", "I enjoy bouldering and rock climbing"])
    assert 0.70 <= _cosine(a, b) <= 0.82


def test_unrelated_sentences_are_far(embedder: LlamaEmbedder) -> None:
    a, b = embedder.embed(["I love climbing", "The invoice is due on Friday"])
    assert abs(_cosine(a, b)) < 0.2


# --- shapes and normalisation --------------------------------------------


def test_is_an_embedder(embedder: LlamaEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dimension == 384
    assert embedder.name == DEFAULT_GGUF_NAME.removesuffix(".gguf")


def test_rows_are_unit_length_float32(embedder: LlamaEmbedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_list_gives_an_empty_matrix(embedder: LlamaEmbedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("   \n\t ", id="whitespace"),
        pytest.param("climbing " * 3000, id="past-the-window"),
        pytest.param("🧗‍♀️🪨 ¡Qué bien! 登山が好き مرحبا", id="emoji-and-scripts"),
        pytest.param("e\u0301\u0301\u0301 z\u0336a\u0336", id="combining-marks"),
        pytest.param("half a pair \ud83d here", id="lone-surrogate"),
        pytest.param("nul\x00inside\x1b[0m", id="control-chars"),
        pytest.param("[CLS] [SEP] [MASK]", id="special-token-text"),
    ],
)
def test_odd_text_embeds_to_a_unit_vector(embedder: LlamaEmbedder, text: str) -> None:
    vectors = embedder.embed([text, "I love climbing"])
    assert vectors.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_long_text_is_truncated_to_the_window_keeping_the_separator(
    embedder: LlamaEmbedder,
) -> None:
    ids = embedder.tokenize("climbing " * 3000)
    assert len(ids) > 512
    kept = embedder._truncated(ids)
    assert len(kept) == 512
    assert kept[0] == 101 and kept[-1] == 102


def test_text_past_the_window_embeds_as_its_first_512_tokens(embedder: LlamaEmbedder) -> None:
    base = "I love climbing. " * 200
    a, b = embedder.embed([base, base + " The invoice is due on Friday." * 50])
    assert _cosine(a, b) > 0.999


# --- batching ------------------------------------------------------------


def test_batched_and_per_text_results_agree(embedder: LlamaEmbedder) -> None:
    texts = SENTENCES * 10 + ["", "climbing " * 700]
    batched = embedder.embed(texts)
    single = _per_text(embedder, texts)
    cosines = np.sum(batched * single, axis=1)
    assert cosines.min() > 0.999


def test_order_is_kept_across_decodes(embedder: LlamaEmbedder) -> None:
    # A full-window text in the middle forces a decode boundary on each side of it.
    pair = ["I love climbing", "The invoice is due on Friday"]
    vectors = embedder.embed(pair * 40 + ["climbing " * 700] + pair * 40)
    reference = embedder.embed(pair)
    assert np.sum(vectors[:80] * np.tile(reference, (40, 1)), axis=1).min() > 0.999
    assert np.sum(vectors[81:] * np.tile(reference, (40, 1)), axis=1).min() > 0.999


def test_more_texts_than_sequences_per_decode(gguf_path: Path) -> None:
    # 1024 tokens fit 512 two-token texts, but llama.cpp takes at most 256 sequences.
    with LlamaEmbedder(gguf_path, batch_tokens=1024) as wide:
        vectors = wide.embed([""] * 300 + ["I love climbing"])
        reference = wide.embed(["", "I love climbing"])
    assert np.sum(vectors[:300] * reference[0], axis=1).min() > 0.999
    assert float(vectors[300] @ reference[1]) > 0.999


# --- bad files -----------------------------------------------------------


def test_missing_file_raises_model_file_invalid(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.gguf"
    with pytest.raises(ModelFileInvalid, match=r"nothing\.gguf"):
        LlamaEmbedder(missing)


def test_garbage_file_raises_model_file_invalid(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(b"GGUF" + b"\xff" * 4096)
    with pytest.raises(ModelFileInvalid, match=r"garbage\.gguf") as caught:
        LlamaEmbedder(garbage)
    assert caught.value.hint


def test_truncated_file_raises_model_file_invalid(gguf_path: Path, tmp_path: Path) -> None:
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(gguf_path.read_bytes()[: gguf_path.stat().st_size // 2])
    with pytest.raises(ModelFileInvalid, match=r"truncated\.gguf"):
        LlamaEmbedder(truncated)


def test_closed_embedder_raises(gguf_path: Path) -> None:
    model = LlamaEmbedder(gguf_path)
    model.close()
    model.close()  # closing twice is harmless
    with pytest.raises(ModelError, match="closed"):
        model.embed(["I love climbing"])
