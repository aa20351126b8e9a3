"""Round 25: a chat template (metadata of a model file) that makes one call
build a huge text is stopped before the text is built, not after.

Each template below would make some 300 million characters in a single
call: a short text repeated at every line, tab, character or link of
another, a JSON indent, a format with many wide fields, paragraphs of
lorem ipsum.  Checking the size of the result came too late: the memory was
taken (gigabytes, for a slightly larger number) and the time spent before
any check ran.
"""

from __future__ import annotations

import tracemalloc

import pytest

from models.chat_template import ChatTemplate, ChatTemplateFailed

TURNS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi."}]
MOST_MEMORY = 64 << 20
"""Far below what any template here builds unchecked (about 300 MB)."""
WIDENING = {
    "an indent by a number of spaces": "{{ ('a\\n' * 60000)|indent(5000) }}",
    "an indent given by name": "{{ ('a\\n' * 60000)|indent(width='x' * 5000) }}",
    "tabs expanded wide": "{{ ('\\t' * 60000).expandtabs(5000) }}",
    "a letter translated to a long text": "{{ ('a' * 60000).translate({97: 'x' * 5000}) }}",
    "a long text between wrapped words": "{{ ('a ' * 60000)|wordwrap(1, wrapstring='x' * 5000) }}",
    "a long link target": "{{ ('a.com ' * 60000)|urlize(target='x' * 5000) }}",
    "JSON indented wide": "{{ range(60000)|list|tojson(indent=5000) }}",
    "JSON with a long separator": "{{ range(60000)|list|tojson(separators=('x' * 5000, ':')) }}",
    "many wide fields in one str.format": "{{ ('{:9999}' * 30000).format(*range(30000)) }}",
    "many wide fields in one format filter": "{{ ('%9999d' * 30000)|format(*range(30000)) }}",
    "widths passed to str.format": "{{ ('{0:{1}}' * 300).format('x', 999999) }}",
    "widths passed to a % format": "{{ ('%*d' * 300) % ((999999, 1) * 300) }}",
    "widths passed to the format filter": "{{ ('%*d' * 300)|format(*((999999, 1) * 300)) }}",
    "one long text in every field of str.format": "{{ ('{0}' * 3000).format('x' * 100000) }}",
    "one long text in every field of a % format": "{{ ('%(a)s' * 3000) % {'a': 'x' * 100000} }}",
    "one long text in every field of format_map": "{{ ('{a}' * 3000)"
    ".format_map({'a': 'x' * 100000}) }}",
    "a join separator given by name": "{{ range(60000)|list|join(d='x' * 5000) }}",
    "a separator between the items of a map": "{{ ('x' * 100000)"
    ".join(range(3000)|map('string')) }}",
    "a join filter's separator between the items of a map": "{{ range(3000)|map('string')"
    "|join('x' * 100000) }}",
    "a replacement given by name": "{{ ('x' * 60000)|replace(old='x', new='y' * 5000) }}",
    "paragraphs of lorem ipsum": "{{ lipsum(30000) }}",
}


@pytest.mark.parametrize("source", WIDENING.values(), ids=WIDENING.keys())
@pytest.mark.usefixtures("still_clock")
def test_a_call_that_would_build_a_huge_text_is_stopped_before_building_it(source: str) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")
    tracemalloc.start()
    try:
        with pytest.raises(ChatTemplateFailed, match=r"The chat template in m\.gguf"):
            template.render(TURNS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MOST_MEMORY


LISTED = {
    "a list of one long text times 3000": "{% set l = ['y' * 100000] * 3000 %}{{ l|join }}",
    "a list of a long text doubled": "{% set ns = namespace(l=['y' * 100000]) %}"
    "{% for i in range(12) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l }}",
    "a list of one large number many times": "{% set ns = namespace(n=3) %}"
    "{% for i in range(11) %}{% set ns.n = ns.n * ns.n %}{% endfor %}"
    "{{ ([ns.n] * 300000)|join(',') }}",
    "a list of one namespace holding a long text": "{% set ns = namespace(s='x' * 100000) %}"
    "{{ ([ns] * 3000)|join }}",
    "a list of one dict's items": "{% set d = {'a': 'x' * 100000} %}"
    "{{ ([d.items()] * 3000)|join }}",
    "a list of one dict's values": "{% set d = {'a': 'x' * 100000} %}"
    "{{ ([d.values()] * 3000)|join }}",
    "a batch filled with a long text": "{{ [1]|batch(3000, 'y' * 100000)|list|string }}",
}


@pytest.mark.parametrize("source", LISTED.values(), ids=LISTED.keys())
def test_a_list_holding_one_long_text_many_times_is_as_long_as_its_text(source: str) -> None:
    # The list's length is within the bound; the text it becomes is some
    # 300 million characters (a number of 4,000 bits is 1,000 digits).
    test_a_call_that_would_build_a_huge_text_is_stopped_before_building_it(source)


REAL_USES = {
    "an indent": ("{{ messages[1].content|indent(4, first=true) }}", "    Hi."),
    "tabs expanded": ("{{ ('\\t' ~ messages[1].content).expandtabs(2) }}", "  Hi."),
    "JSON indented": ("{{ {'a': messages[1].content}|tojson(indent=2) }}", '{\n  "a": "Hi."\n}'),
    "a format": ("{{ '{:>5}|%-4s'.format(messages[1].content)|format('x') }}", "  Hi.|x   "),
    "a replacement given by name": ("{{ messages[1].content|replace(old='H', new='h') }}", "hi."),
}


@pytest.mark.parametrize(("source", "rendered"), REAL_USES.values(), ids=REAL_USES.keys())
def test_the_same_calls_with_the_sizes_templates_use_still_render(
    source: str, rendered: str
) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")

    assert template.render(TURNS) == rendered


def test_a_long_message_in_a_format_of_a_few_fields_still_renders() -> None:
    # A field is as wide as the longest value: a long message fills one field
    # of a few, within the bound (four times the conversation).
    template = ChatTemplate(
        "{% for m in messages %}{{ '<|{}|>{}\\n{}'.format(m.role, m.role, m.content) }}"
        "{% endfor %}",
        file_name="m.gguf",
        eos_token="",
        bos_token="",
    )
    document = "word " * 200_000

    assert template.render([{"role": "user", "content": document}]) == f"<|user|>user\n{document}"
