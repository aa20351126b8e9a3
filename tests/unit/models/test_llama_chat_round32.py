"""Round 32: a reply sampled in other tokens than its text reads back in.

A model sometimes samples a word in pieces its tokenizer would not cut it
into (' "' then '#' for ' "#'): the KV cache holds the pieces, the next
prompt (the reply kept as text) the whole word, and the next turn read the
reply again from there.  Now a prompt that goes on from the last one and
its reply takes the reply's tokens as sampled.  A reply forced by a JSON
schema to a word the model would never write is sampled in such pieces
every time (36 of 56 cached tokens reused before, all 56 now).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel

ASKED = [ChatMessage("user", "Answer in JSON.")]
FORCED = GenerationOptions(
    temperature=0.0,
    max_tokens=32,
    json_schema={
        "type": "object",
        "properties": {"word": {"enum": ["qzxvjjkw ptrrr"]}},
        "required": ["word"],
        "additionalProperties": False,
    },
)
ONE = GenerationOptions(temperature=0.0, max_tokens=1)


def _replied(model: LlamaChatModel) -> tuple[str, int]:
    """The forced reply, and how many tokens the cache holds after it."""
    reply = "".join(chunk.text for chunk in model.stream(ASKED, FORCED))
    return reply, model._llm.n_tokens


def _common(model: LlamaChatModel, tokens: list[int]) -> int:
    """How many of *tokens* the model's cache holds, from the start."""
    cached = list(model._llm.input_ids[: model._llm.n_tokens])
    return next(
        (n for n, pair in enumerate(zip(cached, tokens, strict=False)) if pair[0] != pair[1]),
        len(cached),
    )


@pytest.mark.model
def test_a_reply_sampled_in_other_tokens_than_its_text_is_not_read_again(
    fresh_smollm2: Callable[[], LlamaChatModel],
) -> None:
    model = fresh_smollm2()
    reply, cached = _replied(model)
    again = [*ASKED, ChatMessage("assistant", reply), ChatMessage("user", "Again.")]
    # Read back from its text, the reply parts from its tokens as sampled.
    assert _common(model, model.prompt_tokens(again)) < cached

    list(model.stream(again, ONE))

    assert model.last_prompt_reuse == cached
    # The same text, in the model's own pieces where it wrote them (and
    # after it, the token it sampled).
    read = model._llm.detokenize(list(model._llm.input_ids[: model._llm.n_tokens]), special=True)
    assert read.startswith(model._llm.detokenize(model.prompt_tokens(again), special=True))


@pytest.mark.model
def test_a_reply_kept_otherwise_than_sampled_is_read_from_its_text(
    fresh_smollm2: Callable[[], LlamaChatModel],
) -> None:
    """A reply not kept as the model wrote it (a secret taken out, a stop
    cutting it) is read as its text says from where it differs: its sampled
    tokens would say something else.  Before that, they are the cache's."""
    model = fresh_smollm2()
    reply, cached = _replied(model)
    kept = reply.replace("qzxvjjkw", "[password]")
    again = [*ASKED, ChatMessage("assistant", kept), ChatMessage("user", "Again.")]
    before = len(model.prompt_tokens(ASKED)) + 7  # '{ "word": "', as sampled

    list(model.stream(again, ONE))

    assert model.last_prompt_reuse == before < cached
    read = model._llm.detokenize(list(model._llm.input_ids[: model._llm.n_tokens]), special=True)
    assert read.startswith(model._llm.detokenize(model.prompt_tokens(again), special=True))
