"""Log redaction: credentials never reach a log line.

A filter on the handlers rewrites each record's message (and traceback text) before it
is formatted: passwords in URLs (`https://user:secret@host`), bearer tokens, JWTs and
`token=`/`key=`/`secret=`/`password=` pairs. Provider errors quote their base URL, and
httpx exceptions quote the URL they failed on, so this catches what call sites miss.
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
    (re.compile(r"(?i)\b([a-z_\-]*(?:token|secret|password|passwd|api[_\-]?key|"
                r"client[_\-]?secret|authorization|cookie)[\"']?\s*[:=]\s*[\"']?)"
                r"[^\s\"'&,;]+"), rf"\1{MASK}"),
)


def redact(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: log the template, never crash the caller
            message = str(record.msg)
        if redact(message) != message:
            _redact_message(record, message)
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_text = record.exc_text.rstrip("\n")
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def _redact_message(record: logging.LogRecord, message: str) -> None:
    """Redact the secret where it sits, keeping `args` when it is in them: formatters
    such as uvicorn's access log unpack `args` and fail on a record flattened to one
    string. A secret that only appears once formatted flattens the record."""
    if isinstance(record.args, tuple) and isinstance(record.msg, str):
        args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        try:
            kept = redact(record.msg % args) == record.msg % args
        except (TypeError, ValueError):
            kept = False
        if kept:
            record.args = args
            return
    record.msg, record.args = redact(message), None


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
