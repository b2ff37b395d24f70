"""The one JSON renderer of the API (API-CONTRACT.md §1: JSON whatever ``Accept`` says, never a 406 or HTML).

Rendering is done by orjson (issue 13): a 500-row hardware page spent about a tenth of its time in the standard
library's encoder. The output is byte for byte what DRF's renderer gives (compact, UTF-8, not ASCII-escaped):
every type orjson would format its own way (dates and times, decimals, lazy strings, UUIDs) is handed to DRF's own
encoder, U+2028 and U+2029 are escaped as DRF escapes them, and anything orjson refuses (an integer beyond 64 bits)
or an indented answer (``Accept: application/json; indent=4``) is rendered by DRF itself.
"""

from __future__ import annotations

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
#: U+2028 and U+2029 in UTF-8: valid JSON, but not valid JavaScript; DRF escapes them.
_SEPARATORS = (("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))
_fallback = JSONEncoder().default


class ApiJSONRenderer(JSONRenderer):
    media_type = "application/json"
    format = "json"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is None:
            try:
                rendered = orjson.dumps(data, default=_fallback, option=_OPTIONS)
            except (orjson.JSONEncodeError, TypeError):
                pass  # DRF's renderer gives the same answer, or the same error, its own way
            else:
                for raw, escaped in _SEPARATORS:
                    if raw in rendered:
                        rendered = rendered.replace(raw, escaped)
                return rendered
        return super().render(data, accepted_media_type, renderer_context)
