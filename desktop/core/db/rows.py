"""Mapping result rows to the stores' frozen dataclasses.

A row dataclass names its fields after the table's columns, so the column
list of a SELECT and the construction of the object both come from the
dataclass: adding a column means adding a field, nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from desktop.core.db.connection import Row

T = TypeVar("T")


def columns(row_type: type[Any]) -> tuple[str, ...]:
    """The column names behind *row_type*'s fields, in order."""
    return tuple(field.name for field in fields(row_type))


def select_list(row_type: type[Any], alias: str) -> str:
    """The columns of *row_type* for a SELECT, qualified by table *alias*."""
    return ", ".join(f"{alias}.{name}" for name in columns(row_type))


def from_row(row_type: type[T], row: Row, **convert: Callable[[Any], Any]) -> T:
    """Build *row_type* from *row*, passing the named columns through *convert*."""
    values = {name: row[name] for name in columns(row_type)}
    for name, converter in convert.items():
        values[name] = converter(values[name])
    return row_type(**values)


def json_or_none(text: str | None) -> Any:
    return None if text is None else json.loads(text)
