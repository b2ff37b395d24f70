"""The rules every stored file obeys (issue 27; ``activity.files``): names, sniffed types."""

from __future__ import annotations

import pytest

from activity.files import ALLOWED_TYPES, UnsafeFilename, checked_type, clean_filename, sniff

ZIP = b"PK\x03\x04" + b"\x00" * 26


@pytest.mark.parametrize(("raw", "clean"), [
    ("invoice.pdf", "invoice.pdf"),
    ("C:\\Users\\me\\Desktop\\invoice.pdf", "invoice.pdf"),
    ("scans/2026/invoice.pdf", "invoice.pdf"),
    ("in\x00voice\r\n.pdf", "invoice.pdf"),
    ("evil\u202efdp.exe", "evilfdp.exe"),
    ("  .hidden.pdf  ", "hidden.pdf"),
    ("a   b\tc.pdf", "a bc.pdf"),  # a tab is a control character: dropped like the others
    ("x" * 300 + ".pdf", "x" * 196 + ".pdf"),
    ("", ""),
    ("...", ""),
])
def test_clean_filename(raw, clean):
    assert clean_filename(raw) == clean


@pytest.mark.parametrize("raw", ["../etc/passwd", "..\\..\\boot.ini", "a/../b.pdf", " .. /x.pdf"])
def test_climbing_names_are_refused(raw):
    with pytest.raises(UnsafeFilename):
        clean_filename(raw)


@pytest.mark.parametrize(("name", "head", "content_type"), [
    ("a.pdf", b"%PDF-1.7\n", "application/pdf"),
    ("a.PNG", b"\x89PNG\r\n\x1a\n....", "image/png"),
    ("a.jpg", b"\xff\xd8\xff\xe0", "image/jpeg"),
    ("a.gif", b"GIF89a", "image/gif"),
    ("a.webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
    ("a.avif", b"\x00\x00\x00\x1cftypavif", "image/avif"),
    ("a.docx", ZIP, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ("a.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/vnd.ms-excel"),
    ("a.zip", ZIP, "application/zip"),
    ("a.rar", b"Rar!\x1a\x07\x01\x00", "application/vnd.rar"),
    ("a.rtf", b"{\\rtf1\\ansi", "application/rtf"),
    ("a.txt", "ünïcode text\n".encode(), "text/plain"),
    ("a.lic", b"\xef\xbb\xbfLICENSE KEY\r\n", "text/plain"),
    ("a.csv", b"a,b\n1,2\n", "text/csv"),
    ("a.json", b'{"a": 1}', "application/json"),
    ("a.xml", b"<?xml version='1.0'?><a/>", "application/xml"),
])
def test_allowed_types_are_recognised(name, head, content_type):
    assert checked_type(name, head) == content_type


@pytest.mark.parametrize(("name", "head"), [
    ("a.pdf", b"MZ\x90\x00"),  # a Windows executable renamed
    ("a.pdf", b"\x7fELF\x02"),
    ("a.txt", b"#!/bin/sh\nrm -rf /\n"),
    ("a.txt", b"text with a NUL\x00"),
    ("a.txt", b"\xff\xfe\x00b"),  # not UTF-8
    ("a.png", b"%PDF-1.4"),
    ("a.docx", b"%PDF-1.4"),
    ("a.exe", b"MZ"),
    ("a.svg", b"<svg/>"),
    ("a.html", b"<html></html>"),
    ("pdf", b"%PDF-1.4"),
])
def test_disallowed_or_mismatched_content_is_refused(name, head):
    assert checked_type(name, head) is None


def test_a_character_cut_by_the_sniffed_prefix_is_still_text():
    head = ("é" * 10).encode()[:-1]
    assert sniff(head, complete=False) == "text"
    assert sniff(head, complete=True) is None


def test_every_allowed_type_has_a_family_the_sniffer_names():
    families = {family for family, _ in ALLOWED_TYPES.values()}
    assert families == {"png", "gif", "jpeg", "webp", "avif", "pdf", "ole2", "zip", "rar", "rtf", "text"}
