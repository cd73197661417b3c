"""No echoes, end to end: a vault synced by a real hub process into `mallory serve`'s
server (the local MiniLM in adaptive mode, the offline responder), the same questions,
typed with and without their question marks, asked three times in new conversations, and
a note edited and another deleted before the third round. Each round cites notes only,
the same ones, and a withdrawn or deleted answer leaves no question behind as memory."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from tests.e2e.conftest import SEMANTIC_BUDGET_S
from tests.e2e.hubs import run_hub
from worker.config import Settings

TOKEN = "echo-token"
VAULT = {
    "Travel/Japan trip.md": "# Japan trip\n\nThe JR pass is 14 days, activated at Narita. "
                            "We stay two nights at a ryokan in Hakone, then five in Kyoto.\n",
    "People/Rosalind.md": "# Rosalind\n\nRing size N (UK), 17.75 mm. White gold, no "
                          "stones. Birthday 14 March.\n",
    "Family/Caspian.md": "# Caspian\n\nAllergic to peanuts and tree nuts; carries an "
                         "EpiPen. Parents evening is Thursday 12 March at 17:40.\n",
    "People/Fen.md": "# Fen\n\nFen's partner is Idris, a paediatric nurse. Fen paid me "
                     "back the 60 pounds for the concert.\n",
    "Home/Chess.md": "# Chess\n\nMy lichess rating is 1712 in rapid, 1540 in blitz.\n",
    "Home/Boiler.md": "# Boiler\n\nWorcester Bosch boiler from 2021; the warranty runs "
                      "until October 2031 if it is serviced every year.\n",
    "Home/Bike.md": "# Bike\n\nThe bike lock code is 3095; the D-lock's spare key is in "
                    "the hallway drawer.\n",
    "Home/Car.md": "# Car\n\nThe car MOT is due on 3 February. Insurance renews in June.\n",
}
QUESTIONS = (
    "how many days is the JR pass", "what's Rosalind's ring size?",
    "does caspian have any allergies", "when is parents evening?", "who's Fen's partner",
    "what is my lichess rating?", "when does the boiler warranty run out?",
    "what's the bike lock code", "when is the car MOT due?", "did Fen pay me back?",
    "where are we staying in hakone?",
)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[str], RunningServer]]:
    """`mallory serve`'s server in a mode; stopped at the end."""
    started: list[Any] = []

    def start(mode: str) -> RunningServer:
        # 33 questions in a row: more than the chat rate limit allows a minute.
        settings = settings_for_bind(Settings(sync_tokens=(TOKEN,), chat_per_minute=1_000,
                                              retrieval_mode=mode), "127.0.0.1")
        ctx = running_server(tmp_path / f"{mode}.sqlite", token=TOKEN, settings=settings,
                             semantic_env=None if mode == "lexical" else {},
                             semantic_budget_s=SEMANTIC_BUDGET_S)
        started.append(ctx)
        return ctx.__enter__()

    yield start
    for ctx in reversed(started):
        ctx.__exit__(None, None, None)


def indexed(server: RunningServer, timeout_s: float = 120) -> None:
    """Until every conversation unit has its vector, so that each question is judged with
    what the last one stored (none are written in lexical mode)."""
    con, deadline = server.db.connection, time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        units = con.execute("SELECT count(*) AS n FROM conversation_units").fetchone()["n"]
        vectors = con.execute("SELECT count(*) AS n FROM vector_units "
                              "WHERE corpus = 'messages'").fetchone()["n"]
        if vectors >= units:
            return
        time.sleep(0.1)
    raise AssertionError("the messages were not embedded in time")


def cited(server: RunningServer, question: str) -> frozenset[tuple[str, str]]:
    response = httpx.post(f"{server.url}/api/chat", json={"content": question}, timeout=120,
                          headers={"Origin": server.url})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["recall"]["fallback"] is None, answer["recall"]
    if answer["recall"]["mode"] != "lexical":
        indexed(server)
    return frozenset((s["kind"], s["id"]) for s in answer["assistant_message"]["sources"])


@pytest.mark.parametrize("mode", [
    "lexical", pytest.param("adaptive", marks=pytest.mark.embed)])
def test_three_rounds_cite_the_same_notes_and_never_an_echo(
        serve: Callable[[str], RunningServer], tmp_path: Path, mode: str) -> None:
    server = serve(mode)
    vault = tmp_path / "vault"
    for rel, text in VAULT.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    run_hub(server, vault, tmp_path / "hub-state")
    rounds = [[cited(server, q) for q in QUESTIONS] for _ in range(2)]
    uncited = [q for q, c in zip(QUESTIONS, rounds[0], strict=True)
               if not c or {kind for kind, _ in c} != {"note"}]
    assert uncited == [], uncited
    assert rounds[1] == rounds[0]
    # Fen's partner edited out, the chess note deleted: the answers that quoted them are
    # withdrawn, and the questions they answered are no memory.
    (vault / "People/Fen.md").write_text("# Fen\n\nFen moved to Leeds in May.\n",
                                         encoding="utf-8")
    (vault / "Home/Chess.md").unlink()
    run_hub(server, vault, tmp_path / "hub-state")
    third = [cited(server, q) for q in QUESTIONS]
    assert all({kind for kind, _ in c} <= {"note"} for c in third), third
    for q, before, after in zip(QUESTIONS, rounds[0], third, strict=True):
        if "lichess" in q:
            assert after == frozenset(), (q, after)
        elif "Fen" not in q:
            assert after == before, (q, before, after)
