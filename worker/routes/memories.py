"""Saved memories (worker/store/memories.py): GET /api/memories lists them, POST saves a
fact the owner approved, PATCH corrects one, DELETE forgets one as DELETE
/api/messages/{id} forgets a message (the same withdrawals, the vectors dropped)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.body import parse_json_model
from shared.api.limits import MAX_MEMORY_BODY_BYTES
from shared.api.owner_requests import MemoryEditRequest, MemoryRequest
from worker.db.scrub import scrub
from worker.http import json_ok, read_body, runtime
from worker.indexing.scheduling import forget_vectors, schedule_indexing
from worker.store import memories
from worker.views import forgotten, memories_page, memory_edited, memory_out


async def list_memories(request: Request) -> JSONResponse:
    return json_ok(memories_page(await memories.list_memories(runtime(request).db)))


async def save_memory(request: Request) -> JSONResponse:
    rt = runtime(request)
    body = await read_body(request, MAX_MEMORY_BODY_BYTES)
    wanted = parse_json_model(body, MemoryRequest, "memory")
    memory = await memories.save(rt.db, wanted.fact, wanted.source_message_id, rt.now_ms())
    schedule_indexing(rt, ("messages",))
    return json_ok(memory_out(memory))


async def edit_memory(request: Request) -> JSONResponse:
    rt = runtime(request)
    body = await read_body(request, MAX_MEMORY_BODY_BYTES)
    wanted = parse_json_model(body, MemoryEditRequest, "memory")
    memory, gone = await memories.edit(rt.db, request.path_params["memory_id"], wanted.fact,
                                       rt.now_ms())
    await scrub(rt.db)
    await forget_vectors(rt, gone.vector_ids)  # embeds the new fact too
    return json_ok(memory_edited(memory, gone))


async def delete_memory(request: Request) -> JSONResponse:
    rt = runtime(request)
    memory_id = request.path_params["memory_id"]
    gone = await memories.delete(rt.db, memory_id, rt.now_ms())
    await scrub(rt.db)
    await forget_vectors(rt, gone.vector_ids)
    return json_ok(forgotten(memory_id, gone))


routes = [Route("/api/memories", list_memories, methods=["GET"]),
          Route("/api/memories", save_memory, methods=["POST"]),
          Route("/api/memories/{memory_id}", edit_memory, methods=["PATCH"]),
          Route("/api/memories/{memory_id}", delete_memory, methods=["DELETE"])]
