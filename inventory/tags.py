"""Asset tags as stored and as compared (issue 25; docs/decisions.md "Issue 25: look-alike asset tags").

A tag is **stored** as typed, in NFC and without invisible characters (Unicode's format characters: zero-width spaces
and joiners, soft hyphens, byte-order marks, bidi controls), trimmed. It is **compared** on its key: NFKC folded and
case-folded, so a decomposed ``Å``, fullwidth letters or ``ß`` match their plain twins. NFKC is not what is stored:
it would rewrite legitimate characters (``²`` → ``2``, ``ﬁ`` → ``fi``) in the tag people print on labels.
"""

from __future__ import annotations

import unicodedata

from django.db.models import Q


def normalize_tag(text: str) -> str:
    """The stored form: NFC, format characters removed, surrounding white space trimmed."""
    text = unicodedata.normalize("NFC", text or "")
    return "".join(char for char in text if unicodedata.category(char) != "Cf").strip()


def tag_key(text: str) -> str:
    """The compared form: the stored form NFKC-folded and case-folded (NFKC again after folding, which can
    decompose). Two tags with one key are the same tag."""
    folded = unicodedata.normalize("NFKC", normalize_tag(text)).casefold()
    return unicodedata.normalize("NFKC", folded).strip()


def tag_matches(tag: str) -> Q:
    """Assets whose tag is ``tag`` or a look-alike of it; rows kept without a key (look-alike duplicates from before
    the rule) are matched on the tag itself, ignoring case."""
    return Q(asset_tag_key=tag_key(tag)) | Q(asset_tag__iexact=tag.strip())
