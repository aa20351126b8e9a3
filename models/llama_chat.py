"""The llama.cpp chat model: prompt formatting, prompt-cache reuse and
streaming generation with cancellation between tokens.

The chat template comes from the GGUF's own metadata and is rendered in a
sandbox with bounds on work and size (``models.chat_template``), checked on
a sample conversation when the model loads.  Consecutive prompts share
their longest common token prefix with what is already in the KV cache, so
only the new tail is read.  A prompt that goes on from the last one takes
the reply sampled after it as sampled, as far as the prompt repeats its
text: a model sometimes samples a word in other tokens than its text is
read back in (' "' then '#' for ' "#'), and the next turn read the reply
again from there (also when the reply was kept shorter than sampled: a
character cut by its length, a secret taken out).
Every text is tokenized by ``models.llama_tokens`` (in pieces no
pre-tokenizer can overflow the stack on).
"""

from __future__ import annotations

import codecs
import logging
import random
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import llama_chat_format

from models.chat_template import ChatTemplate
from models.errors import ModelError, ModelFileInvalid
from models.gguf_file import chat_template, default_threads, open_llama
from models.gguf_info import read_gguf_info
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.llama_tokens import tokenize
from models.model_file import damaged_weights
from models.sampling import ConstrainedSampler, SamplerChain, grammar_for_schema
from models.streaming import StopScanner

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_LENGTH = 4096


class ContextOverflow(ModelError):
    """The prompt does not fit in the model's context window."""

    def __init__(self, prompt_tokens: int, context_length: int) -> None:
        super().__init__(
            f"The prompt has {prompt_tokens} tokens; the context holds {context_length}."
        )
        self.prompt_tokens = prompt_tokens
        self.context_length = context_length


@dataclass(frozen=True)
class _Said:
    """The last prompt's text and tokens, and the reply's tokens as sampled
    (those read into the KV cache after the prompt's) with each one's bytes."""

    prompt: str
    prompt_tokens: list[int]
    reply_tokens: list[int]
    reply_pieces: list[bytes]

    def repeated(self, prompt: str) -> tuple[list[int], str] | None:
        """The reply's tokens *prompt* repeats after this prompt (as many
        as it repeats whole characters of), and the text after them; None
        if it repeats none or does not go on from this prompt."""
        if not prompt.startswith(self.prompt):
            return None
        after = prompt[len(self.prompt) :].encode()
        at = whole = kept = 0
        for count, piece in enumerate(self.reply_pieces, 1):
            if not after.startswith(piece, at):
                break
            at += len(piece)
            if at == len(after) or after[at] & 0xC0 != 0x80:  # not inside a character
                whole, kept = at, count
        return (self.reply_tokens[:kept], after[whole:].decode()) if kept else None


class LlamaChatModel:
    """A GGUF chat model on llama.cpp.  Not thread-safe: one owner (the broker)."""

    def __init__(
        self,
        path: Path,
        *,
        context_length: int = DEFAULT_CONTEXT_LENGTH,
        threads: int | None = None,
    ) -> None:
        self.path = path
        self.context_length = context_length
        self.threads = threads or default_threads()
        _refuse_embedding_model(path)
        self._llm = open_llama(
            path, n_ctx=context_length, n_threads=self.threads, n_threads_batch=self.threads
        )
        self.name = path.stem  # what the user chose; metadata names are often cryptic
        self.trained_context = int(llama_cpp.llama_model_n_ctx_train(self._llm.model))
        """The context the model was trained for; past it, its replies garble."""
        self._vocab = llama_cpp.llama_model_get_vocab(self._llm.model)
        self._special_pattern = _special_token_pattern(self._llm, self._vocab)
        try:
            self._template = _chat_template(self._llm, path)
            if self._template is not None:
                self._template.check()
            self._check_prompt()
        except ModelError:
            self._llm.close()
            raise
        self._last_prompt_reuse = 0
        self._said: _Said | None = None

    @property
    def last_prompt_reuse(self) -> int:
        """Tokens of the last prompt taken from the KV cache instead of read again."""
        return self._last_prompt_reuse

    def fork(self) -> LlamaChatModel:
        """A second context on the same weights (read into memory once and
        shared: ``models.gguf_file``).

        Background jobs run here, so the chat's prompt cache survives them.
        """
        return LlamaChatModel(self.path, context_length=self.context_length, threads=self.threads)

    def close(self) -> None:
        self._llm.close()

    def count_tokens(self, text: str) -> int:
        return len(tokenize(self._vocab, text, add_special=False, parse_special=False))

    def prompt_tokens(self, messages: Sequence[ChatMessage]) -> list[int]:
        """The token ids of *messages* rendered with the model's chat template."""
        return self._prompt_tokens(self._rendered(messages))

    def _rendered(self, messages: Sequence[ChatMessage]) -> str:
        turns = [{"role": m.role, "content": self._defuse(m.content)} for m in messages]
        if self._template is None:
            return str(llama_chat_format.format_chatml(messages=turns).prompt)
        return self._template.render(turns)

    def _prompt_tokens(self, prompt: str, add_special: bool | None = None) -> list[int]:
        """*prompt*'s tokens, its turn markers as control tokens; with a BOS
        unless the chat template writes it itself (llama-cpp-python's
        "added_special"), or as *add_special* says."""
        return tokenize(
            self._vocab,
            prompt,
            add_special=self._template is None if add_special is None else add_special,
            parse_special=True,
            specials=self._special_pattern,
        )

    def _going_on(self, prompt: str) -> list[int] | None:
        """*prompt*'s tokens if it goes on from the last prompt and repeats
        some of its reply: theirs as they are in the cache, then the rest's.
        The rest is tokenized apart only if its tokens read back as it, or
        it opens with a turn marker (the whole prompt's tokens split there
        too): SentencePiece adds a space before a text that opens what it
        is given."""
        said, specials = self._said, self._special_pattern
        if said is None or specials is None or (repeated := said.repeated(prompt)) is None:
            return None
        kept, rest = repeated
        tokens = self._prompt_tokens(rest, False)
        if not specials.match(rest) and self._llm.detokenize(tokens, special=True) != rest.encode():
            return None
        return [*said.prompt_tokens, *kept, *tokens]

    def _check_prompt(self) -> None:
        """``ModelFileInvalid`` unless a one-message conversation makes tokens
        and its first one scores from numbers: damaged weights load
        (llama.cpp reads no checksum), and a role switched to them would
        have let go of the model that worked."""
        tokens = self.prompt_tokens([ChatMessage("user", "Hello.")])
        if not tokens:
            raise _no_tokens(self.path)
        self._llm.eval(tokens[:1])
        self._check_numbers()
        self._llm.reset()  # type: ignore[no-untyped-call]  # the next prompt reuses nothing of it

    def _defuse(self, content: str) -> str:
        """*content* with the texts of the model's special tokens broken up.

        The rendered prompt is tokenized with special tokens enabled (the
        template's own markers must become control tokens), so a message,
        memory or document containing e.g. ``<|im_end|>`` would otherwise end
        its turn and let text pose as the system.  A word joiner after the
        first character keeps the text readable but no longer a token.  A
        text broken up may still hold a shorter special text (``<|im|>``
        around ``im``), hence the passes until none is left.
        """
        if self._special_pattern is None:
            return content
        while self._special_pattern.search(content):
            content = self._special_pattern.sub(_break_up, content)
        return content

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        stop_requested = should_stop or (lambda: False)
        read = self._read(messages, stop_requested)
        if read is None:
            yield Chunk("", "cancelled")
            return
        prompt, tokens = read
        budget = min(options.max_tokens, self.context_length - len(tokens))
        sampler = self._sampler(options)
        sampled: list[int] = []
        try:
            yield from self._generate(sampler, budget, options, stop_requested, sampled)
        finally:
            sampler.close()
            self._said = _said(self._llm, prompt, tokens, sampled)

    def read(self, messages: Sequence[ChatMessage], should_stop: ShouldStop) -> bool:
        """Read *messages*' prompt into the cache as a reply to them would
        begin, and answer nothing: a next prompt that goes on from them
        reads only what it adds (after a summary changed the conversation's
        prompt, before the user's next message).  False if stopped midway
        (what was read stays in the cache)."""
        read = self._read(messages, should_stop)
        if read is not None:
            self._said = _said(self._llm, *read, [])
        return read is not None

    def _read(
        self, messages: Sequence[ChatMessage], should_stop: ShouldStop
    ) -> tuple[str, list[int]] | None:
        """The prompt of *messages* and its tokens, read into the cache; None
        if stopped midway."""
        prompt = self._rendered(messages)
        tokens = self._going_on(prompt) or self._prompt_tokens(prompt)
        self._said = None  # until the reply is sampled, the cache holds no reply
        if not tokens:  # llama.cpp would sample from no logits at all and abort the process
            raise _no_tokens(self.path)
        if len(tokens) >= self.context_length:
            raise ContextOverflow(len(tokens), self.context_length)
        return (prompt, tokens) if self._read_prompt(tokens, should_stop) else None

    def _sampler(self, options: GenerationOptions) -> SamplerChain | ConstrainedSampler:
        seed = options.seed if options.seed is not None else random.getrandbits(31)
        n_vocab = self._llm.n_vocab()
        if options.json_schema is None:
            return SamplerChain(options, n_vocab, seed)
        grammar = grammar_for_schema(options.json_schema)
        lazy = bool(options.json_schema_after)
        return ConstrainedSampler(options, self._vocab, n_vocab, seed, grammar, lazy=lazy)

    def _read_prompt(self, tokens: list[int], should_stop: ShouldStop) -> bool:
        """Evaluate *tokens*, reusing the cached prefix; False if stopped midway."""
        llm = self._llm
        reused = _common_prefix(llm.input_ids[: llm.n_tokens], tokens)
        reused = min(reused, len(tokens) - 1)  # re-read the last token for fresh logits
        if reused > 0 and not llm._ctx.kv_cache_seq_rm(-1, reused, -1):
            reused = 0  # e.g. recurrent models cannot drop a cache tail
        if reused == 0:
            llm.reset()  # type: ignore[no-untyped-call]  # llama-cpp-python leaves it unannotated
        llm.n_tokens = reused
        self._last_prompt_reuse = reused
        with self._abortable(should_stop):
            for start in range(reused, len(tokens), llm.n_batch):
                if should_stop():
                    return False
                try:
                    llm.eval(tokens[start : start + llm.n_batch])
                except RuntimeError:
                    # llama_decode returned "aborted": llama.cpp dropped the
                    # unfinished batch from the cache and n_tokens never counted it.
                    if should_stop():
                        return False
                    raise
        log.debug("prompt: %d tokens, %d reused from cache", len(tokens), reused)
        return True

    @contextmanager
    def _abortable(self, should_stop: ShouldStop) -> Iterator[None]:
        """Let *should_stop* abort a prompt batch midway, not only between batches.

        A 512-token batch takes seconds on a small CPU, and Stop must work
        while the model reads.  llama.cpp polls the callback after every graph
        node, so it is installed only while reading: during generation it
        would cost several percent of speed, and should_stop is polled per
        token there anyway.
        """
        ctx = self._llm._ctx.ctx
        callback = llama_cpp.ggml_abort_callback(lambda _data: bool(should_stop()))
        llama_cpp.llama_set_abort_callback(ctx, callback, None)
        try:
            yield
        finally:
            llama_cpp.llama_set_abort_callback(ctx, llama_cpp.ggml_abort_callback(), None)

    def _generate(
        self,
        sampler: SamplerChain | ConstrainedSampler,
        budget: int,
        options: GenerationOptions,
        should_stop: ShouldStop,
        sampled: list[int],
    ) -> Iterator[Chunk]:
        """The reply, streamed; each token read into the cache after the
        prompt is added to *sampled* (the last one, an end or a stop, is not)."""
        llm = self._llm
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = StopScanner(options.stop)
        trigger = StopScanner([options.json_schema_after or ""])
        for _ in range(budget):
            if should_stop():
                yield Chunk(text.flush(), "cancelled")
                return
            self._check_numbers()
            token = sampler.sample(llm._ctx.ctx)
            if llama_cpp.llama_vocab_is_eog(self._vocab, token):
                yield Chunk(text.flush() + decoder.decode(b"", final=True), "stop")
                return
            piece = decoder.decode(llm.detokenize([token]))
            visible, stopped = text.feed(piece)
            if isinstance(sampler, ConstrainedSampler) and not sampler.active:
                _, triggered = trigger.feed(piece)
                if triggered and not sampler.activate(self._tokens(trigger.rest)):
                    stopped = True  # what follows the trigger can never fit the schema
            if stopped:
                yield Chunk(visible, "stop")
                return
            if visible:
                yield Chunk(visible)
            llm.eval([token])
            sampled.append(token)
        yield Chunk(text.flush(), "length")

    def _check_numbers(self) -> None:
        """Refuse to sample from scores that are not numbers: llama.cpp reads
        no checksum, so damaged weights load and give NaN; a token drawn from
        them is one the answer's grammar refuses, and llama.cpp aborts the
        process on it.  Each step: a damaged row of the embeddings shows only
        when its token comes up."""
        scores = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        if not np.isfinite(np.ctypeslib.as_array(scores, shape=(self._llm.n_vocab(),))).all():
            raise damaged_weights(self.path)

    def _tokens(self, text: str) -> list[int]:
        return tokenize(self._vocab, text, add_special=False, parse_special=False)


def _said(llm: llama_cpp.Llama, prompt: str, tokens: list[int], sampled: list[int]) -> _Said:
    """What the cache holds after *prompt* and its reply."""
    return _Said(prompt, tokens, list(sampled), [llm.detokenize([token]) for token in sampled])


def _refuse_embedding_model(path: Path) -> None:
    """Raise ``ModelFileInvalid`` if *path*'s header says it holds an
    embedding model: llama.cpp loads one as a chat model without a word, and
    the first reply then fails deep inside llama-cpp-python (an encoder
    keeps no KV cache: "Memory is not initialized")."""
    info = read_gguf_info(path)
    if info.is_embedding:
        raise ModelFileInvalid(
            f"{path.name} is an embedding model, not a chat model: it turns text into "
            f"vectors (for searching memories) and cannot write replies ({info.architecture}).",
            "Choose a chat model for chatting (the embedded one, or a .gguf with a chat "
            "template); an embedding model can serve only as the memory model.",
        )


def _no_tokens(path: Path) -> ModelFileInvalid:
    return ModelFileInvalid(
        f"{path.name} turns a conversation into no tokens at all "
        "(its chat template or its vocabulary is empty).",
        "Download the model again or choose another .gguf file.",
    )


# What llama.cpp's tokenizer matches as one token wherever its text appears in
# a prompt (llama-vocab's special-token cache): not only CONTROL tokens but
# USER_DEFINED ones (some conversions mark turn markers and tool-call tags
# so) and UNKNOWN ones; USER_DEFINED texts even with special tokens off.
_PARSED_AS_SPECIAL = (
    llama_cpp.LLAMA_TOKEN_ATTR_CONTROL
    | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
    | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
)


def _special_token_pattern(llm: llama_cpp.Llama, vocab: Any) -> re.Pattern[str] | None:
    """A pattern matching the text of every token llama.cpp parses as
    special (longest first); None if the vocabulary has none.

    A USER_DEFINED text of whitespace alone is left as it is: some
    vocabularies (Gemma's) keep runs of spaces and newlines as such tokens,
    which mean just that text and never mark a turn, and breaking them up
    would put a joiner in every paragraph break.
    """
    texts = set()
    for token in range(llm.n_vocab()):
        attr = llama_cpp.llama_vocab_get_attr(vocab, token)
        if not attr & _PARSED_AS_SPECIAL:
            continue
        text = llm._model.token_get_text(token)
        plain = attr & llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED and not text.strip()
        # A text holding the joiner itself could be re-formed by breaking up
        # another, and breaking it up again would never end.
        if len(text) > 1 and not plain and "\u2060" not in text:
            texts.add(text)
    if not texts:
        return None
    return re.compile("|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)))


def _break_up(match: re.Match[str]) -> str:
    text = match.group()
    return f"{text[0]}\u2060{text[1:]}"


def _common_prefix(cached: np.ndarray[Any, Any], tokens: list[int]) -> int:
    size = min(len(cached), len(tokens))
    if size == 0:
        return 0
    differs = np.flatnonzero(cached[:size] != np.asarray(tokens[:size], dtype=cached.dtype))
    return int(differs[0]) if differs.size else size


def _chat_template(llm: llama_cpp.Llama, path: Path) -> ChatTemplate | None:
    """The GGUF's own chat template, or None (ChatML) if it has none."""
    template = chat_template(llm.model, path.name)
    if template is None:
        log.warning("model has no chat template; using ChatML")
    return template
