"""Chat messages rendered from Markdown to the HTML Qt shows: escaping, code
highlighting, links, odd Unicode and the display size cap."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication

from desktop.ui.chat.markdown import (
    MAX_HIGHLIGHTED_CHARS,
    MAX_RENDERED_CHARS,
    render_markdown,
    render_plain,
)

PYTHON_FENCE = '```python\nprint("hi")  # greet\nx = 1 < 2\n```\n'
COLOUR = re.compile(r'style="color:\s*(#[0-9A-Fa-f]{3,6})')
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.DOTALL)


def text_of(fragment: str) -> str:
    """What a reader sees: the markup removed and the entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def code_blocks(rendered: str) -> list[str]:
    return PRE.findall(rendered)


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("<script>alert(1)</script>", "<script"),
        ("some <b>bold</b> claim", "<b>"),
        ('<img src="file:///etc/passwd">', "<img"),
        ("<a href='https://evil.example'>x</a>", "<a "),
    ],
)
def test_raw_html_is_shown_as_text(text: str, raw: str) -> None:
    rendered = render_markdown(text)

    assert raw not in rendered
    assert text in text_of(rendered)


def test_python_fence_is_coloured_and_keeps_its_code() -> None:
    rendered = render_markdown(PYTHON_FENCE)

    [block] = code_blocks(rendered)
    assert COLOUR.search(block)
    assert text_of(block).strip("\n") == 'print("hi")  # greet\nx = 1 < 2'
    assert "<br" not in block
    assert ">python</p>" in rendered.split("<pre")[0]


def test_unknown_language_is_plain_text() -> None:
    rendered = render_markdown("```no-such-language\nfoo < bar\n```")

    [block] = code_blocks(rendered)
    assert "<span" not in block
    assert text_of(block).strip("\n") == "foo < bar"
    assert "no-such-language" in rendered


def test_fence_without_language_and_indented_code_are_code_blocks() -> None:
    rendered = render_markdown("```\na < b\n```\n\ntext\n\n    indented = True\n")

    blocks = [text_of(block).strip("\n") for block in code_blocks(rendered)]
    assert blocks == ["a < b", "indented = True"]


def test_inline_code_is_monospace_and_escaped() -> None:
    rendered = render_markdown("call `f(a<b)` now")

    match = re.search(r'<code style="([^"]*)">(.*?)</code>', rendered)
    assert match is not None
    assert "monospace" in match[1]
    assert "background-color" in match[1]
    assert match[2] == "f(a&lt;b)"


def test_single_newline_is_a_line_break() -> None:
    rendered = render_markdown("first line\nsecond line")

    assert re.search(r"first line<br\s*/?>\s*second line", rendered)


def test_unterminated_fence_renders_as_code_while_streaming() -> None:
    rendered = render_markdown("Here you go:\n\n```python\nprint(1")

    [block] = code_blocks(rendered)
    assert text_of(block).strip("\n") == "print(1"
    assert COLOUR.search(block)
    assert "```" not in rendered


def test_table_renders_as_a_table() -> None:
    rendered = render_markdown("| name | age |\n|------|----:|\n| Ada | 36 |\n")

    assert "<table" in rendered
    assert "<th>name</th>" in rendered
    assert "<td>Ada</td>" in rendered
    assert 'style="text-align:right">36</td>' in rendered


def test_strikethrough() -> None:
    assert "<s>gone</s>" in render_markdown("~~gone~~")


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "ftp://example.org/file",
        "relative/page.html",
    ],
)
def test_odd_link_schemes_are_not_linked(url: str) -> None:
    for text in (f"[click]({url})", f"<{url}>", f"[click][ref]\n\n[ref]: {url}"):
        rendered = render_markdown(text)

        assert "<a " not in rendered, text


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/a?b=1&c=2",
        "http://example.org",
        "mailto:ada@example.org",
        "file:///tmp/x",
    ],
)
def test_ordinary_links_are_linked(url: str) -> None:
    rendered = render_markdown(f"[here]({url})")

    match = re.search(r'<a href="([^"]*)"[^>]*>here</a>', rendered)
    assert match is not None
    assert html.unescape(match[1]) == url


def test_image_becomes_a_link_not_an_image() -> None:
    rendered = render_markdown("![a cat](https://example.org/cat.png)")

    assert "<img" not in rendered
    assert re.search(r'<a href="https://example.org/cat.png"[^>]*>a cat</a>', rendered)


@pytest.mark.parametrize("render", [render_markdown, render_plain])
def test_lone_surrogates_are_replaced(render: Callable[[str], str]) -> None:
    rendered = render("before \ud800 middle \udfff after")

    assert "before \ufffd middle \ufffd after" in rendered
    rendered.encode("utf-8")  # would raise on a surrogate


def test_surrogate_pair_becomes_its_character() -> None:
    assert "\U0001f600" in render_markdown("smile \ud83d\ude00")


@pytest.mark.parametrize(
    "text",
    [
        "family \U0001f469\u200d\U0001f469\u200d\U0001f467 and flag \U0001f1f3\U0001f1f4",
        "مرحبا بالعالم",
        "שלום עולם",
        "cafe\u0301 and a\u0308\u0304",
        "mixed English עברית العربية",
    ],
)
def test_unicode_passes_through(text: str) -> None:
    for rendered in (render_markdown(text), render_plain(text)):
        assert text in rendered
        rendered.encode("utf-8")


def test_messages_over_the_cap_show_their_start_and_a_note() -> None:
    tail = "\n\nTAIL-THAT-IS-NOT-SHOWN " * 100
    rendered = render_markdown("a" * MAX_RENDERED_CHARS + tail)

    assert "TAIL-THAT-IS-NOT-SHOWN" not in rendered
    assert "a" * 1000 in rendered
    assert f"<i>… {len(tail):,} more characters are not shown here;" in rendered
    assert "Copy copies the whole message" in rendered


def test_messages_at_the_cap_have_no_note() -> None:
    rendered = render_markdown("a" * MAX_RENDERED_CHARS)

    assert "not shown" not in rendered


def test_the_cap_does_not_cut_an_accent_from_its_letter() -> None:
    text = "a" * (MAX_RENDERED_CHARS - 1) + "e\u0301" + "b" * 10
    rendered = render_markdown(text)

    assert "e" not in text_of(rendered).split("…")[0]
    assert "\u0301" not in rendered
    assert "… 12 more characters" in rendered


def test_plain_rendering_escapes_and_keeps_lines() -> None:
    rendered = render_plain("<b>not bold</b>\n  indented\r\nlast")

    assert "<b>" not in rendered
    assert re.search(r"&lt;b&gt;not bold&lt;/b&gt;<br\s*/?>  indented<br\s*/?>last", rendered)


def test_plain_rendering_is_capped_too() -> None:
    rendered = render_plain("a" * MAX_RENDERED_CHARS + "zzz")

    assert "zzz" not in rendered
    assert "… 3 more characters" in rendered


def test_dark_and_light_use_different_colours() -> None:
    light = render_markdown(PYTHON_FENCE + "\n`inline`")
    dark = render_markdown(PYTHON_FENCE + "\n`inline`", dark=True)

    light_colours = set(COLOUR.findall(light))
    dark_colours = set(COLOUR.findall(dark))
    assert light_colours
    assert dark_colours
    assert light_colours != dark_colours
    backgrounds = re.compile(r"background-color:\s*(#[0-9A-Fa-f]{3,6})")
    assert set(backgrounds.findall(light)).isdisjoint(backgrounds.findall(dark))
    assert text_of(light) == text_of(dark)


def test_long_message_with_several_code_blocks() -> None:
    section = (
        "Here is **step {n}**, with a `helper` and a list:\n\n- one\n- two\n\n"
        "```python\ndef step_{n}(x: int) -> int:\n    return x * {n}  # scale\n```\n\n"
        "```js\nconst step{n} = (x) => x < {n};\n```\n\n"
    )
    sections = [section.format(n=n) for n in range(150)]
    text = "".join(sections)
    assert len(text) > 20_000

    rendered = render_markdown(text)

    blocks = code_blocks(rendered)
    assert len(blocks) == 300
    assert text_of(blocks[-2]).strip("\n") == (
        "def step_149(x: int) -> int:\n    return x * 149  # scale"
    )
    assert text_of(blocks[-1]).strip("\n") == "const step149 = (x) => x < 149;"
    assert all(COLOUR.search(block) for block in blocks)


def test_a_very_long_code_block_keeps_all_its_code() -> None:
    line = "value = compute(a < b)  # keep\n"
    code = line * (2 * MAX_HIGHLIGHTED_CHARS // len(line))

    [block] = code_blocks(render_markdown(f"```python\n{code}```"))

    assert text_of(block).strip("\n") == code.strip("\n")
    assert COLOUR.search(block)


def test_qt_shows_the_rendered_message(qapp: QApplication) -> None:
    text = (
        "Intro line\nsecond line\n\n```python\n\nif x:\n    print(1)\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n[site](https://example.org) \ud800 עברית"
    )
    document = QTextDocument()
    document.setHtml(render_markdown(text, dark=True))

    plain = document.toPlainText()
    assert "Intro line\nsecond line" in plain
    assert "python\n\nif x:\n    print(1)\n" in plain
    assert "1\n2" in plain
    assert "site \ufffd עברית" in plain
    assert not plain.endswith((" ", "\n"))
    assert 'href="https://example.org"' in document.toHtml()
