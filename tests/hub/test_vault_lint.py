"""`mallory-hub lint`: the whole vault checked, findings printed, the exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.cli import main
from hub.vault_lint import lint_vault


def write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    write(tmp_path, "Decisions/New.md", "---\nstatus: stable\ntype: decision\nrelations:\n"
          "  - {target: Old, type: supersedes}\n---\nReplaces [[Old]].")
    write(tmp_path, "Decisions/Old.md", "---\nstatus: deprecated\nrelations:\n"
          "  - {target: New, type: supersedes}\n---\nSee [[New]].")
    write(tmp_path, "Ideas/Typo.md", "---\nstatus: wip\nrelations:\n"
          "  - {target: Decisions/Nwe, type: supports}\n  - {target: Old, type: inspires}\n"
          "---\nNo links.")
    write(tmp_path, "Broken.md", "---\nrelations: {target: New}\n---\nx")
    write(tmp_path, ".obsidian/skip.md", "---\nstatus: nonsense\n---\n")
    return tmp_path


def test_lint_reports_every_finding_of_the_vault(vault: Path) -> None:
    report = lint_vault(vault)
    assert report.pages == 4
    assert [(f.path, f.code) for f in report.findings] == [
        ("Broken.md", "relations_malformed"),
        ("Decisions/New.md", "relation_cycle"),
        ("Ideas/Typo.md", "relation_missing_body_link"),
        ("Ideas/Typo.md", "relation_missing_target"),
        ("Ideas/Typo.md", "relation_unknown_type"),
        ("Ideas/Typo.md", "unknown_status")]
    missing = report.findings[3].message
    assert "did you mean 'Decisions/New'" in missing


def test_the_command_prints_findings_and_fails_on_errors(vault: Path, capsys) -> None:
    assert main(["lint", "--vault", str(vault)]) == 1
    out, err = capsys.readouterr()
    assert "lint error Decisions/New.md: supersedes relations form a cycle through " \
           "Decisions/New.md, Decisions/Old.md" in err
    assert "lint warning Ideas/Typo.md: status 'wip' is not one of" in err
    assert out.strip() == "4 pages: 3 errors, 3 warnings, 0 unreadable"


def test_warnings_alone_pass_unless_strict(tmp_path: Path, capsys) -> None:
    write(tmp_path, "a.md", "---\nstatus: active\n---\nx")
    assert main(["lint", "--vault", str(tmp_path)]) == 0
    assert main(["lint", "--vault", str(tmp_path), "--strict"]) == 1
    write(tmp_path, "b.md", "---\nstatus: stable\n---\nx")
    assert main(["lint", "--vault", str(tmp_path), "--exclude", "a.md"]) == 0
    assert "1 page: 0 errors, 0 warnings" in capsys.readouterr().out


def test_a_missing_vault_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["lint", "--vault", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err
