"""How standing is said, to the model and to the owner."""

from __future__ import annotations

from shared.knowledge.labels import block_standing, standing_label
from shared.rank.candidate import Link
from tests.builders import candidate


def test_footer_labels_say_what_a_reader_should_notice() -> None:
    assert standing_label(candidate("a", status="draft")) == "draft"
    assert standing_label(candidate("a", status="stale")) == "stale"
    assert standing_label(candidate("a", status="stable")) == ""
    assert standing_label(candidate("a")) == ""
    old = candidate("old", status="deprecated", links=(Link("supersedes", "in", "new"),))
    assert standing_label(old, {"old": 1, "new": 2}) == "deprecated — superseded by [2]"
    stable = candidate("s", status="stable", links=(Link("contradicts", "out", "d"),
                                                    Link("qualifies", "in", "q")))
    assert standing_label(stable, {"s": 1, "d": 2, "q": 3}) == \
        "stable — contradicts [2], qualified by [3]"


def test_a_relation_both_notes_declare_is_said_once() -> None:
    mutual = candidate("a", status="draft", links=(Link("contradicts", "in", "b"),
                                                   Link("contradicts", "out", "b")))
    assert standing_label(mutual, {"a": 2, "b": 1}) == "draft — contradicts [1]"


def test_a_relation_to_a_hit_that_is_not_shown_is_not_mentioned() -> None:
    old = candidate("old", status="deprecated", links=(Link("supersedes", "in", "new"),))
    assert standing_label(old, {"old": 1}) == "deprecated"


def test_the_block_gives_the_model_role_status_and_relations() -> None:
    draft = candidate("d", knowledge_role="canonical", status="draft",
                      links=(Link("contradicts", "in", "s"),))
    assert block_standing(draft, {"d": 2, "s": 1}) == "canonical, draft — contradicted by [1]"
    assert block_standing(candidate("e", knowledge_role="evidence"), {}) == "evidence"
    assert block_standing(candidate("n"), {}) == ""
