"""Search for words that are nowhere in memory, over real HTTP (`mallory serve`'s server,
the local MiniLM in adaptive mode): a name edited out of a note and synced lists nothing,
in lexical and adaptive mode alike, while a word the vault still holds finds its note
(README, "Recall that knows when it knows": explicit search drops hits only the vector
list holds whose estimate is under the related floor)."""

from __future__ import annotations

import time

import httpx
import pytest

from local.thread_server import RunningServer
from shared.api.sync_payload import NoteUpsert
from tests.conftest import note

pytestmark = pytest.mark.embed

VAULT = {"vault_id": "0b0e0a0d-5e5e-4000-8000-0000000000aa", "vault": "Home"}
BEFORE = ("The loft conversion starts in March. Mr Kowalczyk is the builder; the "
          "scaffolding comes from Hendry Hire scaffolding on Mill Lane.")
AFTER = ("The loft conversion starts in March. The builder is booked; the scaffolding "
         "comes from a local firm on Mill Lane.")
OTHERS = [
    ("Garden/Tomatoes.md", "Tomato care", "Tomato blight shows as brown spots; remove the "
     "affected leaves and water at the base in the morning."),
    ("Car/Service.md", "Car service", "The car service is due in May at the garage on "
     "Station Road; ask them to check the brake pads."),
    ("Recipes/Sourdough.md", "Sourdough", "Feed the starter twice a day and bake at 250 C "
     "with steam for the first twenty minutes."),
    ("Health/Dentist.md", "Dentist", "Dentist check-up every six months; the practice is "
     "on the high street and opens at eight."),
    ("Money/Pension.md", "Pension", "Pension contributions go up to eight percent in "
     "April; review the fund choice every year."),
    ("Travel/Lisbon.md", "Lisbon trip", "Lisbon in October: the tram 28 route, pastéis de "
     "nata in Belém, and the castle at sunset."),
]


def push(server: RunningServer, batch_id: str, upserts: list[NoteUpsert]) -> None:
    hub = {"authorization": f"Bearer {server.token}"}
    contact = httpx.post(f"{server.url}/vault/heartbeat", json=VAULT, headers=hub)
    assert contact.status_code == 200, contact.text
    body = {"batch_id": batch_id, **VAULT, "seq": contact.json()["vault"]["seq"],
            "upserts": [u.model_dump() for u in upserts], "deletes": []}
    response = httpx.post(f"{server.url}/vault/sync", json=body, headers=hub, timeout=60)
    assert response.status_code == 200, response.text


# Units still without a vector, by corpus.
PENDING_SQL = {
    "notes": "SELECT count(*) AS n FROM note_sections s WHERE NOT EXISTS (SELECT 1 FROM "
             "vector_units v WHERE v.corpus = 'notes' AND v.unit_id = s.unit_id)",
    "messages": "SELECT count(*) AS n FROM conversation_units u WHERE NOT EXISTS (SELECT 1 "
                "FROM vector_units v WHERE v.corpus = 'messages' AND v.unit_id = u.id)",
}


def wait_current(server: RunningServer, corpus: str = "notes", timeout_s: float = 180) -> None:
    """Until every unit of the corpus has a vector (an edited note's new text included)."""
    con, deadline = server.db.connection, time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if con.execute(PENDING_SQL[corpus]).fetchone()["n"] == 0:
            return
        time.sleep(0.2)
    raise AssertionError(f"the {corpus} were not embedded in time")


def search(server: RunningServer, q: str) -> dict:
    response = httpx.get(f"{server.url}/api/search", params={"q": q}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("mode", ["lexical", "adaptive"])
def test_a_name_edited_out_of_a_note_finds_nothing(serve_mode, mode: str) -> None:
    server = serve_mode(mode)
    others = [note(path, text, title=title) for path, title, text in OTHERS]
    push(server, "first", [note("Home/Loft.md", BEFORE, title="Loft conversion"), *others])
    if mode != "lexical":
        wait_current(server)
    assert [h["id"] for h in search(server, "Kowalczyk")["hits"]] == ["Home/Loft.md"]

    push(server, "edit", [note("Home/Loft.md", AFTER, title="Loft conversion")])
    if mode != "lexical":
        wait_current(server)
    for gone in ("Kowalczyk", "Hendry Hire scaffolding", "Kowalczyk builder"):
        found = search(server, gone)
        assert found["mode"] == mode and found["fallback"] is None
        # "scaffolding" and "builder" are still in the note: it alone may be listed.
        assert {h["id"] for h in found["hits"]} <= {"Home/Loft.md"}, (gone, found["hits"])
    assert search(server, "Kowalczyk")["hits"] == []
    # A word the vault still holds still finds its note.
    assert search(server, "tomato blight")["hits"][0]["id"] == "Garden/Tomatoes.md"


TOPICS = ("boiler service", "bike tyres", "garden shed", "tax return", "piano lessons",
          "dog walker", "kitchen tiles", "train season ticket", "library books", "gym class")


def test_a_word_nowhere_in_a_larger_memory_lists_nothing_in_adaptive_mode(serve_mode) -> None:
    """More notes and exchanges than explicit search weighs (shared.rank.policy.EXPLICIT's
    depth): the vector list still holds the nearest of them, and none may be listed for
    a word that is nowhere in memory."""
    server = serve_mode("adaptive")
    notes = [note(f"Life/n{i}.md", f"Notes on the {TOPICS[i % len(TOPICS)]}, week {i}: "
                  f"call on day {i % 7 + 1} and keep the receipt.", title=f"Week {i}")
             for i in range(45)]
    push(server, "many", notes)
    for i in range(15):
        response = httpx.post(f"{server.url}/api/chat", timeout=120,
                              headers={"Origin": server.url},
                              json={"content": f"Remind me about the {TOPICS[i % 10]} on day {i}."})
        assert response.status_code == 200, response.text
    wait_current(server)
    wait_current(server, "messages")
    for gone in ("Kowalczyk", "zzqx", "xylophone"):
        found = search(server, gone)
        assert (found["mode"], found["fallback"]) == ("adaptive", None)
        assert found["hits"] == [], (gone, [h["id"] for h in found["hits"]])
    # A word memory holds still finds its notes and exchanges.
    piano = [h["id"] for h in search(server, "piano lessons")["hits"]]
    assert {f"Life/n{i}.md" for i in range(4, 45, 10)} <= set(piano), piano
