"""Token samplers built on llama.cpp's sampler chain, including fast
schema-constrained sampling.

llama-cpp-python puts the grammar first in its chain, so the grammar checks
the whole vocabulary (49k tokens for SmolLM2) at every step; that alone
halved generation speed.  ``ConstrainedSampler`` does what llama.cpp's own
``common_sampler`` does instead: sample without the grammar, check only the
chosen token against it, and fall back to the full grammar pass only when
that token is rejected.  Greedy decoding gives exactly the tokens of the full
grammar pass (the tests check this against llama-cpp-python); with
top-k/top-p sampling the distribution is close but not identical, as in
llama.cpp itself.
"""

from __future__ import annotations

import ctypes
import json
import math
import re
from collections.abc import Sequence
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp.llama_grammar import LlamaGrammar

from models.interfaces import GenerationOptions

_PENALTY_WINDOW = 64
_MIN_P = 0.05
# llama-cpp-python's converter lets raw control characters (newlines) into
# JSON strings, which JSON forbids and validators reject; llama.cpp's own
# converter excludes them, as this rule does.
_STRICT_CHAR_RULE = r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'
_CHAR_RULE = re.compile(r"^char ::= .*$", re.MULTILINE)
# The converter writes a character past U+FFFF of a fixed text (an enum
# value, a const) as JSON does, a UTF-16 pair of escapes; llama.cpp reads
# each escape of a grammar's literal as a character of its own.
_ESCAPED_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.I)
_TOKEN_DTYPE = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)


_LONGEST_SPELLED_OUT = 64
"""String length limits above this are left to validation (see ``grammar_for_schema``)."""
_WIDEST_RANGE_SPELLED_OUT = 64
"""Integer ranges of at most this many values are spelled out as their values."""


def grammar_for_schema(schema: dict[str, Any]) -> str:
    """A GBNF grammar accepting the JSON documents valid under *schema*'s shape.

    A long string length limit is not part of it: the converter spells
    ``maxLength: 400`` out as 400 nested optional characters, which made
    constrained generation several times slower (and llama.cpp refuses to
    compile a nest of 2,000).  The output is validated afterwards anyway.
    An integer's bounds, which llama-cpp-python's converter leaves out
    (SmolLM2 wrote a task's priority 1 to 10 as 0, and the whole answer was
    refused), are part of it when the range is small: its values, each an
    alternative.
    """
    loose = _grammar_shaped(schema)
    grammar = LlamaGrammar.from_json_schema(json.dumps(loose))._grammar
    return _ESCAPED_PAIR.sub(
        _joined_pair, _CHAR_RULE.sub(lambda _: _STRICT_CHAR_RULE, str(grammar))
    )


def _joined_pair(escaped: re.Match[str]) -> str:
    """The character a UTF-16 pair of escapes stands for (a worker profile
    named with an emoji: as two surrogates, bytes no text has, the model
    could never name it)."""
    high, low = int(escaped[2], 16), int(escaped[3], 16)
    return escaped[1] + chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def _grammar_shaped(node: Any) -> Any:
    if isinstance(node, list):
        return [_grammar_shaped(item) for item in node]
    if not isinstance(node, dict):
        return node
    values = _small_range(node)
    if values is not None:
        return {"enum": values}
    return {
        key: _grammar_shaped(value)
        for key, value in node.items()
        if not (key == "maxLength" and isinstance(value, int) and value > _LONGEST_SPELLED_OUT)
    }


def _small_range(node: dict[str, Any]) -> list[int] | None:
    """The values an integer schema *node* allows, if they are few (None otherwise)."""
    if node.get("type") != "integer":
        return None
    low, high = node.get("minimum"), node.get("maximum")
    if isinstance(node.get("exclusiveMinimum"), int):
        low = node["exclusiveMinimum"] + 1
    if isinstance(node.get("exclusiveMaximum"), int):
        high = node["exclusiveMaximum"] - 1
    if not (isinstance(low, int) and isinstance(high, int)):
        return None
    if not 0 < high - low + 1 <= _WIDEST_RANGE_SPELLED_OUT:
        return None
    return list(range(low, high + 1))


class SamplerChain:
    """Penalties, then top-k/top-p/min-p/temperature and a seeded draw (or greedy)."""

    def __init__(self, options: GenerationOptions, n_vocab: int, seed: int) -> None:
        params = llama_cpp.llama_sampler_chain_default_params()
        self.handle: Any = llama_cpp.llama_sampler_chain_init(params)
        self._add(
            llama_cpp.llama_sampler_init_penalties(
                n_vocab, _PENALTY_WINDOW, options.repeat_penalty, 0.0, 0.0
            )
        )
        if options.temperature <= 0:
            self._add(llama_cpp.llama_sampler_init_greedy())
            return
        self._add(llama_cpp.llama_sampler_init_top_k(options.top_k))
        self._add(llama_cpp.llama_sampler_init_top_p(options.top_p, 1))
        self._add(llama_cpp.llama_sampler_init_min_p(_MIN_P, 1))
        self._add(llama_cpp.llama_sampler_init_temp(options.temperature))
        self._add(llama_cpp.llama_sampler_init_dist(seed))

    def _add(self, sampler: Any) -> None:
        llama_cpp.llama_sampler_chain_add(self.handle, sampler)

    def sample(self, ctx: Any) -> int:
        """Sample from the last decoded position and record the token."""
        return int(llama_cpp.llama_sampler_sample(self.handle, ctx, -1))

    def accept(self, token: int) -> None:
        llama_cpp.llama_sampler_accept(self.handle, token)

    def close(self) -> None:
        if self.handle is not None:
            llama_cpp.llama_sampler_free(self.handle)
            self.handle = None


class GrammarCompileError(ValueError):
    """llama.cpp refused a GBNF grammar (a bug in the schema or the converter)."""


class ConstrainedSampler:
    """A ``SamplerChain`` whose output must follow a GBNF grammar.

    A *lazy* sampler samples freely until ``activate()`` (its caller saw the
    trigger text): the grammar then holds from that point on.
    """

    def __init__(
        self,
        options: GenerationOptions,
        vocab: Any,
        n_vocab: int,
        seed: int,
        grammar: str,
        *,
        lazy: bool = False,
    ) -> None:
        if not grammar.strip():  # llama.cpp takes an empty grammar as "no constraint"
            raise GrammarCompileError("the output grammar is empty")
        self._chain = SamplerChain(options, n_vocab, seed)
        self._grammar: Any = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        if not self._grammar:
            self._chain.close()
            raise GrammarCompileError("llama.cpp could not compile the output grammar")
        self._n_vocab = n_vocab
        self._ids = np.arange(n_vocab, dtype=np.intc)
        self._all = np.zeros(n_vocab, dtype=_TOKEN_DTYPE)
        self._all_view = _token_array(self._all)
        self._one = np.zeros(1, dtype=_TOKEN_DTYPE)
        self._one_view = _token_array(self._one)
        self.active = not lazy

    def activate(self, tokens: Sequence[int]) -> bool:
        """Hold the output to the grammar from now on, *tokens* (the text
        already written after the trigger) being its beginning.  False, and
        still inactive, if that beginning can never match the grammar."""
        for token in tokens:
            # Checked first: llama.cpp aborts the process on a token its
            # grammar cannot accept.
            if not self._grammar_allows(token):
                return False
            llama_cpp.llama_sampler_accept(self._grammar, token)
        self.active = True
        return True

    def sample(self, ctx: Any) -> int:
        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(ctx, -1), shape=(self._n_vocab,)
        )
        token = self._pick(logits, with_grammar=False)
        if self.active:
            if not self._grammar_allows(token):
                token = self._pick(logits, with_grammar=True)
            llama_cpp.llama_sampler_accept(self._grammar, token)
        self._chain.accept(token)
        return token

    def _pick(self, logits: np.ndarray[Any, Any], with_grammar: bool) -> int:
        self._all["id"] = self._ids
        self._all["logit"] = logits
        self._all["p"] = 0.0
        view = self._all_view
        view.size, view.selected, view.sorted = self._n_vocab, -1, False
        if with_grammar:
            llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(view))
        llama_cpp.llama_sampler_apply(self._chain.handle, ctypes.byref(view))
        # Read through the array's own pointer: a sampler may sort or replace its data.
        return int(view.data[view.selected].id)

    def _grammar_allows(self, token: int) -> bool:
        self._one[0] = (token, 1.0, 0.0)
        view = self._one_view
        view.size, view.selected, view.sorted = 1, -1, False
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(view))
        return not math.isinf(float(self._one["logit"][0]))

    def close(self) -> None:
        self._chain.close()
        if self._grammar:
            llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None


def _token_array(data: np.ndarray[Any, Any]) -> Any:
    return llama_cpp.llama_token_data_array(
        data=data.ctypes.data_as(llama_cpp.llama_token_data_p),
        size=len(data),
        selected=-1,
        sorted=False,
    )
