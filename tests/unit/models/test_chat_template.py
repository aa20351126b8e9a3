"""Tests of the bounded chat-template renderer: a hostile template (it is
metadata of a model file) is stopped, typed and quickly, whatever it tries."""

from __future__ import annotations

import pytest

from models.chat_template import ChatTemplate, ChatTemplateFailed

TURNS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi."}]
COSTLY = {
    "a huge width": "{{ 'x'|center(100000000) }}",
    "a replace that multiplies": "{{ ('x' * 1000000)|replace('x', 'yyyyyyyyyyyy') }}",
    "the same as a method": "{{ ('x' * 1000000).replace('x', 'yyyyyyyyyyyy') }}",
    "a wide % format": "{{ '%0999999999d' % 1 }}",
    "a wide str.format": "{{ '{:>999999999}'.format(1) }}",
    "a wide format filter": "{{ '%0999999999d'|format(1) }}",
    "a number squared over and over": "{% set ns = namespace(n=2) %}{% for i in range(100) %}"
    "{% set ns.n = ns.n * ns.n %}{% endfor %}{{ ns.n }}",
    "output captured in a block": "{% set big = 'x' * 1000000 %}{% set ns = namespace() %}"
    "{% set ns.s %}{% for i in range(100000) %}{{ big }}{% endfor %}{% endset %}{{ ns.s }}",
    "template text in a loop": "{% for i in range(99999) %}" + "y" * 1000 + "{% endfor %}",
    "a text indenting every line": "{{ ('a\\n' * 100000)|indent('          ' * 100) }}",
    "a list doubled over and over": "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}"
    "{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}",
    "a text doubled with ~": "{% set ns = namespace(s='x') %}{% for i in range(60) %}"
    "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
    "a long separator": "{{ range(90000)|list|join('x' * 1000) }}",
    "a long separator as a method": "{{ ('x' * 1000).join(range(90000)|map('string')|list) }}",
    "a width from a % tuple": "{{ '%*d' % (999999999, 1) }}",
    "loops within loops": "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}"
    "{% endfor %}",
    "a recursive loop": "{% for i in [1] recursive %}{{ loop(range(99999)) }}{% endfor %}",
    "a macro calling itself": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
}


@pytest.mark.parametrize("source", COSTLY.values(), ids=COSTLY.keys())
@pytest.mark.usefixtures("still_clock")
def test_a_costly_template_is_stopped_quickly_and_typed(source: str) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")

    with pytest.raises(ChatTemplateFailed, match=r"The chat template in m\.gguf"):
        template.render(TURNS)


def test_a_conversation_too_long_for_the_budget_of_text_is_not_the_templates_fault() -> None:
    # The size bound grows with the conversation: a long pasted document renders.
    template = ChatTemplate(
        "{% for m in messages %}{{ m.content }}{% endfor %}",
        file_name="m.gguf",
        eos_token="",
        bos_token="",
    )
    document = "word " * 1_000_000

    assert template.render([{"role": "user", "content": document}]) == document
