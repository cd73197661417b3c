"""The per-vault fusion benchmark's pure parts: reciprocal rank fusion and the split."""

from __future__ import annotations

from pathlib import Path

from bench.vault_fusion import RRF_K, fuse, split_vault


def test_fusion_sums_reciprocal_ranks_across_layers() -> None:
    fused = fuse([["a", "b", "c"], ["b", "d"]], depth=3)
    assert fused == ["b", "a", "d"]  # b: 1/62 + 1/61 beats a: 1/61; d (1/62) ties c, sorted
    assert 1 / (RRF_K + 1) > 1 / (RRF_K + 2)


def test_split_deals_folders_out_and_keeps_paths(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for rel in ["a/1.md", "b/2.md", "c/3.md", "top.md", ".obsidian/x.md"]:
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(rel)
    one, two = split_vault(vault, tmp_path / "out", 2)
    assert sorted(p.relative_to(one).as_posix() for p in one.rglob("*.md")) == [
        "a/1.md", "c/3.md", "top.md"]
    assert [p.relative_to(two).as_posix() for p in two.rglob("*.md")] == ["b/2.md"]
