"""Tests of reading GGUF headers and of the memory estimate against what llama.cpp allocates."""

from __future__ import annotations

import logging
import os
import random
import re
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psutil
import pytest
from gguf import GGUFReader, GGUFValueType, GGUFWriter

from models.errors import ModelFileInvalid
from models.gguf_file import open_llama
from models.gguf_info import (
    GgufInfo,
    MemoryEstimate,
    ModelShape,
    available_memory,
    estimate_embedder_memory,
    estimate_for_file,
    estimate_memory,
    fits,
    read_gguf_info,
)
from models.llama_embedder import LlamaEmbedder

MIB = 1 << 20
GIB = 1 << 30
FAST_S = 10  # every bad file fails well within this; a hang hits the timeout
# The compute buffer formula was fitted to within +2.5% of every measured
# size (see estimate_memory); a llama.cpp upgrade that moves it further fails here.
COMPUTE_TOLERANCE = 0.03


# -- the embedded models -----------------------------------------------------------
@pytest.fixture(scope="module")
def smollm2_info(smollm2_path: Path) -> GgufInfo:
    return read_gguf_info(smollm2_path)


def test_smollm2_header_is_read(smollm2_info: GgufInfo, smollm2_path: Path) -> None:
    assert smollm2_info.architecture == "llama"
    assert smollm2_info.quantization == "Q4_1"  # SmolLM2-135M-Instruct.Q4_1.gguf
    assert smollm2_info.has_chat_template
    assert not smollm2_info.is_embedding
    assert smollm2_info.size_label == "135M"
    assert smollm2_info.context_length == 8192
    assert smollm2_info.file_size == smollm2_path.stat().st_size
    # SmolLM2-135M's config: 30 layers, 9 heads of 64 over 576, 3 KV heads.
    assert smollm2_info.shape == ModelShape(
        layers=30,
        kv_heads=3,
        key_length=64,
        value_length=64,
        embedding_length=576,
        vocab_size=49152,
        heads=9,
    )


def test_minilm_is_an_embedding_model(minilm_path: Path) -> None:
    info = read_gguf_info(minilm_path)

    assert info.architecture == "bert"
    assert info.is_embedding
    assert not info.has_chat_template
    assert info.quantization == "F16"
    assert info.context_length == 512
    assert info.shape.kv_heads == 0  # a BERT encoder keeps no KV cache
    assert (info.shape.layers, info.shape.heads, info.shape.embedding_length) == (6, 12, 384)


@pytest.mark.slow  # the reference reader takes seconds per file
def test_tensor_sizes_agree_with_the_gguf_reference_reader(
    smollm2_path: Path, minilm_path: Path
) -> None:
    for path in (smollm2_path, minilm_path):
        reference = GGUFReader(path)
        info = read_gguf_info(path)

        assert info.tensor_bytes == sum(int(t.n_bytes) for t in reference.tensors)
        assert info.parameters == sum(int(t.n_elements) for t in reference.tensors)


# -- the estimate, by hand and against llama.cpp ---------------------------------
def test_smollm2_estimate_at_4096_matches_a_hand_computation(smollm2_info: GgufInfo) -> None:
    estimate = estimate_memory(smollm2_info.tensor_bytes, smollm2_info.shape, 4096)

    # Numbers read off the file: 30 layers, 3 KV heads, key and value 64, 9
    # heads, embedding 576, vocabulary 49152; 96,576,768 bytes of tensors.
    kv_cache = 30 * 3 * (64 + 64) * 4096 * 2  # f16 cache: 90 MiB
    logits = 512 * (49152 + 3 * 576) * 4  # one 512-token batch of logits, f32
    scores = 512 * (4096 * (9 + 1) + 8 * 576) * 4  # attention scores and mask, f32
    compute = max(logits, scores) + 49152 * 4  # plus one row of output logits
    overhead = 4096 * 512 * 9 * 2 + 49152 * 512  # f16 scratch for scores; tokenizer
    assert estimate == MemoryEstimate(
        weights=96_576_768,
        kv_cache=kv_cache,
        compute=compute,
        overhead=overhead,
        total=96_576_768 + kv_cache + compute + overhead,
        context=4096,
    )
    assert estimate.total == 358_262_016  # 341.7 MiB; peak RSS measured 328.9 MiB


def test_minilm_estimate_matches_a_hand_computation(minilm_path: Path) -> None:
    estimate = estimate_for_file(minilm_path, 4096)

    # An embedder's context is its 512-token batch, whatever the chat context.
    weights = 45_586_944
    attention = 512 * (8 * 384 * 4 + 512 * 2)  # activations, f16 mask
    outputs = 512 * (30522 + 384) * 4  # logits and embedding rows for every token
    assert estimate == MemoryEstimate(
        weights=weights,
        kv_cache=0,
        compute=attention + outputs,
        overhead=30522 * 512,
        total=weights + attention + outputs + 30522 * 512,
        context=512,
    )


@pytest.fixture
def llama_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """What llama.cpp logs while loading (models.gguf_file routes it to logging)."""
    with caplog.at_level(logging.DEBUG, logger="llama.cpp"):
        yield caplog


def _logged_mib(log: pytest.LogCaptureFixture, what: str) -> float | None:
    found = re.findall(rf"{what} size =\s*([\d.]+) MiB", log.text)
    return float(found[-1]) if found else None


@pytest.mark.model
@pytest.mark.parametrize("context", [1000, 4096])
def test_the_smollm2_estimate_matches_what_llama_cpp_allocates(
    smollm2_path: Path, smollm2_info: GgufInfo, llama_log: pytest.LogCaptureFixture, context: int
) -> None:
    estimate = estimate_memory(smollm2_info.tensor_bytes, smollm2_info.shape, context)

    llm = open_llama(smollm2_path, n_ctx=context)  # as LlamaChatModel opens it
    llm.close()

    # llama.cpp rounds the context up to 256 cells: 1000 tokens cost 1024.
    assert estimate.kv_cache / MIB == pytest.approx(_logged_mib(llama_log, "KV buffer"), abs=0.01)
    assert estimate.weights / MIB == pytest.approx(_logged_mib(llama_log, "model buffer"), abs=0.01)
    logged_compute = (_logged_mib(llama_log, "compute buffer") or 0) + (
        _logged_mib(llama_log, "output buffer") or 0
    )
    assert estimate.compute / MIB == pytest.approx(logged_compute, rel=COMPUTE_TOLERANCE)
    assert estimate.compute / MIB >= logged_compute - 0.01  # never below


@pytest.mark.model
def test_the_minilm_estimate_matches_what_llama_cpp_allocates(
    minilm_path: Path, llama_log: pytest.LogCaptureFixture
) -> None:
    info = read_gguf_info(minilm_path)
    estimate = estimate_embedder_memory(info.tensor_bytes, info.shape)

    with LlamaEmbedder(minilm_path):
        pass

    assert _logged_mib(llama_log, "KV buffer") is None
    # The output buffer is logged for 256 sequences; the first full batch of
    # 512 output tokens doubles it (measured in RSS; llama.cpp does not log it).
    output = 2 * (_logged_mib(llama_log, "output buffer") or 0)
    logged_compute = (_logged_mib(llama_log, "compute buffer") or 0) + output
    assert estimate.compute / MIB == pytest.approx(logged_compute, rel=COMPUTE_TOLERANCE)
    assert estimate.weights / MIB == pytest.approx(_logged_mib(llama_log, "model buffer"), abs=0.01)


# -- the estimate's rules ------------------------------------------------------------
SHAPE = ModelShape(
    layers=28,
    kv_heads=2,
    key_length=128,
    value_length=128,
    embedding_length=1536,
    vocab_size=151936,
)


def test_the_kv_cache_is_counted_in_cells_of_256() -> None:
    rounded = estimate_memory(10**9, SHAPE, 1000)
    padded = estimate_memory(10**9, SHAPE, 1024)

    assert rounded.kv_cache == padded.kv_cache == 28 * 2 * 256 * 1024 * 2
    assert rounded.context == 1000


def test_a_quantised_cache_costs_less() -> None:
    f16 = estimate_memory(10**9, SHAPE, 8192)
    q8 = estimate_memory(10**9, SHAPE, 8192, kv_bytes_per_element=34 / 32)

    assert q8.kv_cache == pytest.approx(f16.kv_cache * 17 / 32, rel=1e-6)


def test_long_contexts_are_dominated_by_attention_scores() -> None:
    short = estimate_memory(10**9, SHAPE, 2048)
    long = estimate_memory(10**9, SHAPE, 32768)

    # Below ~12k tokens the logits (vocab * batch) are the largest tensor;
    # beyond it the f32 scores, context * batch * (12 heads + mask).
    assert short.compute == 512 * (151936 + 3 * 1536) * 4 + 151936 * 4
    assert long.compute == 512 * (32768 * 13 + 8 * 1536) * 4 + 151936 * 4


def test_heads_default_to_embedding_over_head_size() -> None:
    assert SHAPE.attention_heads == 1536 // 128
    assert ModelShape(28, 8, 128, 128, 2560, 151936, heads=32).attention_heads == 32


def test_a_context_below_the_batch_shrinks_the_batch() -> None:
    small = estimate_memory(10**9, SHAPE, 256)

    assert small.compute == 256 * (151936 + 3 * 1536) * 4 + 151936 * 4


def test_estimates_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="context"):
        estimate_memory(10**9, SHAPE, 0)
    with pytest.raises(ValueError, match="batch"):
        estimate_embedder_memory(10**9, SHAPE, batch=0)


def test_fits_leaves_a_margin() -> None:
    estimate = estimate_memory(10**9, SHAPE, 4096)
    total = estimate.total

    assert fits(estimate, available=int(total / 0.8) + 1) == "fits"
    assert fits(estimate, available=total) == "tight"
    assert fits(estimate, available=total - 1) == "too_big"


def test_available_memory_is_the_systems() -> None:
    available = available_memory()

    assert 0 < available <= psutil.virtual_memory().total


# -- GGUFs written here ------------------------------------------------------------------
def _write_gguf(path: Path, *, head_count_kv: int | list[int] = 2, file_type: bool = True) -> Path:
    writer = GGUFWriter(path, "llama")
    writer.add_block_count(4)
    writer.add_context_length(2048)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_head_count_kv(head_count_kv)
    writer.add_token_list([f"t{i}" for i in range(100)])
    if file_type:
        writer.add_file_type(1)
    writer.add_tensor("token_embd.weight", np.zeros((100, 64), np.float16))
    writer.add_tensor("output_norm.weight", np.ones(64, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_a_written_gguf_is_read(tmp_path: Path) -> None:
    info = read_gguf_info(_write_gguf(tmp_path / "small.gguf"))

    assert info.name == "small"  # no general.name: the file's stem
    assert info.size_label == "6K"
    assert info.parameters == 100 * 64 + 64
    assert info.tensor_bytes == 100 * 64 * 2 + 64 * 4
    assert info.quantization == "F16"
    assert not info.has_chat_template
    assert info.shape == ModelShape(4, 2, 16, 16, 64, 100, heads=4)


def test_without_a_file_type_the_dominant_tensor_type_names_the_quantisation(
    tmp_path: Path,
) -> None:
    info = read_gguf_info(_write_gguf(tmp_path / "untyped.gguf", file_type=False))

    assert info.quantization == "F16"  # 12,800 bytes of F16 against 256 of F32


def test_per_layer_kv_heads_count_only_the_attending_layers(tmp_path: Path) -> None:
    # Hybrid models give recurrent layers 0 KV heads; they cache nothing.
    info = read_gguf_info(_write_gguf(tmp_path / "hybrid.gguf", head_count_kv=[0, 4, 0, 2]))

    assert (info.shape.layers, info.shape.kv_heads) == (2, 3)


# -- bad files ---------------------------------------------------------------------------
def _header(*, tensors: int = 0, kvs: int = 0, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, tensors, kvs)


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _kv_string(key: str, value: str) -> bytes:
    return _string(key) + struct.pack("<I", GGUFValueType.STRING) + _string(value)


def _kv_array(key: str, item_type: GGUFValueType, count: int) -> bytes:
    return _string(key) + struct.pack("<IIQ", GGUFValueType.ARRAY, item_type, count)


def _random_bytes(size: int) -> bytes:
    return random.Random(1234).randbytes(size)


BAD_CONTENTS = {
    "empty.gguf": b"",
    "text.gguf": b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\n",
    "random.gguf": _random_bytes(4096),
    "magic-then-garbage.gguf": b"GGUF" + _random_bytes(MIB),
    "short.gguf": b"GGUF\x03\x00",
    "version-1.gguf": _header(version=1),
    "billions-of-keys.gguf": _header(kvs=5 * 10**9) + _kv_string("general.name", "x"),
    "billions-of-tensors.gguf": _header(tensors=5 * 10**9),
    "huge-array.gguf": _header(kvs=1)
    + _kv_array("tokenizer.ggml.scores", GGUFValueType.FLOAT32, 2**40),
    "huge-string.gguf": _header(kvs=1) + _string("general.name") + struct.pack("<IQ", 8, 2**62),
    "nested-array.gguf": _header(kvs=1) + _kv_array("x", GGUFValueType.ARRAY, 1),
    "no-architecture.gguf": _header(kvs=1) + _kv_string("general.name", "nameless"),
    "unknown-architecture-keys.gguf": _header(kvs=1) + _kv_string("general.architecture", "llama"),
}


@pytest.mark.timeout(FAST_S)
@pytest.mark.parametrize("name", sorted(BAD_CONTENTS))
def test_a_bad_file_is_refused_with_a_hint(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(BAD_CONTENTS[name])

    with pytest.raises(ModelFileInvalid) as caught:
        read_gguf_info(path)

    assert name in str(caught.value)
    assert caught.value.hint


@pytest.mark.timeout(FAST_S)
def test_missing_architecture_keys_are_named(tmp_path: Path) -> None:
    path = tmp_path / "keyless.gguf"
    writer = GGUFWriter(path, "llama")
    writer.add_context_length(2048)  # but no llama.block_count, no embedding length
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()

    with pytest.raises(ModelFileInvalid, match=r"keyless\.gguf.*llama\.(block_count|embedding)"):
        read_gguf_info(path)


@pytest.mark.timeout(FAST_S)
@pytest.mark.parametrize("size", [MIB, 2 * MIB], ids=["in-the-header", "in-the-weights"])
def test_a_truncated_model_is_refused(smollm2_path: Path, tmp_path: Path, size: int) -> None:
    path = tmp_path / "truncated.gguf"
    with smollm2_path.open("rb") as source:
        path.write_bytes(source.read(size))  # SmolLM2's header ends at 1.7 MB

    with pytest.raises(ModelFileInvalid, match=r"truncated\.gguf") as caught:
        read_gguf_info(path)

    assert caught.value.hint


@pytest.mark.timeout(FAST_S)
def test_a_claimed_array_over_a_sparse_hole_is_refused_at_once(tmp_path: Path) -> None:
    # 64M empty strings fit in a 1 GiB hole; walked one by one they would take
    # minutes, so a claim that large is refused before any is read.
    path = tmp_path / "holey.gguf"
    path.write_bytes(
        _header(kvs=1) + _kv_array("tokenizer.ggml.tokens", GGUFValueType.STRING, 2**26)
    )
    os.truncate(path, GIB)

    with pytest.raises(ModelFileInvalid, match=r"holey\.gguf.*entries"):
        read_gguf_info(path)


@pytest.mark.timeout(FAST_S)
def test_missing_files_and_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelFileInvalid, match=r"absent\.gguf"):
        read_gguf_info(tmp_path / "absent.gguf")
    folder = tmp_path / "folder.gguf"
    folder.mkdir()
    with pytest.raises(ModelFileInvalid, match=r"folder\.gguf"):
        read_gguf_info(folder)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_refused(smollm2_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "locked.gguf"
    path.write_bytes(smollm2_path.read_bytes())
    path.chmod(0)

    with pytest.raises(ModelFileInvalid, match=r"locked\.gguf") as caught:
        read_gguf_info(path)

    assert caught.value.hint


@pytest.mark.timeout(FAST_S)
def test_the_weights_of_a_huge_file_are_never_read(smollm2_path: Path, tmp_path: Path) -> None:
    # SmolLM2's header and first weights, then a 256 GiB hole: reading the
    # hole would take minutes; reading the header takes milliseconds.
    path = tmp_path / "huge.gguf"
    with smollm2_path.open("rb") as source:
        path.write_bytes(source.read(2 * MIB))
    os.truncate(path, 256 * GIB)

    started = time.monotonic()
    info = read_gguf_info(path)
    elapsed = time.monotonic() - started

    assert elapsed < 2
    assert info.architecture == "llama"
    assert info.file_size == 256 * GIB
    assert info.tensor_bytes == read_gguf_info(smollm2_path).tensor_bytes
