"""The multipart parser of file uploads (issue 27)."""

from __future__ import annotations

import html
import re

from django.conf import settings
from django.http.multipartparser import MultiPartParser as DjangoMultiPartParser
from django.http.multipartparser import MultiPartParserError
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, MultiPartParser

from activity.files import CLIMBING_PREFIX


class _NameKeepingParser(DjangoMultiPartParser):
    """Django keeps only the last part of an upload's name (``../../etc/passwd.pdf`` → ``passwd.pdf``), so the service
    could not tell that the client sent a name climbing out of its folder. Such a name keeps a mark
    (:data:`activity.files.CLIMBING_PREFIX`, which no path function strips) and is refused by
    ``activity.files.clean_filename``: a misbehaving client stores nothing."""

    def sanitize_file_name(self, file_name):
        cleaned = super().sanitize_file_name(file_name)
        raw = html.unescape(file_name or "")
        climbs = any(part.strip() == ".." for part in re.split(r"[\\/]", raw)[:-1])
        return CLIMBING_PREFIX + (cleaned or "") if climbs else cleaned


class FileUploadParser(MultiPartParser):
    """DRF's multipart parser (the same steps) with :class:`_NameKeepingParser`."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        request = parser_context["request"]
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        try:
            parser = _NameKeepingParser(meta, stream, request.upload_handlers, get_encoding(parser_context))
            data, files = parser.parse()
            return DataAndFiles(data, files)
        except MultiPartParserError as exc:
            raise ParseError(f"Multipart form parse error - {exc}") from exc


def get_encoding(parser_context) -> str:
    return parser_context.get("encoding", settings.DEFAULT_CHARSET)
