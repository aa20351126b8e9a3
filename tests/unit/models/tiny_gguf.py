"""Tiny chat models for tests: SmolLM2's tokenizer and chat template over a
one-layer model of random weights (8 MB), with any metadata replaced.

Each loads in a fraction of a second, so a test can write the file it needs
(a hostile chat template, another pre-tokenizer, a mislabelled vocabulary)
and load it for real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGUFReader, GGUFValueType, GGUFWriter

Metadata = dict[str, tuple[Any, GGUFValueType, GGUFValueType | None]]
"""Each key's value, its type and, for arrays, the type of its items."""

_ARCH_KEYS = {
    "llama.block_count": 1,
    "llama.embedding_length": 32,
    "llama.feed_forward_length": 64,
    "llama.attention.head_count": 2,
    "llama.attention.head_count_kv": 2,
    "llama.rope.dimension_count": 16,
    "llama.context_length": 2048,
    "llama.vocab_size": 49152,
}
_TENSORS = {
    "token_embd.weight": (49152, 32),
    "blk.0.attn_q.weight": (32, 32),
    "blk.0.attn_k.weight": (32, 32),
    "blk.0.attn_v.weight": (32, 32),
    "blk.0.attn_output.weight": (32, 32),
    "blk.0.ffn_gate.weight": (64, 32),
    "blk.0.ffn_up.weight": (64, 32),
    "blk.0.ffn_down.weight": (32, 64),
}


def tokenizer_metadata(path: Path) -> Metadata:
    """Every metadata key of *path* but the model's shape (its tokenizer and chat template)."""
    metadata: Metadata = {}
    for field in GGUFReader(path).fields.values():
        if field.name.startswith(("GGUF.", "llama.")) or field.name == "general.architecture":
            continue
        kind = field.types[0]
        if kind == GGUFValueType.ARRAY:
            item = field.types[-1]
            parts = [field.parts[i] for i in field.data]
            values = [
                bytes(p).decode() if item == GGUFValueType.STRING else p.tolist()[0] for p in parts
            ]
            metadata[field.name] = (values, kind, item)
        elif kind == GGUFValueType.STRING:
            metadata[field.name] = (bytes(field.parts[field.data[0]]).decode(), kind, None)
        else:
            metadata[field.name] = (field.parts[field.data[0]].tolist()[0], kind, None)
    return metadata


def write_tiny_gguf(
    path: Path, metadata: Metadata, *, architecture: str = "llama", **replaced: Any
) -> Path:
    """A tiny model at *path* with *metadata*, each key in *replaced* (dots
    written as underscores: ``tokenizer_ggml_pre="gpt-4o"``) given that value;
    of another *architecture*, it has llama's shape under that name."""
    writer = GGUFWriter(str(path), arch=architecture)
    for key, number in _ARCH_KEYS.items():
        writer.add_uint32(key.replace("llama.", f"{architecture}.", 1), number)
    writer.add_float32(f"{architecture}.attention.layer_norm_rms_epsilon", 1e-5)
    for key, (value, kind, item) in metadata.items():
        value = replaced.get(key.replace(".", "_"), value)
        writer.add_key_value(key, value, kind, sub_type=item)
    rng = np.random.default_rng(0)
    for tensor, shape in _TENSORS.items():
        writer.add_tensor(tensor, (rng.standard_normal(shape) * 0.02).astype(np.float32))
    for norm in ("output_norm", "blk.0.attn_norm", "blk.0.ffn_norm"):
        writer.add_tensor(f"{norm}.weight", np.ones(32, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
