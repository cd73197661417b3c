"""No echoes, over HTTP through the app on real SQLite with the offline responder: the
same questions asked three times cite the same notes each round (their earlier answers
quoted those notes and add nothing to them), and once a note is deleted the earlier
question is not recalled as if it were a memory."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import LOCAL_OWNER, NOW_MS, TOKEN, note, sync
from worker.config import Settings

NOTES = (
    note("Work/Kubernetes upgrade.md", "Priya owns the kubernetes upgrade to 1.31; the "
         "staging cluster goes first, production the week after.", title="Kubernetes upgrade"),
    note("Home/Gym.md", "Gym locker combination: 4-17-22. Locker 112, second row.",
         title="Gym"),
    note("Home/Bike.md", "The bike lock code is 0815; the spare lock key hangs by the door.",
         title="Bike"),
    note("Home/Boiler.md", "The boiler service is due every October; call Marco on "
         "07700 900123.", title="Boiler"),
    note("Garden/Roses.md", "Prune the roses in late winter, just above an outward bud.",
         title="Roses"),
    note("Travel/Passport.md", "Passport number ends 4471 and expires in March 2029.",
         title="Passport"),
    note("Cars/Service.md", "The car service is at Hendry Motors; the last one was in "
         "April at 42,000 miles.", title="Car service"),
    note("Home/Wifi.md", "Guest wifi network 'Orchard', password pear-tree-88.",
         title="Wifi"),
    note("Health/Dentist.md", "Dentist: Dr Okafor at Riverside Dental, check-ups every "
         "six months.", title="Dentist"),
    note("Home/Bins.md", "Recycling day is Tuesday; the general waste bin goes out every "
         "other Thursday.", title="Bins"),
)
QUESTIONS = (
    "who owns the kubernetes upgrade?",
    "what is my gym locker combination?",
    "what is the bike lock code?",
    "when is the boiler service due?",
    "when should I prune the roses?",
    "when does my passport expire?",
    "where is the car serviced?",
    "what is the guest wifi password?",
    "who is my dentist?",
    "when is recycling day?",
)


@pytest.fixture
def settings() -> Settings:
    # Thirty questions in a row: more than the chat rate limit allows a minute.
    return Settings(sync_tokens=(TOKEN,), chat_per_minute=1_000, **LOCAL_OWNER)


async def ask(client: httpx.AsyncClient, text: str) -> dict:
    response = await client.post("/api/chat", json={"content": text})
    assert response.status_code == 200, response.text
    return response.json()


def cited(answer: dict) -> set[tuple[str, str]]:
    return {(s["kind"], s["id"]) for s in answer["assistant_message"]["sources"]}


async def test_the_same_questions_cite_the_same_notes_on_every_round(
        client: httpx.AsyncClient) -> None:
    await sync(client, *NOTES)
    rounds = [[cited(await ask(client, q)) for q in QUESTIONS] for _ in range(3)]
    assert all(any(kind == "note" for kind, _ in c) for c in rounds[0])
    assert rounds[1] == rounds[0] and rounds[2] == rounds[0]


async def test_after_the_note_is_deleted_the_earlier_question_is_no_source(
        client: httpx.AsyncClient) -> None:
    await sync(client, *NOTES)
    first = await ask(client, "what is my gym locker combination?")
    assert ("note", "Home/Gym.md") in cited(first)
    await sync(client, batch_id="gone", deletes=[{"path": "Home/Gym.md",
                                                  "deleted_at": NOW_MS}])
    again = await ask(client, "what is my gym locker combination?")
    assert first["user_message"]["id"] not in {s["id"] for s in
                                               again["assistant_message"]["sources"]}
    found = (await client.get("/api/search", params={"q": "gym locker combination"})).json()
    assert [h["id"] for h in found["hits"]][:1] != [first["user_message"]["id"]]


# What the owner told Mallory in chat, and a question for each, asked in new conversations.
TOLD = (
    ("My passport is in the top drawer of the oak desk in the study.",
     "where is my passport?"),
    ("Remember this: the spare key for the shed is under the blue geranium pot.",
     "where did I say the spare shed key is hidden?"),
    ("The plumber who fixed the leak last spring was Tomasz from Brightwater Plumbing.",
     "who was the plumber that fixed the leak?"),
)


async def test_what_the_owner_told_is_cited_itself_on_every_round(
        client: httpx.AsyncClient) -> None:
    """A past answer that quoted an earlier message is an echo of that message: the
    message itself is recalled and cited in its place, round after round, and explicit
    search ranks it above the echoes."""
    told = {q: (await ask(client, fact))["user_message"]["id"] for fact, q in TOLD}
    for _ in range(3):
        for q, original in told.items():
            answer = await ask(client, q)
            assert cited(answer) == {("message", original)}, (q, cited(answer))
    for q, original in told.items():
        found = (await client.get("/api/search", params={"q": q})).json()
        assert found["hits"][0]["id"] == original, (q, [h["label"] for h in found["hits"]])


async def test_a_question_nothing_answered_is_no_memory_the_second_time(
        client: httpx.AsyncClient) -> None:
    """The offline responder's "found nothing" and its greeting say nothing of their own:
    they are not indexed, so asking again recalls no earlier "found nothing", and a search
    for the responder's own words finds none of them (worker/offline_replies.py)."""
    await sync(client, *NOTES)
    asked = "what did Svetlana want from me?"
    first = await ask(client, asked)
    assert cited(first) == set()
    assert (await ask(client, "hello!"))["assistant_message"]["content"].startswith("Hello")
    again = await ask(client, asked)
    assert cited(again) == set() and again["recall"]["injected"] == 0
    for words in ("dig deeper", "language model", "what memory holds"):
        found = (await client.get("/api/search", params={"q": words})).json()
        assert found["hits"] == [], (words, [h["snippet"] for h in found["hits"]])
    # The question itself is still in history and in search, as what the owner asked.
    found = (await client.get("/api/search", params={"q": asked})).json()
    assert first["user_message"]["id"] in [h["id"] for h in found["hits"]]


# Typed as chat is typed, without question marks, and about notes that hold more than one
# answer: each earlier exchange matches the next question as well as the note does.
OVERLAPPING = (
    note("Family/Caspian.md", "Caspian is allergic to peanuts and tree nuts and carries an "
         "EpiPen. Parents evening is Thursday 12 March at 17:40.", title="Caspian"),
    note("Travel/Japan trip.md", "The JR pass is 14 days, activated at Narita. Two nights "
         "at a ryokan in Hakone, then five in Kyoto.", title="Japan trip"),
    note("People/Fen.md", "Fen's partner is Idris, a paediatric nurse. Fen paid me back "
         "the 60 pounds for the concert.", title="Fen"),
)
UNMARKED = (
    "does caspian have any allergies", "when is parents evening", "how many days is the "
    "JR pass", "where are we staying in hakone", "who's Fen's partner",
    "did Fen pay me back",
)


async def test_questions_typed_without_a_mark_cite_the_notes_on_every_round(
        client: httpx.AsyncClient) -> None:
    """An exchange whose question has no "?" is still a question, and its answer, which
    only repeats the note, an echo: never cited in the note's place, even where the note
    would not pass the gate (shared/text/questions.py, worker/recall/echoes.py)."""
    await sync(client, *OVERLAPPING)
    rounds = [[cited(await ask(client, q)) for q in UNMARKED] for _ in range(3)]
    assert all(c and all(kind == "note" for kind, _ in c) for c in rounds[0]), rounds[0]
    assert rounds[1] == rounds[0] and rounds[2] == rounds[0]


async def test_a_question_whose_answer_was_withdrawn_is_no_memory(
        client: httpx.AsyncClient) -> None:
    """The note edited, the answer that quoted it is withdrawn: what is left, the bare
    question, is not recalled, with or without its mark."""
    await sync(client, *OVERLAPPING)
    first = await ask(client, "who's Fen's partner")
    assert cited(first) == {("note", "People/Fen.md")}
    await sync(client, note("People/Fen.md", "Fen moved to Leeds in May.", title="Fen",
                            mtime=NOW_MS), batch_id="edited")
    again = await ask(client, "who's Fen's partner")
    assert first["user_message"]["id"] not in {s["id"] for s in
                                               again["assistant_message"]["sources"]}
    assert all(kind == "note" for kind, _ in cited(again))


async def test_a_thumbs_down_is_not_undone_by_the_echoes_of_its_note(
        client: httpx.AsyncClient) -> None:
    await sync(client, *NOTES)
    asked = "when is the boiler service due?"
    answers = [await ask(client, asked) for _ in range(2)]
    assert all(cited(a) == {("note", "Home/Boiler.md")} for a in answers)
    voted = await client.post("/api/feedback", json={
        "message_id": answers[-1]["assistant_message"]["id"], "n": 1,
        "judgment": "irrelevant"})
    assert voted.status_code == 200, voted.text
    after = await ask(client, asked)
    # Neither the note judged irrelevant nor an earlier answer that only repeated it.
    assert ("note", "Home/Boiler.md") not in cited(after)
    assert all(kind == "note" for kind, _ in cited(after)), cited(after)
