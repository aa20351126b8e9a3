"""Whether a GBNF grammar lets a text through, checked by llama.cpp's own
grammar sampler: what a schema-constrained generation may write."""

from __future__ import annotations

import ctypes
import math

import llama_cpp


def grammar_accepts(llm: llama_cpp.Llama, grammar: str, text: str) -> bool:
    """Whether *grammar* lets *text* through, fed one single-character token at a time."""
    sampler = llama_cpp.llama_sampler_init_grammar(
        llama_cpp.llama_model_get_vocab(llm.model), grammar.encode(), b"root"
    )
    assert sampler, "the grammar did not compile"
    try:
        for char in text:
            tokens = llm.tokenize(char.encode(), add_bos=False, special=False)
            assert len(tokens) == 1, f"{char!r} is not a single token"
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(tokens[0], 1.0, 0.0))
            candidates = llama_cpp.llama_token_data_array(
                data=data, size=1, selected=-1, sorted=False
            )
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
            if math.isinf(data[0].logit):
                return False
            llama_cpp.llama_sampler_accept(sampler, tokens[0])  # only ever an allowed token
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)
