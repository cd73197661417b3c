"""Competing claims together: partners beside their seeds, current claim first, the
bundle rule, the three-hit budget, links for labels."""

from __future__ import annotations

from shared.block.envelope import build_recall_block
from shared.knowledge.bundles import Edge, together, with_partners
from shared.rank.candidate import Link
from tests.builders import candidate


def note(group: str, relevance: float = 0.6, role: str | None = "canonical",
         status: str | None = "stable"):
    return candidate(group, relevance, group=group, knowledge_role=role, status=status)


def test_a_deprecated_seed_comes_after_the_note_that_supersedes_it() -> None:
    old, new = note("old", 0.9, status="deprecated"), note("new", 0.1)
    placed = together([old], [Edge("new", "old", "supersedes")], {"new": new}, 3)
    assert [c.identity.group for c in placed] == ["new", "old"]
    assert placed[0].note.links == (Link("supersedes", "out", "old"),)
    assert placed[1].note.links == (Link("supersedes", "in", "new"),)


def test_between_contradicting_claims_stable_comes_before_draft() -> None:
    draft, stable = note("draft", 0.9, status="draft"), note("stable", 0.2)
    placed = together([draft], [Edge("draft", "stable", "contradicts")],
                      {"stable": stable}, 3)
    assert [c.identity.group for c in placed] == ["stable", "draft"]


def test_a_bundle_holds_one_canonical_and_two_evidence_notes_at_most() -> None:
    seed = note("seed", role="evidence")
    partners = {g: note(g, role="evidence", status=None) for g in ("e1", "e2", "e3")}
    edges = [Edge(g, "seed", "contradicts") for g in partners]
    placed = together([seed], edges, partners, 3)
    assert [c.identity.group for c in placed] == ["seed", "e1"]  # seed + one more evidence note


def test_a_second_canonical_claim_is_kept_beside_the_first() -> None:
    a, b = note("a", 0.9), note("b", 0.3, status="draft")
    placed = together([a, note("other", 0.5)], [Edge("a", "b", "contradicts")], {"b": b}, 3)
    assert [c.identity.group for c in placed] == ["a", "b", "other"]


def test_lower_bundles_that_do_not_fit_whole_stay_out() -> None:
    seeds = [note("s1", 0.9), note("s2", 0.8), note("s3", 0.7)]
    pool = {"p1": note("p1", status="draft"), "p3": note("p3", status="draft")}
    edges = [Edge("s1", "p1", "contradicts"), Edge("s3", "p3", "contradicts")]
    assert [c.identity.group for c in together(seeds, edges, pool, 3)] == ["s1", "p1", "s2"]


def test_a_seed_already_shown_as_a_partner_is_not_repeated() -> None:
    a, b = note("a", 0.9), note("b", 0.8, status="draft")
    placed = together([a, b], [Edge("a", "b", "qualifies")], {"b": b}, 3)
    assert [c.identity.group for c in placed] == ["a", "b"]


def test_without_edges_the_seeds_are_unchanged() -> None:
    seeds = [note("a"), note("b")]
    assert together(seeds, [], {}, 3) == seeds


def test_the_footer_shows_the_partner_of_a_cited_hit() -> None:
    old, new = note("old", 0.9, status="deprecated"), note("new", 0.1)
    placed = together([old, note("x", 0.5)], [Edge("new", "old", "supersedes")],
                      {"new": new}, 3)
    _, injected = build_recall_block(placed)
    assert with_partners([2], injected) == {1, 2}  # cited the old claim: the new one too
    assert with_partners([3], injected) == {3}


def test_a_stable_canonical_bundle_leads_an_evidence_page_that_matched_better() -> None:
    page = note("handbook", 0.9, role="evidence", status=None)
    keep, move = note("keep", 0.5), note("move", 0.4, status="draft")
    placed = together([page, move], [Edge("keep", "move", "contradicts")],
                      {"keep": keep}, 3)
    assert [c.identity.group for c in placed] == ["keep", "move", "handbook"]
    assert placed[2].note.links == ()


def test_the_bundle_leads_only_when_every_competitor_is_shown() -> None:
    page = note("handbook", 0.9, role="evidence", status=None)
    keep = note("keep", 0.5)
    edges = [Edge("keep", "a", "contradicts"), Edge("keep", "b", "contradicts"),
             Edge("keep", "c", "qualifies")]
    pool = {g: note(g, 0.3, role="evidence", status=None) for g in "abc"}
    # keep's bundle holds two evidence notes at most: c is left out, so keep does not lead
    placed = together([page, keep], edges, pool, 4)
    assert placed[0].identity.group == "handbook"
    assert "c" not in [c.identity.group for c in placed]


def test_a_draft_or_superseded_claim_does_not_lead() -> None:
    page = note("page", 0.9, role="evidence", status=None)
    draft, other = note("draft", 0.5, status="draft"), note("other", 0.4, status=None)
    placed = together([page, draft], [Edge("draft", "other", "contradicts")],
                      {"other": other}, 3)
    assert [c.identity.group for c in placed] == ["page", "other", "draft"]
    old, new = note("old", 0.5), note("new", 0.4, status=None)
    placed = together([page, old], [Edge("new", "old", "supersedes")], {"new": new}, 3)
    assert placed[0].identity.group == "page"  # the stable note is superseded


def test_no_note_is_added_to_lead() -> None:
    page, keep = note("page", 0.9, role="evidence", status=None), note("keep", 0.5)
    placed = together([page, keep], [Edge("keep", "gone", "contradicts")], {}, 3)
    assert [c.identity.group for c in placed] == ["page", "keep"]
