"""Checkout acceptance (issue 29): the person an item was checked out to accepts or declines it.

A checkout opens the pending row (``inventory.services.checkout.acceptance_open``); the page of the signed link
(``inventory.acceptance_views``) calls the two answers here. Each runs in one transaction on the row re-read with
``select_for_update()`` and answers only a pending row whose link nonce is the one the caller read, so of two
simultaneous answers one wins and a used link never works again (the nonce is replaced):

* :func:`acceptance_accept` records the answer (time, note, address, agent), writes an ``accepted`` action-log row
  (the item, the person as target and actor, the EULA's SHA-256 and the row's id in ``log_meta``) and keeps a PDF of
  the signed EULA as a stored file of the person (``activity`` files: the local folder or the S3 bucket), linked in
  ``signed_file``; then sends ``inventory.signals.checkout_accepted``.
* :func:`acceptance_decline` records the answer, writes a ``declined`` row, sends ``checkout_declined`` and checks the
  item back in through the checkin service (its own ``checkin from`` row and ``*_checked_in`` signal). A consumable
  is never returned otherwise; declining one removes its handout, so the units are back in stock
  (docs/decisions.md, "Issue 29: acceptance").
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from django.core.files.base import ContentFile
from django.db import models, transaction
from django.utils import timezone
from fpdf import FPDF

from activity.choices import ActionType
from activity.models import ActionLog, StoredFile
from activity.services import files_storage, log_action
from assetsvc.conf import app_settings
from inventory import signals
from inventory.acceptance_links import LINK_USED, AcceptanceLinkError, new_nonce
from inventory.models import Asset, CheckoutAcceptance
from inventory.services.checkout import CHECKOUT_KINDS, CheckoutKind, checkin_locked

#: A font that prints any text; without it the PDF's built-in font prints Latin-1 only (the hash covers the exact
#: text either way: it is on the row and in the PDF).
UNICODE_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
#: The longest note kept with an answer (the mail link's page and the portal's).
NOTE_MAX = 2000
KIND_LABELS = {"asset": "Asset", "accessory": "Accessory", "consumable": "Consumable", "component": "Component",
               "license": "License seat"}


def acceptance_kind(acceptance: CheckoutAcceptance) -> CheckoutKind:
    return CHECKOUT_KINDS[acceptance.item_type]


def acceptance_item(acceptance: CheckoutAcceptance) -> models.Model | None:
    """The item ``acceptance`` is about (soft-deleted ones too), or None when it is gone."""
    model = acceptance_kind(acceptance).model
    rows = model._base_manager.all()
    if model is Asset:
        rows = rows.select_related("model")
    return rows.filter(pk=acceptance.item_id).first()


def item_summary(acceptance: CheckoutAcceptance, item: Any) -> dict[str, str]:
    """What the page and the PDF say about the item: kind, name, tag and serial where the kind has them (never a
    license's product key)."""
    kind = KIND_LABELS.get(acceptance.item_type, acceptance.item_type)
    if item is None:
        return {"kind": kind, "name": f"#{acceptance.item_id}", "tag": "", "serial": ""}
    if isinstance(item, Asset):
        return {"kind": kind, "name": item.display_name, "tag": item.asset_tag, "serial": item.serial or ""}
    serial = getattr(item, "serial", "") if acceptance.item_type == "component" else ""
    return {"kind": kind, "name": str(getattr(item, "name", "") or item), "tag": "", "serial": serial or ""}


def _relock(acceptance: CheckoutAcceptance) -> CheckoutAcceptance:
    """The row re-read under a lock; refused unless still pending with the nonce the caller's link carried."""
    row = (CheckoutAcceptance.objects.select_related("user").select_for_update(of=("self",))
           .filter(pk=acceptance.pk).first())
    if row is None or row.state != CheckoutAcceptance.State.PENDING or row.link_nonce != acceptance.link_nonce:
        raise AcceptanceLinkError(LINK_USED, gone=True)
    return row


def _answer(row: CheckoutAcceptance, state: str, *, note: str, remote_ip: str, user_agent: str) -> None:
    row.state = state
    row.answered_at = timezone.now()
    row.note = (note or "").strip()
    row.remote_ip = (remote_ip or "")[:64]
    row.user_agent = (user_agent or "")[:255]
    row.link_nonce = new_nonce()  # every earlier link dies


def _log(row: CheckoutAcceptance, action_type: str, item: Any) -> ActionLog:
    meta: dict[str, Any] = {"acceptance_id": row.pk}
    if row.eula_sha256:
        meta["eula_sha256"] = row.eula_sha256
    return log_action(action_type=action_type, item_type=row.item_type, item_id=row.item_id, item=item,
                      actor=row.user, company_id=getattr(item, "company_id", row.company_id), target_type="user",
                      target_id=row.user_id, target=row.user, note=row.note, log_meta=meta)


@transaction.atomic
def acceptance_accept(acceptance: CheckoutAcceptance, *, note: str = "", remote_ip: str = "",
                      user_agent: str = "") -> CheckoutAcceptance:
    """Accept a pending checkout (the module docstring lists what is written)."""
    row = _relock(acceptance)
    item = acceptance_item(row)
    _answer(row, CheckoutAcceptance.State.ACCEPTED, note=note, remote_ip=remote_ip, user_agent=user_agent)
    log = _log(row, ActionType.ACCEPTED, item)
    storage = files_storage()
    pdf = signed_eula_pdf(row, item)
    filename = f"accepted-eula-{row.item_type}-{row.item_id}-{timezone.localtime(row.answered_at):%Y%m%d-%H%M%S}.pdf"
    stored_name = storage.save(f"user/{row.user_id}/{uuid.uuid4().hex}.pdf", ContentFile(pdf))
    try:
        row.signed_file = StoredFile.objects.create(
            item_type="user", item_id=row.user_id, company_id=row.user.company_id, filename=filename,
            storage_name=stored_name, content_type="application/pdf", size=len(pdf),
            note=f"Signed EULA of {row.item_type} #{row.item_id} (acceptance #{row.pk})", created_by=row.user)
        row.save()
        signals.checkout_accepted.send(sender=CheckoutAcceptance, item=item, actor=row.user, target=row.user,
                                       note=row.note, log=log, acceptance=row)
    except BaseException:
        storage.delete(stored_name)
        raise
    return row


@transaction.atomic
def acceptance_decline(acceptance: CheckoutAcceptance, *, note: str = "", remote_ip: str = "",
                       user_agent: str = "") -> CheckoutAcceptance:
    """Decline a pending checkout and check the item back in (the module docstring says how)."""
    row = _relock(acceptance)
    kind = acceptance_kind(row)
    locked = kind.lock(row.item_id)
    _answer(row, CheckoutAcceptance.State.DECLINED, note=note, remote_ip=remote_ip, user_agent=user_agent)
    row.save()
    log = _log(row, ActionType.DECLINED, locked)
    signals.checkout_declined.send(sender=CheckoutAcceptance, item=locked, actor=row.user, target=row.user,
                                   note=row.note, log=log, acceptance=row)
    assignment = None
    if row.assignment_id is not None and hasattr(kind, "assignment_model"):
        assignment = kind.assignment_model._default_manager.filter(pk=row.assignment_id).first()
    checkin_note = f"Declined by {row.user.full_name}" + (f": {row.note}" if row.note else "")
    checkin_locked(kind=kind, locked=locked, actor=row.user, assignment=assignment, note=checkin_note[:65535],
                   declined=True)
    return row


def acceptance_answer(acceptance: CheckoutAcceptance, answer: str, *, note: str = "", remote_ip: str = "",
                      user_agent: str = "") -> CheckoutAcceptance:
    """``answer`` ("accept" or "decline", already checked by the page) with the note trimmed to :data:`NOTE_MAX`:
    the one way both pages answer."""
    service = acceptance_accept if answer == "accept" else acceptance_decline
    return service(acceptance, note=(note or "").strip()[:NOTE_MAX], remote_ip=remote_ip, user_agent=user_agent)


# --- the signed EULA's PDF -----------------------------------------------------------------------------------------


def signed_eula_pdf(row: CheckoutAcceptance, item: Any) -> bytes:
    """A PDF that records what was accepted: the item (name, tag or serial), the person, when and from where, the
    EULA's text as shown and its SHA-256."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    if UNICODE_FONT.exists():
        pdf.add_font("body", fname=str(UNICODE_FONT))
        family, text = "body", (lambda value: value)
    else:
        family, text = "helvetica", (lambda value: value.encode("latin-1", "replace").decode("latin-1"))
    summary = item_summary(row, item)
    pdf.set_font(family, size=16)
    pdf.multi_cell(0, 9, text(f"{app_settings.SITE_NAME}: accepted checkout"),
                   new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font(family, size=11)
    checked_out = row.checkout_log.action_date if row.checkout_log_id else row.created_at
    lines = [
        ("Item", f"{summary['kind']}: {summary['name']}"),
        ("Asset tag", summary["tag"]),
        ("Serial", summary["serial"]),
        ("Accepted by", f"{row.user.full_name} ({row.user.username})"),
        ("Checked out", f"{timezone.localtime(checked_out):%Y-%m-%d %H:%M %Z}"),
        ("Accepted", f"{timezone.localtime(row.answered_at):%Y-%m-%d %H:%M %Z}"),
        ("From address", row.remote_ip),
        ("Note", row.note),
    ]
    for label, value in lines:
        if value:
            pdf.multi_cell(0, 6, text(f"{label}: {value}"), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    if row.eula_text:
        pdf.set_font(family, size=13)
        pdf.multi_cell(0, 8, "End-user license agreement", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(family, size=10)
        pdf.multi_cell(0, 5, text(row.eula_text), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
        pdf.set_font(family, size=8)
        pdf.multi_cell(0, 5, f"SHA-256 of the text above: {row.eula_sha256}", new_x="LMARGIN", new_y="NEXT")
    else:
        pdf.multi_cell(0, 6, "No EULA was attached to this checkout.", new_x="LMARGIN", new_y="NEXT")
    pdf.set_creation_date(row.answered_at)
    return bytes(pdf.output())
