"""The time zone schedules are read in: an IANA zone by name, or the system's.

Python's standard library can name a zone (``zoneinfo``) but not tell which
one the system uses, and ``datetime.now().astimezone()`` gives only today's
fixed offset, which would put every schedule an hour off after the next
daylight-saving change.  So the system's zone is found the way the C library
finds it: ``TZ``, then ``/etc/localtime`` (a link into the zone database, or
a copy of a zone file), then ``/etc/timezone``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from datetime import datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from desktop.core.base.errors import ReverieError

log = logging.getLogger(__name__)

SYSTEM_ZONE = ""
"""The setting that means "the system's local zone"."""
_LOCALTIME = Path("/etc/localtime")
_TIMEZONE_FILE = Path("/etc/timezone")


class UnknownTimeZone(ReverieError, ValueError):
    """A time zone name the zone database does not know."""


def zone_named(name: str) -> tzinfo:
    """The zone called *name* (e.g. ``Europe/Berlin``); ``""`` is the system's."""
    if name.strip() == SYSTEM_ZONE:
        return local_zone()
    zone = _zone_or_none(name.strip())
    if zone is None:
        raise UnknownTimeZone(
            f"{name!r} is not a time zone Reverie knows; use a name from the IANA "
            "time zone database such as Europe/Berlin or America/New_York, or leave "
            "it empty for the system's zone."
        )
    return zone


def local_zone(
    env: Mapping[str, str] | None = None,
    localtime: Path = _LOCALTIME,
    timezone_file: Path = _TIMEZONE_FILE,
) -> tzinfo:
    """The system's zone, with its daylight-saving rules where they can be found."""
    env = os.environ if env is None else env
    if (named := env.get("TZ", "").lstrip(":")) and (zone := _zone_or_none(named)):
        return zone
    if localtime.is_symlink():
        target = str(localtime.resolve())
        if "zoneinfo/" in target and (zone := _zone_or_none(target.split("zoneinfo/")[-1])):
            return zone
    try:
        named = timezone_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        named = ""
    if named and (zone := _zone_or_none(named)):
        return zone
    try:
        with localtime.open("rb") as data:
            return ZoneInfo.from_file(data, key="localtime")
    except (OSError, ValueError):
        pass
    # Windows, or a system without a zone database: today's offset is all there is.
    fixed = datetime.now().astimezone().tzinfo
    log.warning("the system's time zone has no rules Reverie can read; using %s", fixed)
    assert fixed is not None  # astimezone() always sets one
    return fixed


def _zone_or_none(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        # ValueError: a malformed key such as "../x" or an absolute path.
        return None
