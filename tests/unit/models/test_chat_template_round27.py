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

import tracemalloc
from collections import Counter

import pytest

from models.chat_template import ChatTemplate, ChatTemplateFailed

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


@pytest.mark.usefixtures("still_clock")
def test_a_text_of_a_million_entities_is_not_stripped_past_the_deadline(
    filters_run: Counter[str],
) -> None:
    # A conversation of a million characters lets the render make texts
    # of four million: each "&a" an entity html.unescape looks up.
    template = ChatTemplate(
        "{{ (messages[0].content * 4)|striptags }}", file_name="m.gguf", eos_token="", bos_token=""
    )
    conversation = [{"role": "user", "content": "&a" * 500_000}]
    filters_run.clear()

    with pytest.raises(ChatTemplateFailed, match="takes too long"):
        template.render(conversation)

    assert not filters_run


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


LONG = [{"role": "user", "content": "ab " * 333_334}]
"""A conversation of a million characters: the render may make texts of four."""
ITEM_BY_ITEM = {
    "sorted": "{{ (messages[0].content * 4)|sort|length }}",
    "wrapped a character a line": "{{ (messages[0].content * 4)|wordwrap(1) }}",
    "batched": "{{ (messages[0].content * 4)|batch(3)|list|length }}",
    "rejected item by item": "{{ (messages[0].content * 4)|reject('none')|list|length }}",
    "made links of": "{{ (messages[0].content * 4)|urlize }}",
    "grouped": "{{ (messages[0].content * 4)|groupby('real')|length }}",
    "words sorted": "{{ (messages[0].content * 4).split()|sort|join }}",
}


@pytest.mark.parametrize("source", ITEM_BY_ITEM.values(), ids=ITEM_BY_ITEM.keys())
@pytest.mark.usefixtures("still_clock")
def test_a_filter_going_through_each_item_of_a_long_text_is_stopped_before_it_runs(
    source: str, filters_run: Counter[str]
) -> None:
    # One call did work no step saw: a sort of four million characters
    # took seconds, wordwrap(1) a minute, past the render's deadline.
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")
    filters_run.clear()  # making the template renders a one-message sample

    with pytest.raises(ChatTemplateFailed, match="takes too long"):
        template.render(LONG)

    assert not filters_run  # the filter was refused before it ran, not stopped after


def test_the_same_filters_over_a_long_conversation_of_messages_still_render() -> None:
    template = ChatTemplate(
        "{{ messages|selectattr('role', 'equalto', 'user')|map(attribute='content')"
        "|list|length }} {{ messages|map(attribute='role')|unique|sort|join(',') }}"
        " {{ (messages|last).content|wordwrap(79)|wordcount }}",
        file_name="m.gguf",
        eos_token="",
        bos_token="",
    )
    said = "A sentence of a message, written as people write them. " * 20
    conversation = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": said} for n in range(2_000)
    ]

    assert template.render(conversation) == "1000 assistant,user 200"
