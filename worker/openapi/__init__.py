"""GET /openapi.json: the HTTP API described from the routes' pydantic models."""
