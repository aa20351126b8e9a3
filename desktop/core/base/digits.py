"""Numbers as people type them: decimal digits of any script.

``int`` reads the decimal digits of every script (Arabic-Indic, fullwidth), and so do
Reverie's readers of typed numbers (a schedule's count, ``/forget #id``).
Leading zeros come off before ``int`` sees the number: it refuses more
than 4,300 digits, zeros included, and a zero is a zero in every script.
"""

from __future__ import annotations

import unicodedata


def without_leading_zeros(digits: str) -> str:
    """*digits* (decimal digits, ``str.isdecimal``) without their leading
    zeros of any script: "" when all of them are zeros."""
    lead = next(
        (at for at, digit in enumerate(digits) if unicodedata.digit(digit, None) != 0),
        len(digits),
    )
    return digits[lead:]
