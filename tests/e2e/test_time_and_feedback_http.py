"""Time-aware recall and feedback end to end over real HTTP: uvicorn on SQLite with a fixed
clock (Friday 2026-11-27, 10:00 UTC), a vault pushed by the hub's own sync code, chats
written on their days, the offline responder, and the client's time zone (Europe/Rome).

- "what did I write last week about the boiler?" is answered from 16–22 November only;
- 👍 moves a later ranking by its step and never past its bound;
- 👎 on an injected source keeps it out of the next answer to the same question.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from hub.client import WorkerClient
from hub.sync import Syncer
from local.thread_server import RunningServer, running_server
from shared.rank.feedback import FEEDBACK_MAX, FEEDBACK_STEP

ROME = {"client": "mallory-web", "version": "test", "timezone": "Europe/Rome",
        "locale": "en-GB"}
QUESTION = "what did I write last week about the boiler?"
VAULT = {
    # Daily notes are dated by their file name.
    "Journal/2026-11-18.md": "Boiler pressure dropped to 0.8 bar; topped it up to 1.5.",
    "Journal/2026-10-07.md": "Boiler serviced by the plumber; pressure 1.5 bar.",
    # Dated by what its frontmatter states, not by when the file was last touched.
    "Home/Boiler manual.md": "---\ncreated: 2024-03-01\n---\nBoiler: keep the pressure "
                             "between 1 and 2 bar; bleed radiators first.\n",
    "Home/Boiler log.md": "---\nupdated: 2026-11-20T19:30:00+01:00\n---\nBoiler pressure "
                          "checked after bleeding the radiators.\n",
    # Two notes that answer one question equally well, for feedback to tell apart.
    "Car/Tyre pressure front.md": "Tyre pressure, front wheels: 2.3 bar.",
    "Car/Tyre pressure rear.md": "Tyre pressure, rear wheels: 2.5 bar.",
}


# Other notes, so that "boiler" and "pressure" are rare words, as in a real vault.
FILLER = ["Sourdough: feed the starter twice a day.", "Priya is allergic to hazelnuts.",
          "The router password is on the fridge.", "Train to Porto leaves at 9:12.",
          "Water the monstera on Sundays.", "Car service due in March, 60,000 km.",
          "Dentist moved to Friday at 3.", "Kyoto ryokan booked for April.",
          "Tax return: gather the receipts first.", "Bike chain needs oil every month.",
          "Library books due back on the 5th.", "Marco wants the design doc by Monday."]


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).astimezone(UTC).timestamp() * 1000)


@dataclass
class FixedClock:
    now: int

    def __call__(self) -> int:
        self.now += 1
        return self.now


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(ms("2026-11-19T18:00:00+00:00"))


@pytest.fixture
def server(tmp_path: Path, clock: FixedClock) -> Iterator[RunningServer]:
    vault = tmp_path / "vault"
    filler = {f"Misc/Note {i}.md": text for i, text in enumerate(FILLER)}
    for path, text in {**VAULT, **filler}.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
        touched = ms("2026-11-01T12:00:00+00:00") / 1000  # long before "last week"
        os.utime(vault / path, (touched, touched))
    with running_server(tmp_path / "time.sqlite", clock=clock) as s:
        client = WorkerClient(s.url, s.token)
        try:
            summary = Syncer(vault, client, "Home", tmp_path / "hub-state").run()
        finally:
            client.close()
        assert not summary.rejected
        yield s


def ask(http: httpx.Client, content: str, conversation_id: str | None = None) -> dict:
    body = {"content": content, "context": ROME}
    if conversation_id:
        body["conversation_id"] = conversation_id
    response = http.post("/api/chat", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def cited(answer: dict) -> list[str]:
    return [s["id"] for s in answer["assistant_message"]["sources"]]


def test_last_week_is_answered_from_last_week(server: RunningServer, clock: FixedClock
                                              ) -> None:
    with httpx.Client(base_url=server.url, timeout=30, headers={"origin": server.url}) as http:
        told = ask(http, "the boiler made a knocking sound again this evening")  # 19 Nov
        clock.now = ms("2026-10-02T09:00:00+00:00")
        ask(http, "remind me that the boiler knocked in October too")
        clock.now = ms("2026-11-27T10:00:00+00:00")

        last_week = {"Journal/2026-11-18.md", "Home/Boiler log.md", told["user_message"]["id"]}
        answer = ask(http, QUESTION)
        assert answer["recall"]["time"] == {
            "expression": "last week", "from": "2026-11-16", "to": "2026-11-22",
            "timezone": "Europe/Rome", "timezone_fallback": None, "applied": True}
        assert cited(answer) and set(cited(answer)) <= last_week  # the gate picks the best

        search = http.get("/api/search", params={"q": "boiler last week",
                                                  "tz": "Europe/Rome"}).json()
        assert search["time"]["applied"] and search["terms"] == ['"boiler"']
        assert {h["id"] for h in search["hits"]} == last_week
        everything = http.get("/api/search", params={"q": "boiler"}).json()["hits"]
        assert {"Journal/2026-10-07.md", "Home/Boiler manual.md"} <= {h["id"] for h in everything}


def test_feedback_moves_rankings_within_its_bound_and_stops_reinjection(
        server: RunningServer, clock: FixedClock) -> None:
    clock.now = ms("2026-11-27T10:00:00+00:00")
    with httpx.Client(base_url=server.url, timeout=30, headers={"origin": server.url}) as http:
        def scores(q: str) -> dict[str, float]:
            hits = http.get("/api/search", params={"q": q, "source": "notes"}).json()["hits"]
            return {h["id"]: h["score"] for h in hits}

        answer = ask(http, "what is the tyre pressure?")
        sources = {s["id"]: s["n"] for s in answer["assistant_message"]["sources"]}
        liked, disliked = list(sources)[:2]  # two notes the answer was given
        before = scores("tyre pressure")

        def judge(note_id: str, judgment: str) -> None:
            response = http.post("/api/feedback", json={
                "message_id": answer["assistant_message"]["id"], "n": sources[note_id],
                "judgment": judgment})
            assert response.status_code == 200, response.text

        judge(liked, "relevant")
        after = scores("tyre pressure")
        assert after[liked] / before[liked] == pytest.approx(1 + FEEDBACK_STEP, abs=1e-4)
        judge(liked, "relevant")  # the same source again: replaced, not added
        assert scores("tyre pressure")[liked] / before[liked] <= 1 + FEEDBACK_MAX

        judge(disliked, "irrelevant")
        assert scores("tyre pressure")[disliked] / before[disliked] == pytest.approx(
            1 - FEEDBACK_STEP, abs=1e-4)
        again = ask(http, "What is the tyre pressure")  # the same question
        assert disliked not in cited(again) and liked in cited(again)
