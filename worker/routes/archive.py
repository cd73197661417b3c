"""POST /api/import?format=…&dry_run= and GET /api/export[?as=zip]: the owner's
conversations in from another assistant's export file, and everything out (README,
"Import and export")."""

from __future__ import annotations

import io
import json
import zipfile

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from shared.api.errors import BadRequest, InvalidPayload
from shared.api.json_bounds import loads_bounded
from shared.api.limits import MAX_IMPORT_BODY_BYTES
from shared.api.transfer import ImportProblem, ImportResult
from shared.archive import export
from shared.archive.format_names import FORMATS
from shared.archive.formats import PARSERS
from worker.http import json_ok, read_body, runtime
from worker.store import archive, memories

# One request's messages (a D1 batch per message: a Worker invocation may run 1,000);
# its file's size is MAX_IMPORT_BODY_BYTES.
MAX_IMPORT_MESSAGES = 200
TRUTHY = {"1", "true", "yes"}
FALSY = {"", "0", "false", "no"}


async def import_file(request: Request) -> JSONResponse:
    fmt = request.query_params.get("format")
    if fmt not in PARSERS:
        raise BadRequest(f"format must be one of {', '.join(FORMATS)}, got {str(fmt)[:40]!r}")
    raw_dry_run = request.query_params.get("dry_run", "").lower()
    if raw_dry_run not in TRUTHY | FALSY:
        raise BadRequest(f"dry_run must be one of {', '.join(sorted(TRUTHY | FALSY - {''}))}"
                         f" (or absent), got {raw_dry_run[:20]!r}; nothing was stored",
                         code="bad_dry_run")
    dry_run = raw_dry_run in TRUTHY
    data = loads_bounded(await read_body(request, MAX_IMPORT_BODY_BYTES), "import")
    try:
        parsed = PARSERS[fmt](data)
    except ValueError as exc:
        raise BadRequest(str(exc), code="not_an_export") from None
    problems = [ImportProblem(item=p.item, message=p.message) for p in parsed.problems]
    if not parsed.conversations:
        raise InvalidPayload("nothing in the file could be imported; nothing was stored",
                             [p.model_dump() for p in problems])
    if parsed.message_count > MAX_IMPORT_MESSAGES:
        raise BadRequest(f"the file holds {parsed.message_count} messages, more than "
                         f"{MAX_IMPORT_MESSAGES} per request: import it with `mallory "
                         "import`, which sends it in parts", code="import_too_large")
    rt = runtime(request)
    done, extras = archive.Imported(conversations=0, added=0, present=0), \
        archive.Restored(feedback=0, saved_memories=0)
    if not dry_run:
        await archive.restore_forgotten(rt.db, parsed.forgotten, rt.now_ms())
        done = await archive.import_conversations(rt.db, parsed.conversations)
        extras = await archive.restore_extras(rt.db, parsed.feedback, parsed.saved_memories,
                                              parsed.quotes)
    return json_ok(ImportResult(format=fmt, dry_run=dry_run,  # type: ignore[arg-type]
                                conversations=len(parsed.conversations),
                                messages=parsed.message_count, added=done.added,
                                already_present=done.present, forgotten=done.forgotten,
                                feedback=extras.feedback,
                                saved_memories=extras.saved_memories, problems=problems))


async def export_all(request: Request) -> Response:
    rt = runtime(request)
    conversations, messages, feedback = await archive.export_rows(rt.db)
    doc = export.document(conversations, messages, feedback, rt.now_ms(),
                          await memories.list_memories(rt.db),
                          await archive.export_quotes(rt.db),
                          await archive.export_forgotten(rt.db))
    as_ = request.query_params.get("as", "json")
    if as_ == "json":
        return Response(json.dumps(doc, ensure_ascii=False), media_type="application/json",
                        headers={"content-disposition":
                                 'attachment; filename="mallory-export.json"'})
    if as_ != "zip":
        raise BadRequest(f"as must be json or zip, got {as_[:20]!r}")
    buffer, taken = io.BytesIO(), set[str]()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mallory-export.json", json.dumps(doc, ensure_ascii=False, indent=1))
        for conv in doc["conversations"]:
            z.writestr(f"conversations/{export.file_name(conv, taken)}", export.markdown(conv))
    return Response(buffer.getvalue(), media_type="application/zip",
                    headers={"content-disposition": 'attachment; filename="mallory-export.zip"'})


routes = [Route("/api/import", import_file, methods=["POST"]),
          Route("/api/export", export_all, methods=["GET"])]
