"""The limits module's figures and the deploy instructions that depend on them."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT
from worker.semantic.ports import VectorFilter
from worker.semantic.vectorize_limits import (
    FILTER_PROPERTIES,
    MAX_TOP_K,
    MAX_TOP_K_WITH_METADATA,
    query_options,
    vectorize_filter,
)


def test_every_filter_field_gets_a_metadata_index_in_the_readme() -> None:
    assert FILTER_PROPERTIES == ("kind", "vault")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    created = re.findall(r"npx wrangler vectorize create-metadata-index mallory-recall "
                         r"--property-name=(\w+) --type=string", readme)
    assert sorted(created) == sorted(FILTER_PROPERTIES)
    create = readme.index("npx wrangler vectorize create mallory-recall --dimensions=384 "
                          "--metric=cosine")
    assert create < readme.index("create-metadata-index mallory-recall")
    assert "before the first insert" in readme


def test_wrangler_binds_the_index_the_readme_creates() -> None:
    config = tomllib.loads((ROOT / "wrangler.toml").read_text(encoding="utf-8"))
    assert config["vectorize"] == [{"binding": "VECTORS", "index_name": "mallory-recall"}]
    assert config["ai"] == {"binding": "AI"}


def test_query_options_and_filters() -> None:
    assert query_options(MAX_TOP_K_WITH_METADATA, None)["returnMetadata"] == "all"
    assert query_options(MAX_TOP_K_WITH_METADATA + 1, None)["returnMetadata"] == "none"
    assert query_options(10 * MAX_TOP_K, None)["topK"] == MAX_TOP_K
    assert "filter" not in query_options(5, VectorFilter())
    assert vectorize_filter(VectorFilter(kind="note")) == {"kind": {"$eq": "note"}}
