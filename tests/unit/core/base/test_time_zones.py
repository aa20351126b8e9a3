"""Tests of finding time zones: by name, and the system's from TZ and /etc."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.time_zones import UnknownTimeZone, local_zone, zone_named

ZONEINFO = Path("/usr/share/zoneinfo")
needs_zone_files = pytest.mark.skipif(
    not (ZONEINFO / "Europe" / "Berlin").is_file(), reason="no system zone database"
)


def test_a_zone_is_found_by_its_iana_name() -> None:
    assert zone_named("Europe/Berlin") == ZoneInfo("Europe/Berlin")
    assert zone_named(" Asia/Tokyo ") == ZoneInfo("Asia/Tokyo")


@pytest.mark.parametrize(
    "name", ["Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "Europe"]
)
def test_an_unknown_zone_is_refused_with_a_hint(name: str) -> None:
    with pytest.raises(UnknownTimeZone, match="IANA time zone database such as Europe/Berlin"):
        zone_named(name)


def test_tz_names_the_system_zone(tmp_path: Path) -> None:
    zone = local_zone({"TZ": ":America/New_York"}, tmp_path / "none", tmp_path / "none")

    assert zone == ZoneInfo("America/New_York")


@needs_zone_files
def test_a_localtime_link_names_the_system_zone(tmp_path: Path) -> None:
    link = tmp_path / "localtime"
    link.symlink_to(ZONEINFO / "Europe" / "Berlin")

    assert local_zone({}, link, tmp_path / "none") == ZoneInfo("Europe/Berlin")


def test_etc_timezone_names_the_system_zone(tmp_path: Path) -> None:
    named = tmp_path / "timezone"
    named.write_text("Asia/Tokyo\n", encoding="utf-8")

    assert local_zone({"TZ": "Nowhere/Else"}, tmp_path / "none", named) == ZoneInfo("Asia/Tokyo")


@needs_zone_files
def test_a_copied_localtime_file_keeps_its_daylight_saving_rules(tmp_path: Path) -> None:
    copy = tmp_path / "localtime"
    copy.write_bytes((ZONEINFO / "Europe" / "Berlin").read_bytes())

    zone = local_zone({}, copy, tmp_path / "none")

    assert datetime(2026, 1, 15, 12, tzinfo=zone).tzname() == "CET"
    assert datetime(2026, 7, 15, 12, tzinfo=zone).tzname() == "CEST"


def test_without_any_rules_todays_offset_is_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    zone = local_zone({}, tmp_path / "none", tmp_path / "none")

    assert zone.utcoffset(datetime.now()) == datetime.now().astimezone().utcoffset()
    assert "no rules Reverie can read" in caplog.text


def test_an_empty_name_means_the_system_zone() -> None:
    for moment in (datetime(2026, 1, 15, 12), datetime(2026, 7, 15, 12)):
        assert zone_named("").utcoffset(moment) == local_zone().utcoffset(moment)
