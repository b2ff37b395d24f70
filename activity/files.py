"""Files on records (issue 27): the kinds of record a file may belong to, and the rules every stored file obeys.

A file belongs to a record of any kind (assets, models, accessories, ... live in ``inventory``, users in
``accounts``). This app sits below both, so it imports none of them: each upper app registers its kinds here in
``AppConfig.ready()`` (:func:`register_file_kind`, the ``file_kinds`` store of ``assetsvc.registry``), and the API,
the admin and the services look a kind up by name at call time.

The rules, shared by the API and the admin:

- names: :func:`clean_filename` keeps the last part of a path and drops control and format characters; a name with a
  ``..`` segment is refused (a client that sends one is misbehaving, not uploading an invoice);
- types: :func:`sniff` reads the first bytes and :func:`checked_type` accepts an upload only when its extension is in
  :data:`ALLOWED_TYPES` *and* its content is of that family (an executable renamed ``.pdf`` is refused); the content
  type served later is ours, never the client's;
- size: at most ``UPLOAD_MAX_MB`` (settings), never empty.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import models

from assetsvc.registry import entries, register_entry

STORE = "file_kinds"


@dataclass(frozen=True)
class FileKind:
    """A kind of record that holds files.

    ``name`` is the action log's ``item_type`` (``asset``); ``api_names`` are the path segments that name it
    (``assets``, ``hardware``); ``section`` is the permission section (view needs ``<section>.view``, upload and
    delete ``<section>.<write_verb>``: Snipe-IT's ``files`` key where the section has one, else ``edit``).
    ``queryset(user)`` is what the caller may see of the kind (company separation and soft deletes applied):
    another company's record is "not found" (``not_found_message``). ``company_of(record)`` is the company a file
    row records (None for kinds without companies, such as models and locations)."""

    name: str
    model_label: str
    api_names: tuple[str, ...]
    section: str
    write_verb: str
    not_found_message: str
    queryset: Callable[[Any], models.QuerySet]
    company_of: Callable[[Any], int | None] = field(default=lambda record: getattr(record, "company_id", None))
    #: ``(actor, record) -> None``, raising ``PermissionDenied`` when ``actor`` may not change ``record``'s files
    #: although they hold the key (a user who outranks the caller: ``accounts.services.ensure_may_manage``).
    check_write: Callable[[Any, Any], None] | None = None


def register_file_kind(kind: FileKind) -> None:
    register_entry(STORE, kind.name, kind)


def file_kinds() -> dict[str, FileKind]:
    return entries(STORE)


def kind_for_api_name(api_name: str) -> FileKind | None:
    """The kind a path segment names (``hardware`` and ``assets`` both name assets), or None."""
    for kind in file_kinds().values():
        if api_name in kind.api_names:
            return kind
    return None


def api_names() -> list[str]:
    return sorted(name for kind in file_kinds().values() for name in kind.api_names)


# --- names ------------------------------------------------------------------------------------------------------

MAX_NAME = 200
#: Marks a name whose client sent it with ``..`` folders (``activity.api.parsers``): Django keeps only the last part
#: of an upload's name; the mark survives it (no path function splits on a backslash on POSIX) and is refused here.
CLIMBING_PREFIX = "..\\"


class UnsafeFilename(ValueError):
    """A name that tries to climb out of a folder (``../x``)."""


def clean_filename(raw: str) -> str:
    """The name a file is shown and downloaded under: the last part of any path (``C:\\scans\\a.pdf`` → ``a.pdf``),
    without control or format characters (newlines, NUL, bidi overrides), with runs of spaces collapsed and leading
    dots removed, at most :data:`MAX_NAME` characters with its extension kept. Raises :class:`UnsafeFilename` for a
    name with a ``..`` segment; answers ``""`` when nothing is left."""
    text = unicodedata.normalize("NFC", str(raw or ""))
    parts = re.split(r"[\\/]", text)
    if any(part.strip() == ".." for part in parts):
        raise UnsafeFilename(raw)
    name = "".join(ch for ch in parts[-1] if unicodedata.category(ch) not in {"Cc", "Cf", "Zl", "Zp"})
    name = re.sub(r"\s+", " ", name).strip().lstrip(".").strip()
    if len(name) > MAX_NAME:
        stem, dot, ext = name.rpartition(".")
        ext = ext[:16] if dot else ""
        name = (stem if dot else name)[: MAX_NAME - len(ext) - 1].rstrip() + ("." + ext if ext else "")
    return name


def extension_of(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem else ""


# --- types ------------------------------------------------------------------------------------------------------

#: Extension → (content family it must sniff as, content type it is served with). Snipe-IT's upload allow-list
#: (``UploadFileRequest``: png, gif, jpg, jpeg, doc, docx, pdf, txt, zip, rar, xls, xlsx, lic, xml, rtf, json, webp,
#: avif) plus csv; SVG is left out (it can carry scripts; Snipe-IT sanitizes it, we do not serve it).
ALLOWED_TYPES: dict[str, tuple[str, str]] = {
    "png": ("png", "image/png"),
    "gif": ("gif", "image/gif"),
    "jpg": ("jpeg", "image/jpeg"),
    "jpeg": ("jpeg", "image/jpeg"),
    "webp": ("webp", "image/webp"),
    "avif": ("avif", "image/avif"),
    "pdf": ("pdf", "application/pdf"),
    "doc": ("ole2", "application/msword"),
    "xls": ("ole2", "application/vnd.ms-excel"),
    "docx": ("zip", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    "xlsx": ("zip", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "zip": ("zip", "application/zip"),
    "rar": ("rar", "application/vnd.rar"),
    "rtf": ("rtf", "application/rtf"),
    "txt": ("text", "text/plain"),
    "lic": ("text", "text/plain"),
    "csv": ("text", "text/csv"),
    "xml": ("text", "application/xml"),
    "json": ("text", "application/json"),
}
ALLOWED_LIST = ", ".join(sorted(ALLOWED_TYPES))
#: How many leading bytes :func:`sniff` reads.
SNIFF_BYTES = 64 * 1024

#: (offset, magic bytes) → family. Checked in order; text is decided apart (:func:`_is_text`).
_MAGIC: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "png"),
    (0, b"GIF87a", "gif"),
    (0, b"GIF89a", "gif"),
    (0, b"\xff\xd8\xff", "jpeg"),
    (0, b"%PDF-", "pdf"),
    (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole2"),
    (0, b"PK\x03\x04", "zip"),
    (0, b"PK\x05\x06", "zip"),  # an empty archive
    (0, b"Rar!\x1a\x07", "rar"),
    (0, b"{\\rtf", "rtf"),
    (0, b"MZ", "executable"),
    (0, b"\x7fELF", "executable"),
    (0, b"\xcf\xfa\xed\xfe", "executable"),
    (0, b"\xca\xfe\xba\xbe", "executable"),
    (0, b"#!", "executable"),
)


def _is_text(head: bytes, complete: bool) -> bool:
    """UTF-8 (a BOM allowed) without NUL or other control characters than tab, newlines and form feed."""
    if b"\x00" in head:
        return False
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        text = decoder.decode(head, final=complete)  # a character cut at the sniffed prefix's end is fine
    except UnicodeDecodeError:
        return False
    return not any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r\f" for ch in text)


def sniff(head: bytes, complete: bool = True) -> str | None:
    """The family of content starting with ``head`` (``pdf``, ``png``, ``zip``, ``text``, ``executable`` ...), or
    None for anything unknown. ``complete``: ``head`` is the whole file."""
    for offset, magic, family in _MAGIC:
        if head[offset:offset + len(magic)] == magic:
            return family
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp" and head[8:12] in (b"avif", b"avis"):
        return "avif"
    if _is_text(head, complete):
        return "text"
    return None


def checked_type(name: str, head: bytes, complete: bool = True) -> str | None:
    """The content type a file called ``name`` starting with ``head`` is stored and served with, or None when its
    extension is not allowed or its content is not what the extension says."""
    allowed = ALLOWED_TYPES.get(extension_of(name))
    if allowed is None:
        return None
    family, content_type = allowed
    return content_type if sniff(head, complete) == family else None


def upload_max_bytes() -> int:
    return int(settings.UPLOAD_MAX_MB) * 1024 * 1024
