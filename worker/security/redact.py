"""Log redaction: credentials never reach a log line.

A filter on the handlers rewrites each record's message (and traceback text) before it
is formatted: passwords in URLs (`https://user:secret@host`), bearer tokens, JWTs and
credential-like pairs (`token=`, `key=`, `secret=`, `password=`, `auth…=`, `sig…=`,
`cookie:`). Provider errors quote their base URL, and httpx exceptions quote the URL they
failed on, so this catches what call sites miss. The owner's memory stays out of logs
too: search text in a URL (`?q=`, the access log's request line) is masked unless the
logger is at DEBUG.
"""

from __future__ import annotations

import logging
import re
import traceback

MASK = "***"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host → scheme://user:***@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s/:@]*):[^\s/@]+@"), rf"\1:{MASK}@"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{4,}"), rf"\1 {MASK}"),
    # JWTs: three base64url parts, the first one a JSON header ("eyJ").
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"), MASK),
    # name=value, name: value, "name": "value" for any credential-like name: …token,
    # …secret, …password, …key (api_key, key), auth… (authorization, auth_token),
    # sig… (sig, signature), cookie.
    (re.compile(r"(?i)\b([a-z_\-]*(?:token|secret|password|passwd|key|cookie)|"
                r"(?:auth|sig)[a-z_\-]*)([\"']?\s*[:=]\s*[\"']?)"
                r"[^\s\"'&,;]+"), rf"\1\2{MASK}"),
)
# What the owner searched for or said: in a URL's query (the access log's request line).
# Kept only when the record's logger is enabled for DEBUG (mallory serve --log-level debug).
_MEMORY = re.compile(r"(?i)([?&](?:q|query|content|text|message)=)[^\s&#\"]*")


def redact(text: str, memory: bool = True) -> str:
    """`text` with credentials masked and, unless `memory` is False, with search and chat
    text in URLs masked too."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return _MEMORY.sub(rf"\1{MASK}", text) if memory else text


def _memory_hidden(record: logging.LogRecord) -> bool:
    return not logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: log the template, never crash the caller
            message = str(record.msg)
        memory = _memory_hidden(record)
        if redact(message, memory) != message:
            _redact_message(record, message, memory)
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            text = "".join(traceback.format_exception(*record.exc_info))
            record.exc_text = redact(text, memory).rstrip("\n")
        if record.stack_info:
            record.stack_info = redact(record.stack_info, memory)
        return True


def _redact_message(record: logging.LogRecord, message: str, memory: bool) -> None:
    """Redact the secret where it sits, keeping `args` when it is in them: formatters
    such as uvicorn's access log unpack `args` and fail on a record flattened to one
    string. A secret that only appears once formatted flattens the record."""
    if isinstance(record.args, tuple) and isinstance(record.msg, str):
        args = tuple(redact(a, memory) if isinstance(a, str) else a for a in record.args)
        try:
            kept = redact(record.msg % args, memory) == record.msg % args
        except (TypeError, ValueError):
            kept = False
        if kept:
            record.args = args
            return
    record.msg, record.args = redact(message, memory), None


_FILTER = RedactingFilter()


def install_log_redaction(*loggers: logging.Logger) -> None:
    """Put the filter on every handler of `loggers` (root by default) and on Python's
    last-resort handler, which is what writes a Worker's warnings when nothing configured
    logging. Call again after configuring logging (new handlers). Idempotent."""
    for logger in loggers or (logging.getLogger(),):
        _install(logger)


def _install(logger: logging.Logger) -> None:
    handlers = [*logger.handlers, *([logging.lastResort] if logging.lastResort else [])]
    for handler in handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
