"""POST /api/feedback {message_id, n, judgment}: the owner's 👍/👎 on source [n] of one of
Mallory's answers (README, "HTTP API"; worker/store/feedback.py). An unknown message is a 404, a
source number the answer does not have a 422, a source deleted since a 409; nothing is
stored for any of them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.body import parse_json_model
from shared.api.limits import MAX_FEEDBACK_BODY_BYTES
from shared.api.owner_requests import FeedbackRequest
from worker.http import json_ok, read_body, runtime
from worker.store import feedback
from worker.views import feedback_recorded


async def post_feedback(request: Request) -> JSONResponse:
    rt = runtime(request)
    body = await read_body(request, MAX_FEEDBACK_BODY_BYTES)
    judged = parse_json_model(body, FeedbackRequest, "feedback")
    recorded = await feedback.record(rt.db, judged.message_id, judged.n, judged.judgment,
                                     rt.now_ms())
    return json_ok(feedback_recorded(recorded))


routes = [Route("/api/feedback", post_feedback, methods=["POST"])]
