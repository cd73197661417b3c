"""Mallory's memory as an MCP server (Streamable HTTP, JSON-RPC 2.0; README, "MCP")."""
