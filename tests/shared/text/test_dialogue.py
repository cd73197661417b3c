"""Dialogue acts: social and meta messages skip automatic recall; requests do not."""

from __future__ import annotations

import pytest

from shared.text.dialogue import dialogue_act


@pytest.mark.parametrize("text", [
    "hi!", "hi there!", "thanks!", "thank you so much!", "ok", "ok sounds good",
    "haha nice one", "good morning Mallory", "thanks, the soup was great",
    "thanks, the pizza was great", "ok let's continue", "good night!",
    "nice, baklava for dessert tonight", "brb, walking the dog", "what's up?",
    "great, backup done, thanks a lot", "perfect, that's all for now",
    "merci beaucoup !", "danke, bis morgen", "sorry the wifi dropped, go on",
    "you rock", "you are so clever", "great job on that one", "that makes sense now",
    "I appreciate the help with the window thing", "you're a lifesaver, the boiler works",
])
def test_social_messages(text: str) -> None:
    assert dialogue_act(text) == "social"


@pytest.mark.parametrize("text", [
    "can you say that again but shorter", "please rephrase", "what do you mean?",
    "translate that", "make it shorter", "rewrite it more formally",
    "can you fix that for me", "how do I do that?", "what about the other one?",
    "explain that better", "is that right?", "show me an example of it",
    "can you put that in a list", "turn this into a checklist", "make it a table",
    "summarise that as bullet points",
])
def test_meta_requests_about_the_conversation(text: str) -> None:
    assert dialogue_act(text) == "meta"


@pytest.mark.parametrize("text", [
    "thanks! what was the oven temperature for the pizza?",
    "ok, remind me what Marco wanted", "when is the car service due?",
    "sourdough", "kitchen renovation budget", "thanks, and the sourdough hydration?",
    "hi, how long do I bake the sourdough?", "ok where did I put the spare keys",
    "I stored the spare keys in the blue ceramic jar",
    "what did the dentist say about my toothbrush",
    "how do I fix the leaking tap?", "what was that recipe with the lentils",
    "is that router password still valid?", "rewrite the cover letter for the Lisbon job",
    "you said the boiler needs what pressure?",
    # quoted words are mentioned, not said: a task, not a farewell
    'translate "good night" into Greek', "translate \u201cthank you\u201d into Japanese",
    "put the reading list in order of length", "what's on my reading list",
])
def test_requests_and_statements_still_recall(text: str) -> None:
    assert dialogue_act(text) == "request"
