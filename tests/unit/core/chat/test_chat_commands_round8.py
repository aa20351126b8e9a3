"""Round 8 of the attacks on the chat's commands: ``/forget #<id>`` with an
id SQLite cannot hold (``#99999999999999999999``), a digit ``int`` does not
read (``#²``: ``str.isdigit`` is true for superscripts) or a number too long
for ``int`` (5,000 nines) raised a bare ``OverflowError`` or ``ValueError``
on the UI thread.  Each is now an unknown id: nothing forgotten, nothing
raised, the chat says no memory matches."""

from __future__ import annotations

import pytest

from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.toolbox import ROW_ID_MAX


@pytest.mark.parametrize(
    "reference",
    [
        "#99999999999999999999",
        f"#{ROW_ID_MAX + 1}",
        "#\u00b2",  # a superscript two: a digit to isdigit(), none to int()
        "#\u00b9\u00b2",
        "#" + "9" * 5000,  # past int()'s 4,300 digits
        "9" * 5000,
        "#0",
        f"#{'0' * 30}",
    ],
    ids=[
        "past-int64",
        "int64-max+1",
        "superscript",
        "superscripts",
        "5000-digits",
        "5000-digits-bare",
        "zero",
        "zeros",
    ],
)
def test_an_id_no_memory_can_have_forgets_nothing_and_raises_nothing(
    chat: ChatService, reference: str
) -> None:
    kept = chat.remember("My sister is called Ines.").memory

    assert chat.forget(reference) == ([], [])
    assert chat.forget(f"#{kept.id}")[0][0].id == kept.id  # the memories are still there


def test_an_id_with_leading_zeros_or_other_decimal_digits_is_still_the_memory(
    chat: ChatService,
) -> None:
    first = chat.remember("My sister is called Ines.").memory
    second = chat.remember("I like green tea.").memory

    forgotten, _ = chat.forget(f"#{'0' * 10_000}{first.id}")  # past int()'s 4,300 digits
    assert [m.id for m in forgotten] == [first.id]
    arabic_indic = "".join(chr(0x0660 + int(d)) for d in str(second.id))  # ٢ is 2
    forgotten, _ = chat.forget(f"#{arabic_indic}")
    assert [m.id for m in forgotten] == [second.id]
