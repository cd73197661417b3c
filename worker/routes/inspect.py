"""The retrieval inspector (README, "Why these memories"), read-only owner routes:

    GET /api/inspect/search?q=&limit=&source=&vault=&tz=&mode=   a search's trace
    GET /api/inspect/answers/{message_id}?tz=&mode=              an answer's trace
    GET /api/inspect/missing?(q=|answer=)&(vault=&path=|message=)&mode=...

`mode` is honoured as GET /api/search honours it (worker/routes/search.py).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.errors import BadRequest
from shared.rank.policy import AUTOMATIC, EXPLICIT
from worker.config import Runtime
from worker.corpora.filters import Filters
from worker.http import json_ok, runtime
from worker.inspect.answer import AnswerTrace, answer_trace
from worker.inspect.missing import Target, why_missing
from worker.inspect.trace import Trace, search_trace
from worker.routes.search import SearchArgs, requested_mode, requested_zone, search_args
from worker.views import inspect_response, missing_response

MAX_ID_CHARS = 200


async def inspect_search(request: Request) -> JSONResponse:
    rt = runtime(request)
    trace, _ = await _search(request, rt)
    return json_ok(inspect_response(trace, rt.now_ms()))


async def _search(request: Request, rt: Runtime, vault_filter: bool = True
                  ) -> tuple[Trace, SearchArgs]:
    args = await search_args(request, rt, vault_filter)
    return await search_trace(rt.db, args.q, rt.now_ms(), source=args.source,
                              limit=args.limit, vault=args.vault, semantics=rt.semantics,
                              mode=args.mode, zone=args.zone), args


async def _answer(request: Request, rt: Runtime, message_id: str) -> AnswerTrace:
    zone = requested_zone(request, rt) if request.query_params.get("tz") else None
    return await answer_trace(rt.db, message_id, semantics=rt.semantics,
                              mode=requested_mode(request, rt),
                              owner_zone=rt.settings.owner_timezone, zone=zone)


async def inspect_answer(request: Request) -> JSONResponse:
    rt = runtime(request)
    answer = await _answer(request, rt, request.path_params["message_id"])
    return json_ok(inspect_response(answer.trace, rt.now_ms(), answer))


def _one_of(request: Request, names: tuple[str, ...], what: str) -> str:
    given = [n for n in names if request.query_params.get(n)]
    if len(given) != 1:
        raise BadRequest(f"{what}: pass exactly one of {' or '.join(names)}"
                         + (f" (got {', '.join(given)})" if given else ""))
    return given[0]


def _target(request: Request) -> Target:
    params = request.query_params
    if _one_of(request, ("path", "message"), "the missing item") == "message":
        if params.get("vault"):
            raise BadRequest("vault names a note's vault: with message= leave it out")
        return Target("message", params["message"][:MAX_ID_CHARS])
    if not params.get("vault"):
        raise BadRequest("path needs vault: the name of the note's vault")
    return Target("note", params["path"], params["vault"])


async def inspect_missing(request: Request) -> JSONResponse:
    rt = runtime(request)
    subject = _one_of(request, ("q", "answer"), "what it is missing from")
    target = _target(request)
    if subject == "q":
        # `vault` names the target's vault here, not a filter of the search.
        trace, args = await _search(request, rt, vault_filter=False)
        missing = await why_missing(rt.db, trace, target,
                                    Filters(limit=args.limit, pool=EXPLICIT.candidates))
        return json_ok(missing_response(missing, trace, "search", rt.now_ms()))
    answer = await _answer(request, rt, request.query_params["answer"][:MAX_ID_CHARS])
    missing = await why_missing(rt.db, answer.trace, target,
                                Filters(limit=AUTOMATIC.candidates),
                                question_id=answer.question.id)
    return json_ok(missing_response(missing, answer.trace, "answer", rt.now_ms(), answer))


routes = [
    Route("/api/inspect/search", inspect_search, methods=["GET"]),
    Route("/api/inspect/answers/{message_id}", inspect_answer, methods=["GET"]),
    Route("/api/inspect/missing", inspect_missing, methods=["GET"]),
]
