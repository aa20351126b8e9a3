"""Arguments of the command line that must not be blank, refused as argparse
refuses any other: an empty path would be read as the current folder, and
the answer would be about a folder the user never named."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def not_blank(what: str) -> Callable[[str], str]:
    """An argparse type: the text as given, unless blank ("give *what*")."""

    def given(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"give {what}")
        return text

    return given


def path_of(what: str) -> Callable[[str], Path]:
    """An argparse type: the path given, unless blank ("give *what*")."""
    text_of = not_blank(what)
    return lambda text: Path(text_of(text))
