"""Checks of what redaction stores: a value gone, or a text kept as typed."""

from __future__ import annotations

import re

from desktop.core.privacy.redaction import redact


def assert_gone(text: str, *values: str, after: tuple[str, ...] = ()) -> None:
    """No value of *values* stands whole in *text* once redacted (read after *after*)."""
    redacted = redact(text, after=after).text
    for value in values:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])"
        assert re.search(pattern, redacted) is None, redacted


def assert_kept(text: str, after: tuple[str, ...] = ()) -> None:
    """*text* comes out of redaction as it went in."""
    assert redact(text, after=after).text == text
