"""An ``Embedder`` backed by a llama.cpp embedding GGUF (e.g. the converted all-MiniLM-L6-v2).

Throughput comes from packing many texts into one ``llama_decode``: every
text becomes its own sequence in a shared batch, and llama.cpp pools each
sequence separately.  A BERT-style encoder attends over the whole batch at
once (masked per sequence), so a batch must fit in one micro-batch.  Flash
attention is what makes that pay: without it the masked all-pairs attention
over a packed batch costs more than the per-call overhead it saves.

Not thread-safe: one owner (the inference broker) calls it from one thread.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import cast

import llama_cpp
import numpy as np
import numpy.typing as npt

from models.errors import ModelError, ModelFileInvalid
from models.gguf_file import default_threads, open_llama
from models.gguf_info import read_gguf_info
from models.llama_tokens import tokenize
from models.model_file import damaged_weights, shown_path

DEFAULT_BATCH_TOKENS = 512
"""Tokens per decode.  One full 512-token window fits; larger batches gain
little on 2 cores and make llama.cpp warn that the context exceeds training."""
_PROBE = "A text to check the model's numbers with."
"""Embedded once at load: damaged weights give numbers that are not."""

_CHOOSE_EMBEDDER = (
    "Choose an embedding model for memory search (the embedded one, or a .gguf of a "
    "sentence-embedding model such as bge-small-en-v1.5)."
)


class LlamaEmbedder:
    """Embeds batches of texts with a pooled llama.cpp embedding model.

    Texts longer than the model's window (its trained context, capped at
    *batch_tokens*) are truncated to it, keeping the trailing separator
    token; they are never rejected.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        name: str | None = None,
        batch_tokens: int = DEFAULT_BATCH_TOKENS,
        n_threads: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        self.model_path = model_path
        self.name = name or model_path.stem
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self._llama = _load(model_path, batch_tokens, n_threads or default_threads())
        self._vocab = llama_cpp.llama_model_get_vocab(self._llama.model)
        self.dimension = int(self._llama.n_embd())
        self._window = min(batch_tokens, llama_cpp.llama_model_n_ctx_train(self._llama.model))
        self._max_sequences = int(llama_cpp.llama_n_seq_max(self._llama.ctx))
        self._batch_tokens = batch_tokens
        self._keeps_last = _appends_separator(self._llama)
        self._batch: llama_cpp.llama_batch | None = llama_cpp.llama_batch_init(batch_tokens, 0, 1)
        try:  # damaged weights load (llama.cpp reads no checksum): refused now, not at each use
            self.embed([_PROBE])
        except ModelFileInvalid:
            self.close()
            raise

    def tokenize(self, text: str) -> list[int]:
        """The token ids the model sees for *text*, special tokens included, untruncated."""
        return tokenize(self._vocab, text, add_special=True, parse_special=False)

    def count_tokens(self, text: str) -> int:
        """How many tokens *text* has before truncation to the window."""
        return len(self.tokenize(text))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embeddings of *texts*, shape ``(len(texts), dimension)``, rows L2-normalised."""
        if self._batch is None:
            raise ModelError(f"{self.name} is closed")
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        sequences = [self._truncated(self.tokenize(text)) for text in texts]
        for first, group in self._groups(sequences):
            out[first : first + len(group)] = self._decode(group)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        if not (np.isfinite(norms).all() and (norms > 0).all()):
            raise damaged_weights(self.model_path)
        out /= norms
        return out

    def close(self) -> None:
        """Free the model; the embedder is unusable afterwards."""
        if self._batch is not None:
            llama_cpp.llama_batch_free(self._batch)
            self._batch = None
            self._llama.close()

    def __enter__(self) -> LlamaEmbedder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _truncated(self, ids: list[int]) -> list[int]:
        if len(ids) <= self._window:
            return ids
        if self._keeps_last:
            return ids[: self._window - 1] + ids[-1:]
        return ids[: self._window]

    def _groups(self, sequences: list[list[int]]) -> Iterator[tuple[int, list[list[int]]]]:
        """Consecutive runs of sequences that fit in one decode, with their start index."""
        group: list[list[int]] = []
        first = used = 0
        for index, ids in enumerate(sequences):
            full = used + len(ids) > self._batch_tokens or len(group) == self._max_sequences
            if group and full:
                yield first, group
                first, group, used = index, [], 0
            group.append(ids)
            used += len(ids)
        if group:
            yield first, group

    def _decode(self, group: list[list[int]]) -> npt.NDArray[np.float32]:
        batch = self._batch
        assert batch is not None  # embed() checked
        _fill_batch(batch, group)
        memory = llama_cpp.llama_get_memory(self._llama.ctx)
        if memory:  # encoder-only models keep no memory between calls
            llama_cpp.llama_memory_clear(memory, True)
        status = llama_cpp.llama_decode(self._llama.ctx, batch)
        if status != 0:
            raise ModelError(f"{self.name}: llama_decode failed with status {status}")
        return np.stack([self._pooled(seq) for seq in range(len(group))])

    def _pooled(self, seq: int) -> npt.NDArray[np.float32]:
        pointer = llama_cpp.llama_get_embeddings_seq(self._llama.ctx, seq)
        if not pointer:
            raise ModelError(f"{self.name} returned no pooled embedding for sequence {seq}")
        return np.ctypeslib.as_array(pointer, shape=(self.dimension,)).copy()


def _load(model_path: Path, batch_tokens: int, n_threads: int) -> llama_cpp.Llama:
    llama = open_llama(
        model_path,
        embedding=True,
        # n_ctx bounds n_batch in llama-cpp-python; an encoder keeps no KV cache.
        n_ctx=batch_tokens,
        n_batch=batch_tokens,
        n_ubatch=batch_tokens,  # non-causal attention needs the batch in one ubatch
        n_threads=n_threads,
        n_threads_batch=n_threads,
        flash_attn=True,  # measured 2-5x faster on packed batches (see module doc)
    )
    if llama_cpp.llama_pooling_type(llama.ctx) in (
        llama_cpp.LLAMA_POOLING_TYPE_NONE,
        llama_cpp.LLAMA_POOLING_TYPE_RANK,
    ):
        llama.close()
        raise _not_pooling(model_path)
    return llama


def _not_pooling(path: Path) -> ModelFileInvalid:
    """The error of a model that gives no one vector for a text: a chat
    model (set for memory search by hand), a reranker, or an encoder whose
    pooling is none.  Never "convert it again": Reverie converts only its
    own embedded model, and these are the user's files."""
    info = read_gguf_info(path)
    name = shown_path(path.name)
    if not info.is_embedding:
        return ModelFileInvalid(
            f"{name} is a chat model, not an embedding model: it writes replies and cannot "
            f"turn a text into the vector that finds memories ({info.architecture}).",
            _CHOOSE_EMBEDDER,
        )
    return ModelFileInvalid(
        f"{name} gives no vector for a whole text (a reranker, or a model whose pooling is "
        f"none): memory search cannot use it ({info.architecture}).",
        _CHOOSE_EMBEDDER,
    )


def _appends_separator(llama: llama_cpp.Llama) -> bool:
    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    return bool(
        llama_cpp.llama_vocab_get_add_sep(vocab) or llama_cpp.llama_vocab_get_add_eos(vocab)
    )


def _fill_batch(batch: llama_cpp.llama_batch, group: list[list[int]]) -> None:
    """Lay out *group* in *batch*: sequence i is seq_id i, every token an output."""
    # llama_cpp's hints call `pos` a 2-D array; in C it is a flat llama_pos*.
    positions = cast("ctypes.Array[ctypes.c_int32]", batch.pos)
    n = 0
    for seq, ids in enumerate(group):
        for pos, token in enumerate(ids):
            batch.token[n] = token
            positions[n] = pos
            batch.n_seq_id[n] = 1
            batch.seq_id[n][0] = seq
            # Pooled embeddings need every token of the sequence as an output.
            batch.logits[n] = 1
            n += 1
    batch.n_tokens = n
