"""Results and errors from JS bindings, as the semantic adapters read them."""

from __future__ import annotations

from tests.worker.semantic.js_standins import JsException, JsNull, JsProxy
from worker.semantic.js_results import ERROR_DETAIL_CHARS, error_detail, to_py


def test_proxied_answers_become_plain_python() -> None:
    answer = JsProxy({"count": 1, "matches": [{"id": "a", "score": 0.5, "metadata": JsNull()}]})
    assert to_py(answer) == {"count": 1, "matches": [{"id": "a", "score": 0.5,
                                                      "metadata": None}]}


def test_error_detail_keeps_the_message_and_drops_the_stack() -> None:
    message = "AiError: 3040: Capacity temporarily exceeded"
    assert error_detail(JsException(message)) == message
    long = JsException("VECTOR_QUERY_ERROR " + "at frame\n" * 200)
    assert len(error_detail(long)) == ERROR_DETAIL_CHARS
