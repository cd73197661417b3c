"""GET /api/search?q=&limit=&source=&vault=&tz=&mode=: explicit recall. `vault` (a vault's name,
as in `mallory-hub --vault-name`) keeps only that vault's notes; an unknown name is a 400
that lists the known ones, so a typo never looks like "nothing found". `tz` (an IANA
zone, the web client sends its own) is the zone time words are read in when
OWNER_TIMEZONE is not set."""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfoNotFoundError

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.errors import BadRequest
from shared.rank.policy import EXPLICIT, EXPLICIT_MAX_LIMIT
from shared.time.zones import Zone, load_zone, pick_zone
from worker.config import Runtime
from worker.corpora.filters import SOURCES, SourceFilter
from worker.http import int_param, json_ok, runtime
from worker.recall.explicit import search as explicit_search
from worker.recall.retrieval_mode import MODES, RetrievalMode
from worker.store import vaults
from worker.views import search_response


def requested_mode(request: Request, rt: Runtime) -> RetrievalMode:
    """`mode` when the request names one (a bad name, or a semantic mode without an
    embedder, is a 400: never silently another mode); else the Runtime's."""
    raw = request.query_params.get("mode")
    if raw is None or raw == "":
        return rt.mode
    if raw not in MODES:
        raise BadRequest(f"mode must be one of {', '.join(MODES)}, got {raw[:40]!r}")
    mode = RetrievalMode(raw)
    if mode is not RetrievalMode.LEXICAL and rt.semantics is None:
        raise BadRequest(f"mode {raw} needs an embedder, and none is set up (GET /status "
                         "says how recall runs): ask for mode=lexical or leave mode out",
                         code="mode_unavailable")
    return mode


@dataclass(frozen=True)
class SearchArgs:
    """GET /api/search's parameters, checked (the inspector takes the same)."""

    q: str
    source: SourceFilter
    limit: int
    vault: str | None
    mode: RetrievalMode
    zone: Zone


async def search_args(request: Request, rt: Runtime, vault_filter: bool = True
                      ) -> SearchArgs:
    """`vault_filter`: `vault` keeps the search to that vault (else it is not read here)."""
    q = request.query_params.get("q")
    if q is None:
        raise BadRequest("missing q: pass the search text as ?q=")
    source = request.query_params.get("source", "all")
    if source not in SOURCES:
        raise BadRequest(f"source must be one of {', '.join(SOURCES)}, got {source[:40]!r}")
    limit = int_param(request, "limit", EXPLICIT.max_hits, 1, EXPLICIT_MAX_LIMIT)
    vault = (request.query_params.get("vault") or None) if vault_filter else None
    if vault is not None:
        known = await vaults.names(rt.db)
        if vault not in known:
            raise BadRequest(f"vault: no vault is named {vault[:200]!r}; known vaults: "
                             f"{', '.join(map(repr, known)) or 'none yet'}")
    return SearchArgs(q=q, source=source, limit=limit, vault=vault,  # type: ignore[arg-type]
                      mode=requested_mode(request, rt), zone=requested_zone(request, rt))


def requested_zone(request: Request, rt: Runtime) -> Zone:
    """The zone time words are read in: OWNER_TIMEZONE, else `tz` (400 when it is not an
    IANA zone), else UTC."""
    tz = request.query_params.get("tz") or None
    if tz is not None:
        try:
            load_zone(tz)
        except (ValueError, ZoneInfoNotFoundError):
            raise BadRequest(f"tz must be an IANA time zone such as Europe/Rome, got "
                             f"{tz[:64]!r}") from None
    return pick_zone(rt.settings.owner_timezone, tz)


async def search(request: Request) -> JSONResponse:
    rt = runtime(request)
    args = await search_args(request, rt)
    now = rt.now_ms()
    result = await explicit_search(rt.db, args.q, now, source=args.source, limit=args.limit,
                                   vault=args.vault, semantics=rt.semantics, mode=args.mode,
                                   zone=args.zone)
    return json_ok(search_response(result, now))


routes = [Route("/api/search", search, methods=["GET"])]
