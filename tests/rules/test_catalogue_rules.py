"""The rules of ``inventory.services.catalogue`` that only the API's serializers covered: the location tree never
loops (re-checked in the service, under lock), created-by, the changed-field log keys and the restore guards."""

from __future__ import annotations

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.choices import CategoryType
from inventory.models import Category, Location, Manufacturer
from inventory.services import catalogue as services
from tests.factories import (
    AssetModelFactory,
    CategoryFactory,
    LocationFactory,
    ManufacturerFactory,
    UserFactory,
)
from tests.rules.helpers import refused

pytestmark = pytest.mark.django_db


def test_a_location_cannot_become_its_own_descendant(superuser):
    root = LocationFactory(name="root")
    child = LocationFactory(name="child", parent=root)
    grandchild = LocationFactory(name="grandchild", parent=child)
    for parent in (root, grandchild):  # itself, or its own grandchild
        err = refused(lambda p=parent: services.catalogue_item_update(item=root, data={"parent": p},
                                                                      actor=superuser), "invalid")
        assert err.messages == {"parent_id": ["The parent id must not create a circular reference."]}
    root.refresh_from_db()
    assert root.parent_id is None
    # moving a leaf under another branch is fine, and logged with the _id key
    other = LocationFactory(name="other")
    services.catalogue_item_update(item=grandchild, data={"parent": other, "name": "moved"}, actor=superuser)
    grandchild.refresh_from_db()
    assert grandchild.parent_id == other.pk
    assert ActionLog.objects.get(action_type="update").log_meta == {
        "parent_id": {"old": child.pk, "new": other.pk}, "name": {"old": "grandchild", "new": "moved"}}


def test_lock_ancestors_follows_the_chain_and_stops_on_a_loop():
    root = LocationFactory()
    child = LocationFactory(parent=root)
    assert services._lock_ancestors(child.pk) == [child.pk, root.pk]
    a, b = LocationFactory(), LocationFactory()
    Location.objects.filter(pk=a.pk).update(parent=b)
    Location.objects.filter(pk=b.pk).update(parent=a)  # a loop written behind the service's back
    assert services._lock_ancestors(a.pk) == [a.pk, b.pk]


def test_a_new_location_under_a_parent(superuser):
    root = LocationFactory()
    made = services.catalogue_item_create(model=Location, data={"name": "new", "parent": root}, actor=superuser)
    assert made.parent_id == root.pk and made.created_by_id == superuser.pk
    services.location_check_parent(location=Location(name="unsaved"), parent=root)  # no pk: nothing to loop


def test_created_by_only_for_a_saved_actor():
    anonymous = services.catalogue_item_create(model=Manufacturer, data={"name": "m1"}, actor=None)
    unsaved = services.catalogue_item_create(model=Manufacturer, data={"name": "m2"}, actor=UserFactory.build())
    assert anonymous.created_by_id is None and unsaved.created_by_id is None


def test_category_type_is_fixed(superuser):
    category = CategoryFactory(category_type=CategoryType.ASSET)
    refused(lambda: services.catalogue_item_update(item=category, data={"category_type": CategoryType.ACCESSORY},
                                                   actor=superuser), "invalid")
    services.catalogue_item_update(item=category, data={"category_type": CategoryType.ASSET}, actor=superuser)


def test_category_delete_guard(superuser):
    used = CategoryFactory(category_type=CategoryType.ASSET)
    AssetModelFactory(category=used)
    refused(lambda: services.category_delete(category=used, actor=superuser), "in_use")
    free = CategoryFactory(category_type=CategoryType.ACCESSORY)
    services.category_delete(category=free, actor=superuser)
    assert list(Category.objects.values_list("pk", flat=True)) == [used.pk]


def test_a_category_held_by_a_model_of_another_type_is_refused_too(superuser):
    """Only asset categories are counted by the guard; the PROTECT foreign key refuses the rest the same way."""
    odd = CategoryFactory(category_type=CategoryType.ACCESSORY)
    AssetModelFactory(category=odd)
    refused(lambda: services.category_delete(category=odd, actor=superuser), "in_use")
    assert Category.objects.filter(pk=odd.pk).exists() and not ActionLog.objects.exists()


def test_location_delete_counts_live_users_based_there(superuser):
    home = LocationFactory()
    resident = UserFactory(location=home)
    refused(lambda: services.location_delete(location=home, actor=superuser), "in_use")
    resident.deleted_at = timezone.now()
    resident.save()
    services.location_delete(location=home, actor=superuser)
    assert not Location.objects.filter(pk=home.pk).exists()


def test_a_duplicate_name_written_directly_is_refused(superuser):
    ManufacturerFactory(name="Dup")
    err = refused(lambda: services.catalogue_item_create(model=Manufacturer, data={"name": "dup"}, actor=superuser),
                  "invalid")
    assert err.messages == {"name": ["The name has already been taken."]}
    assert Manufacturer.objects.count() == 1


def test_manufacturer_restore_guards(superuser):
    live = ManufacturerFactory(name="Live")
    refused(lambda: services.manufacturer_restore(manufacturer=live, actor=superuser), "not_deleted")
    twin = ManufacturerFactory(name="live", deleted_at=timezone.now())
    err = refused(lambda: services.manufacturer_restore(manufacturer=twin, actor=superuser), "name_taken")
    assert err.message == "Error restoring Manufacturer: The name has already been taken."
    twin.refresh_from_db()
    assert twin.deleted_at is not None
    free = ManufacturerFactory(name="Free", deleted_at=timezone.now())
    services.manufacturer_restore(manufacturer=free, actor=superuser)
    free.refresh_from_db()
    assert free.deleted_at is None
