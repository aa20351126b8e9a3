"""Round 26: a chat template (metadata of a model file) that escapes, quotes,
pretty-prints or writes a text many times larger than it is given is
stopped before the text is built, within the render's time budget.

Round 25 bounded the calls that write one text at many places of another.
These write each character longer (HTML escaping makes ``"`` five
characters, URL quoting an emoji twelve, JSON with ``ensure_ascii`` twelve)
or write a nested value again at each level (``pprint``), or write a list
that holds one list twice, forty times over (2**40 items, never finished):
the size was checked after the text was built, or never.
"""

from __future__ import annotations

import tracemalloc

import pytest

from models.chat_template import ChatTemplate, ChatTemplateFailed
from models.errors import ModelFileInvalid

TURNS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi."}]
MOST_MEMORY = 6 << 20
"""Above each template's own text (at most a million emoji, 4 MB), below what
it builds unchecked (5 to 12 times that text)."""
DOUBLED = (
    "{% set ns = namespace(l=['x']) %}{% for i in range(40) %}"
    "{% set ns.l = [ns.l, ns.l] %}{% endfor %}"
)
GROWING = {
    "quotes escaped for HTML": "{{ ('\"' * 1000000)|escape }}",
    "quotes escaped with e": "{{ ('&' * 1000000)|e }}",
    "quotes force-escaped": '{{ ("\'" * 1000000)|forceescape }}',
    "an attribute's value escaped": "{{ {'a': '<' * 1000000}|xmlattr }}",
    "a text made links of, escaped": "{{ ('<' * 1000000)|urlize }}",
    "emoji quoted for a URL": "{{ ('\U0001f600' * 1000000)|urlencode }}",
    "emoji quoted in a query": "{{ {'a': '\U0001f600' * 1000000}|urlencode }}",
    "emoji as ASCII JSON": "{{ ('\U0001f600' * 1000000)|tojson(ensure_ascii=true) }}",
    "control characters as JSON": "{{ ('\\x01' * 1000000)|tojson }}",
    "a nested list pretty-printed": "{% set ns = namespace(l=[]) %}{% for i in range(200) %}"
    "{% set ns.l = [ns.l, ns.l] if i < 12 else [ns.l] %}{% endfor %}{{ ns.l|pprint }}",
    "a list doubled forty times pretty-printed": DOUBLED + "{{ ns.l|pprint }}",
    "a list doubled forty times written": DOUBLED + "{{ ns.l }}",
    "a list doubled forty times as JSON": DOUBLED + "{{ ns.l|tojson }}",
}


@pytest.mark.parametrize("source", GROWING.values(), ids=GROWING.keys())
@pytest.mark.usefixtures("still_clock")
def test_a_text_that_would_grow_past_the_bound_is_stopped_before_it_is_built(
    source: str,
) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")
    tracemalloc.start()
    try:
        with pytest.raises(ChatTemplateFailed, match=r"The chat template in m\.gguf"):
            template.render(TURNS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MOST_MEMORY


MESSAGE = "Hi & <bye> \"x'\u00e9\U0001f600\n"
REAL_USES = {
    "a message escaped": (
        "{{ messages[1].content|e }}",
        "Hi &amp; &lt;bye&gt; &#34;x&#39;\u00e9\U0001f600\n",
    ),
    "a message quoted for a URL": (
        "{{ messages[1].content|urlencode }}",
        "Hi%20%26%20%3Cbye%3E%20%22x%27%C3%A9%F0%9F%98%80%0A",
    ),
    "a message as ASCII JSON": (
        "{{ messages[1].content|tojson(ensure_ascii=true) }}",
        '"Hi & <bye> \\"x\'\\u00e9\\ud83d\\ude00\\n"',
    ),
    "the roles pretty-printed": (
        "{{ messages|map(attribute='role')|list|pprint }}",
        "['system', 'user']",
    ),
    "a list held twice, written": (
        "{% set l = [messages[0].role] %}{{ [l, l] }}",
        "[['system'], ['system']]",
    ),
}


@pytest.mark.parametrize(("source", "rendered"), REAL_USES.values(), ids=REAL_USES.keys())
def test_the_same_filters_on_a_conversation_still_render(source: str, rendered: str) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")

    assert template.render([TURNS[0], {"role": "user", "content": MESSAGE}]) == rendered


def test_a_long_message_escaped_within_the_bound_still_renders() -> None:
    # Four times the conversation is the bound: a long message of plain
    # words escapes to its own length and is kept whole.
    template = ChatTemplate(
        "{% for m in messages %}{{ m.content|e }}|{{ m.content|tojson }}{% endfor %}",
        file_name="m.gguf",
        eos_token="",
        bos_token="",
    )
    document = "word & " * 100_000

    rendered = template.render([{"role": "user", "content": document}])

    assert rendered.startswith(document.replace("&", "&amp;") + "|")


def test_a_template_that_truncates_shorter_than_its_end_fails_typed() -> None:
    # jinja2's truncate asserts: a message cut to one character with "..."
    # after it raised AssertionError out of the render (a crash, not the file's fault).
    template = ChatTemplate(
        "{% for m in messages %}{{ m.content|truncate(1) }}{% endfor %}",
        file_name="m.gguf",
        eos_token="",
        bos_token="",
    )

    with pytest.raises(ChatTemplateFailed, match="fails while formatting the conversation"):
        template.render(TURNS)
    with pytest.raises(ModelFileInvalid, match=r"m\.gguf cannot format even a one-message"):
        template.check()
