"""The Models page's word on a paused download (round 29): it said how many
megabytes were kept, rounded, so a download paused before its first half
megabyte read "Paused; the 0 MB downloaded so far are kept." (and a
gigabyte-sized one "2500 MB"), though the bytes were there.  It now gives
the size as every other size on the page is given."""

from __future__ import annotations

import pytest

from desktop.core.backends.library import ModelLibrary
from desktop.core.base.text import size_text
from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.models_page import ModelsPage
from tests.unit.ui.settings.test_models_page import (  # noqa: F401 (fixtures)
    catalog,
    hub,
    library,
    paused,
    secrets,
    tiny,
)


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_paused_download_says_the_size_it_kept(
    paused: tuple[ModelsPage, Downloads],  # noqa: F811 (a fixture)
    library: ModelLibrary,  # noqa: F811 (a fixture)
) -> None:
    models_page, _ = paused
    kept = (library.models_dir / "tiny-q4_k_m.gguf.part").stat().st_size
    assert 0 < kept < 500_000  # under half a megabyte: "0 MB" as megabytes rounded

    said = models_page.cards["chat:tiny"].state.text()

    assert said == f"Paused; the {size_text(kept)} downloaded so far are kept."
    assert "0 MB" not in said
