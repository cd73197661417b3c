"""Issue 12 end to end over HTTP, on a real local server (uvicorn) with the real hub
executable syncing a vault folder; the chat model is an OpenAI-compatible endpoint
stubbed with respx (the request it receives shows the Recall block).

- A fact in section 37 of a 17 KB note: explicit search puts the note in its top 3 with
  that section's snippet and a link to the heading, and automatic recall injects it.
- "How did you say I should clean X?" finds Mallory's reply, linked by its message id.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import respx

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from shared.block.envelope import CLOSE, OPEN
from tests.e2e import long_note
from tests.e2e.hubs import run_hub, write
from worker.config import Settings

MODEL_URL = "https://llm.example/v1/chat/completions"
PAN_QUESTION = "how do I clean the cast iron pan?"
PAN_REPLY = ("Scrub the cast iron pan with coarse salt and a splash of oil, rinse it in hot "
             "water without soap, dry it on the hob and wipe on a thin coat of oil.")


def answer(text: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant",
                                                              "content": text}}]})


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = settings_for_bind(Settings(
        sync_tokens=("e2e-token",), model_provider="openai",
        openai_base_url="https://llm.example/v1", openai_api_key="k", openai_model="m"),
        "127.0.0.1")
    with running_server(tmp_path / "sections.sqlite", token="e2e-token",
                        settings=settings) as s:
        yield s


@pytest.fixture
def model() -> Iterator[respx.Route]:
    """The model endpoint; requests to the local server pass through untouched."""
    with respx.mock(assert_all_called=False) as mock:
        mock.route(host="127.0.0.1").pass_through()
        yield mock.post(MODEL_URL)


def recall_block(route: respx.Route) -> str:
    user_turn = json.loads(route.calls.last.request.content)["messages"][-1]["content"]
    if OPEN not in user_turn:
        return ""
    return user_turn[user_turn.index(OPEN):user_turn.index(CLOSE) + len(CLOSE)]


def chat(server: RunningServer, content: str, **extra: str) -> dict:
    response = httpx.post(f"{server.url}/api/chat", json={"content": content, **extra},
                          headers={"origin": server.url}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def search(server: RunningServer, q: str) -> list[dict]:
    response = httpx.get(f"{server.url}/api/search", params={"q": q})
    assert response.status_code == 200, response.text
    return response.json()["hits"]


def test_a_fact_in_section_37_of_a_long_note_is_found_and_recalled(
        server: RunningServer, model: respx.Route, tmp_path: Path) -> None:
    vault = tmp_path / "Home"
    text = long_note.body()
    assert 16_000 <= len(text.encode()) <= 18_500 and text.count("\n## ") == 40
    write(vault, long_note.PATH, text)
    write(vault, "Home/Heating.md", "The heating comes on at 6:30 and goes off at 22:00.")
    run_hub(server, vault, tmp_path / "hub-state")

    hits = search(server, long_note.QUESTION)
    top = [h["id"] for h in hits[:3]]
    assert long_note.PATH in top, hits
    hit = hits[top.index(long_note.PATH)]
    assert hit["label"] == f"{long_note.TITLE} › {long_note.FACT_HEADING}"
    assert hit["heading"] == long_note.FACT_HEADING
    assert "1.3 bar" in hit["snippet"]
    assert hit["href"].endswith("%23" + quote(long_note.FACT_HEADING, safe=""))

    model.mock(return_value=answer("It should read 1.3 bar when cold [1]."))
    turn = chat(server, long_note.QUESTION)
    assert turn["recall"]["error"] is None and turn["recall"]["injected"] >= 1
    block = recall_block(model)
    assert f"[1] note «{long_note.TITLE} › {long_note.FACT_HEADING}»" in block
    assert "1.3 bar" in block
    [source] = turn["assistant_message"]["sources"]
    assert source["label"] == hit["label"] and source["href"] == hit["href"]


def test_how_did_you_say_finds_the_reply_and_links_to_it(server: RunningServer,
                                                          model: respx.Route) -> None:
    model.mock(return_value=answer(PAN_REPLY))
    first = chat(server, PAN_QUESTION)
    reply_id = first["assistant_message"]["id"]
    model.mock(return_value=answer("Soak the oven shelves overnight in the bath."))
    chat(server, "thanks, and the oven shelves?", conversation_id=first["conversation_id"])

    hits = search(server, "how did you say I should clean the cast iron pan")
    messages = [h for h in hits if h["kind"] == "message"]
    assert messages and messages[0]["id"] == reply_id, messages
    assert messages[0]["href"] == f"/?msg={reply_id}"
    assert "coarse salt" in messages[0]["snippet"]

    model.mock(return_value=answer("I said to scrub it with coarse salt and oil [1]."))
    later = chat(server, "how did you say I should clean the cast iron pan?")
    assert later["conversation_id"] != first["conversation_id"]
    assert later["recall"]["injected"] >= 1
    block = recall_block(model)
    assert "[1] " in block and "coarse salt" in block.split("[2]")[0]
    [source] = later["assistant_message"]["sources"]
    assert (source["kind"], source["id"], source["href"]) == (
        "message", reply_id, f"/?msg={reply_id}")
    linked = httpx.get(f"{server.url}/api/messages/{reply_id}")
    assert linked.status_code == 200 and linked.json()["message"]["content"] == PAN_REPLY


MANUAL = """# House manual
Everything about running the house, room by room, for whoever is looking after it.
The spare keys hang inside the pantry door; the fuse box is under the stairs.

## Boiler
The boiler is a Vaillant ecoTEC from 2019, in the utility room beside the washer.
It heats the radiators and the hot water cylinder, on the timer by the back door.

The pressure gauge should read 1.3 bar when the system is cold; top it up at the
filling loop under the boiler, a quarter turn at a time, until the needle settles. ^pressure-1

The installer services it every autumn; the certificate is filed in the blue folder
together with the warranty card and the original installation invoice from 2019.

## Garden
The lawn mower lives in the shed; the key is on the hook beside the back door.
Compost the grass cuttings in the left bay, the one with the wooden lid, never the right.
Water the vegetable beds in the evening from the butt by the greenhouse, not the tap.
"""


def test_a_hit_links_to_the_block_its_best_paragraph_carries(
        server: RunningServer, model: respx.Route, tmp_path: Path) -> None:
    """Obsidian's URI opens a block with `%23%5E` (issue 12): when the best-matching
    paragraph of the hit's section ends with a block id, the link opens that block; when
    it carries none, the section's heading."""
    vault = tmp_path / "Home"
    write(vault, "House manual.md", MANUAL)
    run_hub(server, vault, tmp_path / "hub-state")
    base = "obsidian://open?vault=Home&file=House%20manual"

    [hit] = [h for h in search(server, "boiler pressure filling loop") if
             h["id"] == "House manual.md"]
    assert hit["label"] == "House manual › Boiler" and hit["heading"] == "Boiler"
    assert hit["href"] == f"{base}%23%5Epressure-1"

    [hit] = [h for h in search(server, "boiler installer certificate warranty") if
             h["id"] == "House manual.md"]
    assert hit["href"] == f"{base}%23Boiler"  # that paragraph has no block id

    [hit] = [h for h in search(server, "lawn mower shed") if h["id"] == "House manual.md"]
    assert hit["href"] == f"{base}%23Garden"

    model.mock(return_value=answer("Top it up to 1.3 bar at the filling loop [1]."))
    turn = chat(server, "what should the boiler pressure read at the filling loop?")
    [source] = turn["assistant_message"]["sources"]
    assert source["href"] == f"{base}%23%5Epressure-1"
    assert source["label"] == "House manual › Boiler"
