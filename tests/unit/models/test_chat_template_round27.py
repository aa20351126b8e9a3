"""Round 27: a chat template that case-maps a text it makes up to three
times longer (``ß`` upper-cased is ``SS``, ``ﬃ`` is ``FFI``) is stopped
before the text is built, and one that strips a text of a million tags
is stopped before the strip, not seconds after it.

The case filters and methods were checked after they ran (the memory
taken by then); ``striptags`` takes each tag or entity in a step of
Python that no budget sees, so a text of the render's size (four times
the conversation) took seconds past the deadline.
"""

from __future__ import annotations

import time
import tracemalloc

import pytest

from models.chat_template import MAX_SECONDS, ChatTemplate, ChatTemplateFailed

TURNS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi."}]
MOST_MEMORY = 6 << 20
"""Above each template's own text (a million characters, 2 MB), below what
it builds unchecked (three times that, and more while it is built)."""
CASE_MAPPED = {
    "ligatures upper-cased": "{{ ('\ufb03' * 1000000)|upper }}",
    "ligatures upper-cased by the method": "{{ ('\ufb03' * 1000000).upper() }}",
    "accented iotas title-cased": "{{ ('\u0390' * 1000000)|title }}",
    "accented iotas capitalized": "{{ ('x' ~ '\u0390' * 1000000)|capitalize }}",
    "dotted capital Is lower-cased": "{{ ('\u0130' * 1000000)|lower }}",
    "accented iotas case-swapped": "{{ ('\u0390' * 1000000).swapcase() }}",
    "sharp esses case-folded": "{{ ('\u00df' * 1000000).casefold() }}",
}


@pytest.mark.parametrize("source", CASE_MAPPED.values(), ids=CASE_MAPPED.keys())
def test_a_text_case_mapped_past_the_bound_is_stopped_before_it_is_built(source: str) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")
    tracemalloc.start()
    try:
        with pytest.raises(ChatTemplateFailed, match="makes too much text"):
            template.render(TURNS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak < MOST_MEMORY


def test_a_text_of_a_million_entities_is_not_stripped_past_the_deadline() -> None:
    # A conversation of a million characters lets the render make texts
    # of four million: each "&a" an entity html.unescape looks up.
    template = ChatTemplate(
        "{{ (messages[0].content * 4)|striptags }}", file_name="m.gguf", eos_token="", bos_token=""
    )
    conversation = [{"role": "user", "content": "&a" * 500_000}]
    started = time.monotonic()

    with pytest.raises(ChatTemplateFailed, match="takes too long"):
        template.render(conversation)

    assert time.monotonic() - started < MAX_SECONDS / 2


REAL_USES = {
    "a message upper-cased": ("{{ messages[1].content|upper }}", "STRASSE FILE \u0130"),
    "a message title-cased": ("{{ messages[1].content|title }}", "Stra\u00dfe FIle \u0130"),
    "a message lower-cased by the method": (
        "{{ messages[1].content.lower() }}",
        "stra\u00dfe \ufb01le i\u0307",
    ),
    "a message's tags stripped": (
        "{{ ('<b>' ~ messages[1].content ~ '</b> &amp; more')|striptags }}",
        "Stra\u00dfe \ufb01le \u0130 & more",
    ),
}


@pytest.mark.parametrize(("source", "rendered"), REAL_USES.values(), ids=REAL_USES.keys())
def test_the_same_filters_on_a_conversation_still_render(source: str, rendered: str) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")
    message = {"role": "user", "content": "Stra\u00dfe \ufb01le \u0130"}

    assert template.render([TURNS[0], message]) == rendered
