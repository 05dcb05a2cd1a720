"""brandeln.services.sources as the CLI and the web front share it: a match named by its id or a
prefix that is unique, an ambiguous prefix refused with its candidates, an unknown one not found."""

from __future__ import annotations

from pathlib import Path

import pytest

from brandeln.services import data_folder
from brandeln.services.sources import LocalSource, SourceError, SourceNotFoundError, unique_match_id


def test_a_prefix_names_the_one_match_it_starts_or_none() -> None:
    assert unique_match_id("m_1", ["m_12", "m_2"]) == "m_12"
    assert unique_match_id("m_3", ["m_12", "m_2"]) is None
    with pytest.raises(SourceError, match=r"prefix 'm_1' is ambiguous: m_12, m_13$"):
        unique_match_id("m_1", ["m_12", "m_13", "m_2"])


def test_an_unknown_match_is_not_found_in_the_local_stores(tmp_path: Path) -> None:
    source = LocalSource(tmp_path, create=True)
    try:
        assert source.stores[0].path == data_folder.referee_db(tmp_path)
        with pytest.raises(SourceNotFoundError, match="no match with id 'nope'"):
            source.match("nope")
    finally:
        for store in source.stores:
            store.close()
