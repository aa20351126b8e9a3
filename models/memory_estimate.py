"""How much memory a model will need, from its shape, without loading it.

``estimate_memory`` sizes what llama.cpp allocates for a chat model loaded as
``LlamaChatModel`` loads it (llama-cpp-python's defaults: f16 KV cache,
512-token batches, no flash attention); ``estimate_embedder_memory`` does the
same for ``LlamaEmbedder``'s settings.  Their formulas were fitted on what
llama.cpp (llama-cpp-python 0.3.36) logs and on the process's peak RSS; the
docstrings say on what and how closely.  ``fits`` weighs an estimate against
the memory the system has free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import psutil

from models.gguf_info import ModelShape, read_gguf_info


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes a loaded model will need, and the context they were computed for.

    ``compute`` is llama.cpp's compute and output buffers (what it logs);
    ``overhead`` what it allocates without logging it: the CPU backend's
    scratch space for attention and the process's share for the tokenizer's
    tables and the graph.
    """

    weights: int
    kv_cache: int
    compute: int
    overhead: int
    total: int
    context: int


Fit = Literal["fits", "tight", "too_big"]


_KV_CELL_PADDING = 256
"""llama.cpp rounds the context (its KV cells) up to a multiple of 256."""
_F32 = 4
_F16 = 2
_LOGITS_SLACK = 3
_ATTENTION_SLACK = 8
_FLASH_SLACK = 8
"""Live activations beside the dominant tensor, in rows of ``embedding_length``
floats per batch token (fitted; see ``estimate_memory``)."""
_OVERHEAD_PER_TOKEN = 512
"""Bytes per vocabulary entry of unlogged memory (tokenizer tables, graph)."""


def estimate_memory(
    weights_bytes: int,
    shape: ModelShape,
    context: int,
    *,
    kv_bytes_per_element: float = 2,
    batch: int = 512,
) -> MemoryEstimate:
    """The memory a chat model needs at *context* tokens, loaded as ``LlamaChatModel`` does.

    - KV cache: layers * KV heads * (key_length + value_length) * cells *
      bytes, with cells = *context* rounded up to 256 (llama.cpp's padding);
      exact against llama.cpp's "KV buffer size".
    - Compute buffer, with b = min(batch, context) tokens per micro-batch and
      n = cells: the larger of the logits, b * (vocab + 3 * embedding) * 4,
      and the attention scores with their mask, b * (n * (heads + 1) +
      8 * embedding) * 4 (without flash attention the scores are
      materialised); plus the one-row output buffer, vocab * 4.
    - Overhead: the CPU backend converts the scores to f16 for the product
      with V, in a scratch buffer of n * b * heads * 2 bytes that llama.cpp
      does not log; and about 512 bytes per vocabulary entry (tokenizer
      tables, graph).

    Fitted on llama-cpp-python 0.3.36 (CPU), compute and output buffers as
    logged (MiB) against the estimate: SmolLM2-135M (vocabulary 49152, 9
    heads, embedding 576) at 256/512/1024/2048/4096/5120/8192/16384 tokens:
    49.3/98.4/98.4/99.6/99.6/106.6/166.6/326.6 against 49.9/99.6/99.6/99.6/
    99.6/109.2/169.2/329.2, 0 to +2.5%; two synthetic llamas (16 heads of
    128 on embedding 1024; 12 heads of 64 on 768) at 512-8192 tokens, 0 to
    +2.0%.  Peak RSS after filling the whole context (MiB): SmolLM2 535.6
    at 8192 (estimate 537.3), 328.9 at 4096 (341.7), 225.9 at 2048 (278.7:
    while the logits are the larger buffer, the estimate counts all of it,
    though a one-logit decode never touches most of it); the 16-head llama
    417.3 at 4096 (420.2).  Not modelled: MLA caches (DeepSeek), recurrent
    state, KV layers shared between layers (Gemma 3n), flash attention.
    """
    _check_positive(context=context, batch=batch)
    cells = _kv_cells(context)
    tokens = min(batch, context)
    heads = shape.attention_heads
    logits = tokens * (shape.vocab_size + _LOGITS_SLACK * shape.embedding_length) * _F32
    scores = tokens * (cells * (heads + 1) + _ATTENTION_SLACK * shape.embedding_length) * _F32
    compute = max(logits, scores) + shape.vocab_size * _F32
    scratch = cells * tokens * heads * _F16
    return _estimate(
        weights_bytes,
        _kv_cache(shape, cells, kv_bytes_per_element),
        compute,
        scratch + shape.vocab_size * _OVERHEAD_PER_TOKEN,
        context,
    )


def estimate_embedder_memory(
    weights_bytes: int, shape: ModelShape, *, batch: int = 512
) -> MemoryEstimate:
    """The memory an embedding model needs, loaded as ``LlamaEmbedder`` loads it.

    Its context is one batch (*batch* tokens, flash attention, every token an
    output): compute = b * 8 * embedding * 4 plus the f16 attention mask
    b * b * 2; the output buffer holds logits and embeddings for every token,
    b * (vocab + embedding) * 4 (llama.cpp reallocates it to that size on
    the first full batch); a KV cache of one batch when the model keeps one
    (decoder embedders; BERT-style encoders keep none).  Fitted on
    all-MiniLM-L6-v2 (f16) at batches 128/256/512: logged compute buffer
    1.41/3.00/6.26 MiB, estimate 1.53/3.13/6.50; peak RSS after a full
    512-token batch 117-123 MiB, estimate 125.
    """
    _check_positive(batch=batch)
    compute = batch * (_FLASH_SLACK * shape.embedding_length * _F32 + batch * _F16)
    outputs = batch * (shape.vocab_size + shape.embedding_length) * _F32
    return _estimate(
        weights_bytes,
        _kv_cache(shape, _kv_cells(batch), 2),
        compute + outputs,
        shape.vocab_size * _OVERHEAD_PER_TOKEN,
        batch,
    )


def estimate_for_file(path: Path, context: int) -> MemoryEstimate:
    """``estimate_memory`` (or, for an embedding model, ``estimate_embedder_memory``,
    whose context is its batch) for the GGUF at *path*."""
    info = read_gguf_info(path)
    if info.is_embedding:
        return estimate_embedder_memory(info.tensor_bytes, info.shape)
    return estimate_memory(info.tensor_bytes, info.shape, context)


def available_memory() -> int:
    """Bytes the system can give a new allocation without swapping (psutil's "available")."""
    return int(psutil.virtual_memory().available)


FIT_MARGIN = 0.8
"""An estimate "fits" within 80% of the available memory.  The estimate is
within a few per cent of llama.cpp's peak; the rest leaves room for what the
system and the app allocate meanwhile."""


def fits(estimate: MemoryEstimate, available: int) -> Fit:
    """Whether *estimate* fits: within ``FIT_MARGIN`` of *available*, within all of it
    ("tight"), or not ("too_big").

    *available* is measured with the current model still loaded; a caller
    replacing it may add back what that model uses.
    """
    if estimate.total <= available * FIT_MARGIN:
        return "fits"
    if estimate.total <= available:
        return "tight"
    return "too_big"


def _kv_cells(context: int) -> int:
    return -(-context // _KV_CELL_PADDING) * _KV_CELL_PADDING


def _kv_cache(shape: ModelShape, cells: int, bytes_per_element: float) -> int:
    per_cell = shape.layers * shape.kv_heads * (shape.key_length + shape.value_length)
    return math.ceil(per_cell * cells * bytes_per_element)


def _estimate(
    weights: int, kv_cache: int, compute: int, overhead: int, context: int
) -> MemoryEstimate:
    return MemoryEstimate(
        weights=weights,
        kv_cache=kv_cache,
        compute=compute,
        overhead=overhead,
        total=weights + kv_cache + compute + overhead,
        context=context,
    )


def _check_positive(**values: int) -> None:
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, not {value}")
