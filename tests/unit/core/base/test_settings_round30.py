"""Round 30 of issue 15 against server addresses in the settings.

An address ending in a bare ``#`` or ``?`` (a paste that took one character
too many) was taken, since its fragment or query is empty: every request
then went to the address itself (``http://box:8080/v1#/models`` asks for
``/v1``), and the server's 404 said the address had no ``/v1``.  Port 0
was taken though the message for a bad port says 1 to 65535, and nothing
listens there.  Both are refused now, saying why.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from desktop.core.base.settings import Backend, base_url


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("http://box:8080/v1#", "without ?query or #fragment"),
        ("http://box:8080/v1?", "without ?query or #fragment"),
        ("http://box:8080/?#", "without ?query or #fragment"),
        ("http://box:0/v1", "the port is a number from 1 to 65535"),
    ],
)
def test_an_address_with_an_empty_query_or_fragment_or_port_zero_is_refused(
    address: str, said: str
) -> None:
    with pytest.raises(ValueError, match=said.replace("?", r"\?")):
        base_url(address)
    with pytest.raises(ValidationError, match=said.replace("?", r"\?")):
        Backend(kind="server", url=address, model="m")
