"""How ``hub serve`` and ``hub worker`` write their log: text or JSON lines (``HUB_LOG_FORMAT``)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

TEXT, JSON = "text", "json"
FORMATS = (TEXT, JSON)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (UTC), ``level``, ``logger``, ``message``,
    then the request's fields (see :mod:`hub.api.requests`) when the line is a
    request's, and ``exception`` when one is logged."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(getattr(record, "request", None) or {})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str, format: str = TEXT) -> None:
    """Log to stderr at ``level`` in ``format`` (``text`` or ``json``)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if format == JSON else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler])
