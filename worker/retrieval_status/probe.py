"""Whether the embedder answers now (GET /status): one short query embedded within a
bound, so /status says "lexical" when every recall would step down to it, rather than
the configured mode as if all were well (README, "HTTP API": /status's `retrieval`)."""

from __future__ import annotations

import asyncio

from worker.semantic.ports import SemanticError
from worker.semantic.semantics import Semantics

PROBE_TEXT = "status"
# Longer than recall's own budget (SEMANTIC_BUDGET_S): one slow answer is no outage, and a
# probe that times out where recall would have waited is a false alarm.
PROBE_BUDGET_S = 2.0


async def embedder_problem(semantics: Semantics) -> str | None:
    """None when the embedder answered, else what went wrong, in words."""
    budget = max(PROBE_BUDGET_S, semantics.budget_s)
    try:
        await asyncio.wait_for(semantics.embedder.embed([PROBE_TEXT], "query"), budget)
    except TimeoutError:
        return f"the embedder did not answer within {budget:g} s"
    except SemanticError as exc:
        return f"the embedder failed: {str(exc)[:300]}"
    except Exception as exc:  # an adapter bug is still an embedder that does not work
        return f"the embedder failed: {type(exc).__name__}"
    return None
