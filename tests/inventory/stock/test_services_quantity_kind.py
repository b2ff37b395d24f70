"""``item_checkout`` / ``item_checkin`` for a kind handed out by quantity (``QuantityKind``), proven on the
test-only ``Widget`` kind: units are never over-issued, partial checkins, refusals leave nothing written, one log
row per verb, and targets follow the one target rule (company separation included)."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from assetsvc.exceptions import InvalidInputError, NotFoundError
from inventory.services.checkout import CHECKOUT_KINDS, item_checkin, item_checkout
from tests.factories import AssetFactory, LocationFactory, UserFactory
from tests.kinds.kinds import WIDGET
from tests.kinds.models import Widget, WidgetCheckout

pytestmark = pytest.mark.django_db


@pytest.fixture
def widget():
    return Widget.objects.create(name="USB-C dock", qty=5)


def state(widget):
    return (list(WidgetCheckout.objects.filter(widget=widget).order_by("pk").values_list("assigned_qty", flat=True)),
            ActionLog.objects.filter(item_type="widget", item_id=widget.pk).count())


def test_the_kind_is_registered_by_its_item_type():
    assert CHECKOUT_KINDS["widget"] is not None and CHECKOUT_KINDS["asset"].model.__name__ == "Asset"


def test_checkout_units_to_each_target_type_until_none_remain(superuser, widget):
    user, asset, location = UserFactory(), AssetFactory(), LocationFactory()
    item_checkout(kind=WIDGET, item=widget, target=user, actor=superuser, quantity=2, note="two")
    item_checkout(kind=WIDGET, item=widget, target=asset, actor=superuser, quantity=2)
    item_checkout(kind=WIDGET, item=widget, target=location, actor=superuser, quantity=1)
    assert WIDGET.remaining(widget) == 0
    rows = WidgetCheckout.objects.filter(widget=widget).order_by("pk")
    assert [(r.assigned_user_id, r.assigned_asset_id, r.assigned_location_id, r.assigned_qty) for r in rows] == [
        (user.pk, None, None, 2), (None, asset.pk, None, 2), (None, None, location.pk, 1)]
    logs = ActionLog.objects.filter(item_type="widget", item_id=widget.pk).order_by("pk")
    assert [(log.action_type, log.target_type, log.note) for log in logs] == [
        ("checkout", "user", "two"), ("checkout", "asset", ""), ("checkout", "location", "")]
    assert logs[0].log_meta == {"checkout_qty": {"old": None, "new": 2}}
    annotated = Widget.objects.annotate(assigned=WIDGET.assigned_subquery()).get(pk=widget.pk)
    assert annotated.assigned == 5


def test_more_than_remaining_is_refused_and_writes_nothing(superuser, widget):
    item_checkout(kind=WIDGET, item=widget, target=UserFactory(), actor=superuser, quantity=4)
    before = state(widget)
    with pytest.raises(InvalidInputError) as refused:
        item_checkout(kind=WIDGET, item=widget, target=UserFactory(), actor=superuser, quantity=2)
    assert refused.value.code == "not_enough_remaining"
    assert refused.value.messages == {"checkout_qty": ["There are not enough items remaining to check out 2."]}
    assert state(widget) == before


@pytest.mark.parametrize("quantity", [0, -1, 2**31, True, 1.5, "2", None])
def test_impossible_quantities_are_refused(superuser, widget, quantity):
    with pytest.raises(InvalidInputError) as refused:
        item_checkout(kind=WIDGET, item=widget, target=UserFactory(), actor=superuser, quantity=quantity)
    assert refused.value.messages == {"checkout_qty": ["The checkout qty must be at least 1."]}
    assert state(widget) == ([], 0)


def test_partial_and_full_checkin(superuser, widget):
    holder = UserFactory()
    item_checkout(kind=WIDGET, item=widget, target=holder, actor=superuser, quantity=3)
    row = WidgetCheckout.objects.get(widget=widget)
    item_checkin(kind=WIDGET, item=widget, assignment=row, quantity=1, actor=superuser, note="one back")
    row.refresh_from_db()
    assert row.assigned_qty == 2 and WIDGET.remaining(widget) == 3
    with pytest.raises(InvalidInputError) as refused:
        item_checkin(kind=WIDGET, item=widget, assignment=row, quantity=3, actor=superuser)
    assert refused.value.messages == {"checkin_qty": ["The checkin qty may not be greater than 2."]}
    item_checkin(kind=WIDGET, item=widget, assignment=row, actor=superuser)
    assert not WidgetCheckout.objects.filter(widget=widget).exists() and WIDGET.remaining(widget) == 5
    logs = ActionLog.objects.filter(item_type="widget", action_type="checkin from").order_by("pk")
    assert [(log.target_type, log.target_id, log.log_meta) for log in logs] == [
        ("user", holder.pk, {"checkin_qty": {"old": None, "new": 1}, "assigned_qty": {"old": 3, "new": 2}}),
        ("user", holder.pk, {"checkin_qty": {"old": None, "new": 2}, "assigned_qty": {"old": 2, "new": 0}})]


def test_checkin_of_another_items_row_or_a_deleted_item_is_not_found(superuser, widget):
    other = Widget.objects.create(name="Other", qty=1)
    item_checkout(kind=WIDGET, item=other, target=UserFactory(), actor=superuser)
    foreign_row = WidgetCheckout.objects.get(widget=other)
    with pytest.raises(NotFoundError):
        item_checkin(kind=WIDGET, item=widget, assignment=foreign_row, actor=superuser)
    Widget.objects.filter(pk=other.pk).update(deleted_at="2026-01-01T00:00:00Z")
    with pytest.raises(NotFoundError):
        item_checkin(kind=WIDGET, item=other, assignment=foreign_row, actor=superuser)
    with pytest.raises(NotFoundError):
        item_checkout(kind=WIDGET, item=other, target=UserFactory(), actor=superuser)
    assert WidgetCheckout.objects.get(pk=foreign_row.pk).assigned_qty == 1


def test_targets_follow_the_one_rule(fmcs_on, company, other_company, widget):
    actor = UserFactory(company=company)
    stranger = UserFactory(company=other_company)
    for target in (stranger, UserFactory(company=company, is_active=False), AssetFactory(company=other_company)):
        with pytest.raises(InvalidInputError):
            item_checkout(kind=WIDGET, item=widget, target=target, actor=actor)
    assert state(widget) == ([], 0)
    item_checkout(kind=WIDGET, item=widget, target=UserFactory(company=company), actor=actor)
    assert state(widget) == ([1], 1)


def test_required_note_applies_to_every_kind(site_settings, superuser, widget):
    site_settings.require_checkinout_notes = True
    site_settings.save()
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        item_checkout(kind=WIDGET, item=widget, target=UserFactory(), actor=superuser, note="  ")
    assert state(widget) == ([], 0)
