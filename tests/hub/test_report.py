"""What a run tells its user (hub/report.py) and when bars are drawn (hub/progress.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from hub.findings import Finding
from hub.notes import Rejection
from hub.progress import MIN_ITEMS, Bars, progress_bars
from hub.report import Outcome, Status, json_report, write_human, write_json
from hub.sync import READING, SENDING, Summary

VAULT, URL = Path("/v/Notes"), "http://127.0.0.1:8787"


def summary(**fields: object) -> Summary:
    base: dict = dict(sent=3, unchanged=5, deleted=1, batches=1, elapsed_s=0.25,
                      vault_name="Notes", vault_id="22222222-2222-4222-8222-222222222222")
    return Summary(**{**base, **fields})


def test_a_finished_run_is_ok_or_rejected() -> None:
    assert Outcome.finished(summary(), VAULT, URL).status is Status.OK
    bad = summary(rejected=[Rejection("Bad.md", "not UTF-8")])
    assert Outcome.finished(bad, VAULT, URL).status is Status.REJECTED
    assert Outcome.finished(bad, VAULT, URL, dry_run=True).status is Status.OK


def test_the_human_form_ends_with_one_summary_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    s = summary(warnings=[Rejection("Long.md", "a section was cut")])
    write_human(Outcome.finished(s, VAULT, URL), out, err)
    assert out.getvalue() == ("sent 3, unchanged 5, deleted 1, rejected 0, warnings 1, "
                              "elapsed 0.2s\n")
    assert err.getvalue() == "warning Long.md: a section was cut (sent anyway)\n"


def test_a_failed_run_says_what_it_did_before_it_stopped() -> None:
    out, err = io.StringIO(), io.StringIO()
    failed = Outcome(summary(elapsed_s=2.0), Status.FAILED, VAULT, URL,
                     error="the Worker refused the sync token (401: no)")
    write_human(failed, out, err)
    assert out.getvalue() == ""
    assert err.getvalue() == ("sync failed after 2.0s: the Worker refused the sync token "
                              "(401: no) (sent 3, unchanged 5, deleted 1, rejected 0, "
                              "warnings 0 before it stopped)\n")


def test_json_is_one_line_with_counts_problems_and_exit_status() -> None:
    out = io.StringIO()
    s = summary(rejected=[Rejection("Bad.md", "not UTF-8")], stale=2, reconciled="--full")
    write_json(Outcome.finished(s, VAULT, URL, full=True), out)
    [line] = out.getvalue().splitlines()
    report = json.loads(line)
    assert report == {
        "status": "rejected", "exit_code": 3, "synced": True,
        "vault": {"name": "Notes", "id": "22222222-2222-4222-8222-222222222222",
                  "path": "/v/Notes"},
        "url": URL, "dry_run": False, "full": True, "sent": 3, "deleted": 1, "unchanged": 5,
        "rejected": 1, "warnings": 0, "lint": {"errors": 0, "warnings": 0}, "stale": 2,
        "changing": 0, "batches": 1, "reconciled": "--full", "healed": None,
        "mass_delete": None, "duration_s": 0.25, "error": None,
        "problems": [{"kind": "rejected", "path": "Bad.md", "reason": "not UTF-8"}]}


def test_json_counts_and_lists_lint_findings() -> None:
    found = [Finding("A.md", "relation_missing_target", "relation target [[Nope]] does not exist"),
             Finding("B.md", "unknown_status", "status 'active' is not one of …")]
    report = json_report(Outcome.finished(summary(findings=found), VAULT, URL))
    levels = [f.level for f in found]
    assert report["lint"] == {"errors": levels.count("error"),
                              "warnings": levels.count("warning")}
    assert [p["path"] for p in report["problems"]] == ["A.md", "B.md"]
    assert all(p["kind"].startswith("lint ") for p in report["problems"])


def test_interrupted_is_exit_130() -> None:
    report = json_report(Outcome(summary(), Status.INTERRUPTED, VAULT, URL, error="Ctrl-C"))
    assert (report["status"], report["exit_code"]) == ("interrupted", 130)


def test_bars_are_drawn_only_for_phases_of_at_least_min_items() -> None:
    screen = io.StringIO()
    bars = Bars(Console(file=screen, force_terminal=True, width=100))
    for done in range(MIN_ITEMS):
        bars(READING, done, MIN_ITEMS - 1)
    bars.close()
    assert screen.getvalue() == ""
    bars = Bars(Console(file=screen, force_terminal=True, width=100))
    bars(SENDING, MIN_ITEMS, MIN_ITEMS)
    bars.close()
    assert f"{MIN_ITEMS}/{MIN_ITEMS}" in screen.getvalue()


def test_no_bars_when_the_stream_is_not_a_terminal() -> None:
    with progress_bars(io.StringIO()) as bars:
        assert bars is None
