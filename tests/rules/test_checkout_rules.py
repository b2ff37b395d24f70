"""Rule checks of the one checkout shape (``inventory/services/checkout.py``) that mutation testing showed no other test
would notice breaking: the quantity bounds, the kind's target types, the target resolver's input checks, the kind
registry, and who a quantity assignment records as its creator."""

from __future__ import annotations

import pytest

from activity.models import ActionLog
from assetsvc.exceptions import InvalidInputError
from inventory.services.checkout import CHECKOUT_KINDS, MAX_QUANTITY, QuantityKind, item_checkout, resolve_target
from tests.factories import LocationFactory, UserFactory
from tests.kinds.kinds import WIDGET, WidgetKind
from tests.kinds.models import Widget, WidgetCheckout

pytestmark = pytest.mark.django_db


class UserOnlyWidgetKind(WidgetKind):
    """Widgets that may only be handed to people (as consumables are)."""

    item_type = "user_only_widget"
    targets = frozenset({"user"})


USER_ONLY = CHECKOUT_KINDS["user_only_widget"]


def test_the_largest_quantity_is_a_quantity_and_then_too_many_units():
    widget = Widget.objects.create(name="Dock", qty=5)
    with pytest.raises(InvalidInputError) as refused:
        item_checkout(kind=WIDGET, item=widget, target=UserFactory(), actor=UserFactory(superuser=True),
                      quantity=MAX_QUANTITY)
    assert refused.value.code == "not_enough_remaining"
    with pytest.raises(InvalidInputError):
        item_checkout(kind=WIDGET, item=widget, target=UserFactory(), actor=UserFactory(superuser=True),
                      quantity=MAX_QUANTITY + 1)


def test_a_target_type_the_kind_does_not_take_is_refused_and_nothing_is_written():
    widget = Widget.objects.create(name="Toner", qty=5)
    boss = UserFactory(superuser=True)
    with pytest.raises(InvalidInputError) as refused:
        item_checkout(kind=USER_ONLY, item=widget, target=LocationFactory(), actor=boss)
    assert refused.value.payload["target_type"] == "location"
    assert not WidgetCheckout.objects.exists() and not ActionLog.objects.exists()
    item_checkout(kind=USER_ONLY, item=widget, target=UserFactory(), actor=boss)
    assert WidgetCheckout.objects.count() == 1


def test_the_assignment_records_who_handed_it_out():
    widget = Widget.objects.create(name="Cable", qty=5)
    boss = UserFactory(superuser=True)
    item_checkout(kind=WIDGET, item=widget, target=LocationFactory(), actor=boss)
    assert WidgetCheckout.objects.get().created_by_id == boss.pk
    item_checkout(kind=WIDGET, item=widget, target=LocationFactory(), actor=None)  # a system job: nobody
    assert WidgetCheckout.objects.order_by("-pk").first().created_by_id is None


@pytest.mark.parametrize("pk", [True, "STRING", 1.0, None, 2**62 + 1, -(2**62) - 1])
def test_resolve_target_refuses_ids_that_are_not_ids(pk, superuser):
    user = UserFactory()
    value = str(user.pk) if pk == "STRING" else pk
    assert resolve_target("user", value, superuser) is None


def test_resolve_target_of_an_unknown_type_is_nothing(superuser, company):
    assert resolve_target("company", company.pk, superuser) is None
    assert resolve_target("user", superuser.pk, superuser) == superuser


def test_only_a_class_that_names_its_item_type_is_registered():
    before = dict(CHECKOUT_KINDS)

    class IntermediateKind(QuantityKind):  # a shared base for several kinds: no item_type of its own
        pass

    assert CHECKOUT_KINDS == before
