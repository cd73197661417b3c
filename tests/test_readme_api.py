"""The README's `/api/search` documentation against the wire model it describes: the
hit-field table and the example hit name exactly the fields of `shared.api.wire.SearchHit`
(/api/search returns only documented fields, and the README's API table documents
them all)."""

from __future__ import annotations

import json
import re

from shared.api.wire import SearchHit
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
TABLE_INTRO = "`/api/search` answers"
EXAMPLE = re.compile(r"<!-- example: GET /api/search 200 -->\s*```json\n(.*?)\n```", re.S)


def hit_table_rows(text: str) -> list[tuple[list[str], str]]:
    """(field names, meaning) of each row of the first table after TABLE_INTRO."""
    assert TABLE_INTRO in text, f"the README no longer opens the hit table with {TABLE_INTRO!r}"
    lines = text[text.index(TABLE_INTRO):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| field |"))
    rows = []
    for line in lines[start + 2:]:  # past the header and its |---| rule
        if not line.startswith("|"):
            break
        first, meaning = (cell.strip() for cell in line.strip("|").split("|", 1))
        rows.append((re.findall(r"`([^`]+)`", first), meaning))
    return rows


def test_the_hit_table_documents_every_search_hit_field_and_nothing_else() -> None:
    rows = hit_table_rows(README)
    documented = [name for names, _ in rows for name in names]
    assert len(documented) == len(set(documented)), f"a field is documented twice: {documented}"
    assert set(documented) == set(SearchHit.model_fields), (
        f"undocumented: {sorted(set(SearchHit.model_fields) - set(documented))}; "
        f"not in SearchHit: {sorted(set(documented) - set(SearchHit.model_fields))}")
    assert all(meaning for _, meaning in rows)


def test_the_example_hit_shows_every_field() -> None:
    [example] = EXAMPLE.findall(README)
    hits = json.loads(example)["hits"]
    assert hits, "the example answer shows no hit"
    for hit in hits:
        assert set(hit) == set(SearchHit.model_fields)
        SearchHit.model_validate(hit)


def test_the_table_parser_sees_a_missing_row() -> None:
    # The check above is only as good as the parser: a table without the `heading` row
    # must come out without it.
    without = "\n".join(line for line in README.splitlines()
                        if not line.startswith("| `heading` |"))
    names = {name for names, _ in hit_table_rows(without) for name in names}
    assert "heading" not in names and "standing" in names
