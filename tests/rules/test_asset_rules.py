"""Each guard, state check and rule of ``inventory.services.assets``, proven by a test that fails when the check is
broken
(flipped, dropped, or its ``and``/``or`` swapped): the survivors of ``make mutate`` (docs/testing.md).

The services are called directly, as the admin calls them; refusals are recognised by their ``code`` or field
message, and the database is checked to be unchanged.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from activity.models import ActionLog
from inventory.choices import StatusType
from inventory.models import Asset
from inventory.services import assets as services
from inventory.services.checkout import log_company_id
from tests.factories import (
    AssetFactory,
    AssetModelFactory,
    CompanyFactory,
    LocationFactory,
    StatusLabelFactory,
    UserFactory,
)
from tests.factories.inventory import checked_out_asset
from tests.rules.helpers import field_error, refused

pytestmark = pytest.mark.django_db

SERIAL_TAKEN = "The serial must be unique."
TAG_TAKEN = "The asset tag must be unique."


def deleted_asset(**kwargs) -> Asset:
    return AssetFactory(deleted_at=timezone.now(), **kwargs)


def create_data(**overrides):
    data = {"model": AssetModelFactory(), "status": StatusLabelFactory(), "asset_tag": "NEW-1"}
    data.update(overrides)
    return data


@pytest.fixture
def unique_serial(site_settings):
    site_settings.unique_serial = True
    site_settings.save()
    return site_settings


@pytest.fixture
def notes_required(site_settings):
    site_settings.require_checkinout_notes = True
    site_settings.save()
    return site_settings


@pytest.fixture
def staff(company, fmcs_on):
    """A non-super user of company A who may edit assets, with separation on."""
    return UserFactory(company=company, permissions={"assets.edit": 1, "assets.create": 1, "assets.checkout": 1})


# --- soft-deleted assets: every verb but restore answers "not found" and changes nothing ------------------------------


@pytest.mark.parametrize(
    ("verb", "code"),
    [
        (lambda asset, actor: services.asset_update(asset=asset, actor=actor, data={"name": "changed"}),
         "asset_not_found"),
        (lambda asset, actor: services.asset_checkin(asset=asset, actor=actor), "asset_not_found"),
        (lambda asset, actor: services.asset_audit(asset=asset, actor=actor), "asset_not_found"),
        (lambda asset, actor: services.asset_delete(asset=asset, actor=actor), "asset_not_found"),
        (lambda asset, actor: services.asset_checkout(asset=asset, target=UserFactory(), actor=actor),
         "asset_not_available"),
    ],
    ids=["update", "checkin", "audit", "delete", "checkout"],
)
def test_a_soft_deleted_asset_is_not_acted_on(superuser, verb, code):
    holder = UserFactory()
    asset = checked_out_asset(holder, deleted_at=timezone.now(), name="before")
    deleted_at = asset.deleted_at
    refused(lambda: verb(asset, superuser), code)
    asset.refresh_from_db()
    assert (asset.name, asset.deleted_at, asset.assigned_user_id) == ("before", deleted_at, holder.pk)
    assert asset.last_audit_date is None and asset.checkin_counter == 0
    assert not ActionLog.objects.exists()


def test_checkout_of_a_soft_deleted_unassigned_asset_is_refused(superuser):
    asset = deleted_asset()
    refused(lambda: services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser),
            "asset_not_available")
    asset.refresh_from_db()
    assert asset.assigned_user_id is None and asset.checkout_counter == 0


def test_unknown_asset_is_not_found(superuser):
    asset = AssetFactory()
    ghost = Asset(pk=asset.pk + 1000)
    for call in (
        lambda: services.asset_update(asset=ghost, actor=superuser, data={}),
        lambda: services.asset_checkin(asset=ghost, actor=superuser),
        lambda: services.asset_checkout(asset=ghost, target=UserFactory(), actor=superuser),
        lambda: services.asset_restore(asset=ghost, actor=superuser),
    ):
        refused(call, "asset_not_found")


# --- create ---------------------------------------------------------------------------------------------------------


def test_create_needs_a_tag_unless_tags_are_generated(superuser, site_settings):
    assert field_error(lambda: services.asset_create(actor=superuser, data=create_data(asset_tag="  ")),
                       "asset_tag") == ["The asset tag field is required."]
    site_settings.auto_increment_assets = True
    site_settings.auto_increment_prefix = "AT-"
    site_settings.zerofill_count = 3
    site_settings.next_auto_tag_base = 7
    site_settings.save()
    AssetFactory(asset_tag="at-007")  # taken (in another letter case): skipped
    asset = services.asset_create(actor=superuser, data=create_data(asset_tag=None))
    assert asset.asset_tag == "AT-008"
    site_settings.refresh_from_db()
    assert site_settings.next_auto_tag_base == 9


def test_an_explicit_tag_of_the_generated_form_moves_the_counter_on(superuser, site_settings):
    site_settings.auto_increment_assets = True
    site_settings.auto_increment_prefix = "AT-"
    site_settings.next_auto_tag_base = 10
    site_settings.save()
    services.asset_create(actor=superuser, data=create_data(asset_tag="at-9"))  # below the counter: no change
    site_settings.refresh_from_db()
    assert site_settings.next_auto_tag_base == 10
    services.asset_create(actor=superuser, data=create_data(asset_tag="AT-10"))  # at the counter: moves past it
    site_settings.refresh_from_db()
    assert site_settings.next_auto_tag_base == 11
    services.asset_create(actor=superuser, data=create_data(asset_tag="XY-50"))  # another prefix: no change
    services.asset_create(actor=superuser, data=create_data(asset_tag="AT-5x"))  # not digits: no change
    site_settings.refresh_from_db()
    assert site_settings.next_auto_tag_base == 11


def test_explicit_tags_leave_the_counter_alone_when_tags_are_not_generated(superuser, site_settings):
    site_settings.auto_increment_prefix = "AT-"
    site_settings.next_auto_tag_base = 1
    site_settings.save()
    services.asset_create(actor=superuser, data=create_data(asset_tag="AT-50"))
    site_settings.refresh_from_db()
    assert site_settings.next_auto_tag_base == 1


def test_create_refuses_a_live_tag_in_any_case_but_reuses_a_deleted_ones(superuser):
    AssetFactory(asset_tag="dup-1")
    deleted_asset(asset_tag="GONE-1")
    assert field_error(lambda: services.asset_create(actor=superuser, data=create_data(asset_tag="DUP-1")),
                       "asset_tag") == [TAG_TAKEN]
    assert services.asset_create(actor=superuser, data=create_data(asset_tag="gone-1")).pk


def test_create_serial_rule_only_with_unique_serial(superuser, site_settings):
    AssetFactory(serial="SER-1")
    # off: a duplicate serial is fine
    assert services.asset_create(actor=superuser, data=create_data(asset_tag="A1", serial="ser-1")).pk
    site_settings.unique_serial = True
    site_settings.save()
    assert field_error(lambda: services.asset_create(actor=superuser, data=create_data(asset_tag="A2",
                                                                                        serial="SER-1")),
                       "serial") == [SERIAL_TAKEN]
    # on: a new serial, and blank serials (any number of them), are fine
    assert services.asset_create(actor=superuser, data=create_data(asset_tag="A3", serial="SER-2")).pk
    AssetFactory(serial="")
    assert services.asset_create(actor=superuser, data=create_data(asset_tag="A4", serial="")).pk
    assert Asset.objects.filter(asset_tag__in=["A1", "A3", "A4"]).count() == 3


def test_create_with_a_target_needs_a_deployable_label(superuser):
    pending = StatusLabelFactory(type=StatusType.PENDING)
    target = UserFactory()
    assert field_error(lambda: services.asset_create(actor=superuser, data=create_data(status=pending),
                                                     target=target), "status_id")
    assert not Asset.objects.exists()
    created = services.asset_create(actor=superuser, data=create_data(asset_tag="P-1", status=pending))
    assert created.assigned_user_id is None
    out = services.asset_create(actor=superuser, data=create_data(asset_tag="D-1"), target=target)
    assert out.assigned_user_id == target.pk


def test_create_company_rule_7(superuser, staff, company, other_company):
    mine = services.asset_create(actor=staff, data=create_data(asset_tag="S-1", company=other_company))
    assert mine.company_id == company.pk
    chosen = services.asset_create(actor=superuser, data=create_data(asset_tag="S-2", company=other_company))
    assert chosen.company_id == other_company.pk


def test_create_location_defaults_to_the_default_location(superuser):
    home, here = LocationFactory(), LocationFactory()
    a = services.asset_create(actor=superuser, data=create_data(asset_tag="L-1", rtd_location=home))
    b = services.asset_create(actor=superuser, data=create_data(asset_tag="L-2", rtd_location=home, location=here))
    assert (a.location_id, b.location_id) == (home.pk, here.pk)


# --- update ---------------------------------------------------------------------------------------------------------


def test_update_company_rule_7_for_staff(staff, company, other_company, superuser):
    asset = AssetFactory(company=company)
    services.asset_update(asset=asset, actor=staff, data={"company": other_company})
    asset.refresh_from_db()
    assert asset.company_id == company.pk
    services.asset_update(asset=asset, actor=superuser, data={"company": other_company})
    asset.refresh_from_db()
    assert asset.company_id == other_company.pk


def test_update_without_company_keeps_it(staff, company):
    asset = AssetFactory(company=None)
    services.asset_update(asset=asset, actor=staff, data={"name": "renamed"})
    asset.refresh_from_db()
    assert asset.company_id is None and asset.name == "renamed"


def test_update_default_location_moves_only_an_unassigned_asset(superuser):
    home, here = LocationFactory(), LocationFactory()
    free = AssetFactory(location=here)
    services.asset_update(asset=free, actor=superuser, data={"rtd_location": home})
    free.refresh_from_db()
    assert (free.rtd_location_id, free.location_id) == (home.pk, home.pk)

    out = checked_out_asset(UserFactory(location=here))
    services.asset_update(asset=out, actor=superuser, data={"rtd_location": home})
    out.refresh_from_db()
    assert (out.rtd_location_id, out.location_id) == (home.pk, here.pk)

    both = AssetFactory()
    services.asset_update(asset=both, actor=superuser, data={"rtd_location": home, "location": here})
    both.refresh_from_db()
    assert (both.rtd_location_id, both.location_id) == (home.pk, here.pk)


def test_update_tag_rule(superuser):
    AssetFactory(asset_tag="TAKEN-1")
    deleted_asset(asset_tag="GONE-2")
    asset = AssetFactory(asset_tag="MINE-1")
    assert field_error(lambda: services.asset_update(asset=asset, actor=superuser, data={"asset_tag": "taken-1"}),
                       "asset_tag") == [TAG_TAKEN]
    services.asset_update(asset=asset, actor=superuser, data={"asset_tag": " mine-1 "})  # its own tag, recased
    asset.refresh_from_db()
    assert asset.asset_tag == "mine-1"
    services.asset_update(asset=asset, actor=superuser, data={"asset_tag": "GONE-2"})
    asset.refresh_from_db()
    assert asset.asset_tag == "GONE-2"


def test_update_serial_rule_with_unique_serial(superuser, unique_serial):
    AssetFactory(serial="SER-9")
    deleted_asset(serial="SER-DEAD")
    asset = AssetFactory(serial="MINE-9")
    assert field_error(lambda: services.asset_update(asset=asset, actor=superuser, data={"serial": "ser-9"}),
                       "serial") == [SERIAL_TAKEN]
    asset.refresh_from_db()
    assert asset.serial == "MINE-9"
    for serial in ("mine-9", "SER-DEAD", ""):
        services.asset_update(asset=asset, actor=superuser, data={"serial": serial})
    AssetFactory(serial="")
    services.asset_update(asset=asset, actor=superuser, data={"serial": ""})
    asset.refresh_from_db()
    assert asset.serial == ""


def test_update_serial_is_free_without_unique_serial(superuser):
    AssetFactory(serial="SER-9")
    asset = AssetFactory(serial="MINE-9")
    services.asset_update(asset=asset, actor=superuser, data={"serial": "SER-9"})
    asset.refresh_from_db()
    assert asset.serial == "SER-9"


def test_update_logs_only_real_changes(superuser):
    asset = AssetFactory(name="same")
    services.asset_update(asset=asset, actor=superuser, data={"name": "same"})
    assert not ActionLog.objects.exists()
    services.asset_update(asset=asset, actor=superuser, data={"name": "other"})
    log = ActionLog.objects.get()
    assert log.action_type == "update" and log.log_meta == {"name": {"old": "same", "new": "other"}}


def test_update_with_a_target_checks_out(superuser):
    asset = AssetFactory()
    holder = UserFactory()
    services.asset_update(asset=asset, actor=superuser, data={}, target=holder)
    asset.refresh_from_db()
    assert asset.assigned_user_id == holder.pk


# --- checkout -------------------------------------------------------------------------------------------------------


def test_checkout_note_required_by_setting(superuser, notes_required):
    asset = AssetFactory()
    for note in ("", "   "):
        assert field_error(lambda n=note: services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser,
                                                                  note=n), "note") == ["The note field is required."]
    asset.refresh_from_db()
    assert asset.assigned_user_id is None
    services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser, note="because")
    asset.refresh_from_db()
    assert asset.assigned_user_id is not None


def test_checkin_note_required_by_setting(superuser, notes_required):
    holder = UserFactory()
    asset = checked_out_asset(holder)
    for note in ("", "  "):
        assert field_error(lambda n=note: services.asset_checkin(asset=asset, actor=superuser, note=n), "note")
    asset.refresh_from_db()
    assert asset.assigned_user_id == holder.pk
    services.asset_checkin(asset=asset, actor=superuser, note="returned")
    asset.refresh_from_db()
    assert asset.assigned_user_id is None


def test_no_note_needed_when_the_setting_is_off(superuser):
    asset = AssetFactory()
    services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser)
    services.asset_checkin(asset=asset, actor=superuser)
    assert ActionLog.objects.count() == 2


@pytest.mark.parametrize("state", ["assigned", "deleted", "undeployable"])
def test_checkout_refuses_each_unavailable_state_alone(superuser, state):
    if state == "assigned":
        asset = checked_out_asset(LocationFactory())
    elif state == "deleted":
        asset = deleted_asset()
    else:
        asset = AssetFactory(status=StatusLabelFactory(type=StatusType.PENDING))
    refused(lambda: services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser),
            "asset_not_available")
    assert not ActionLog.objects.exists()


def test_checkout_status_must_be_deployable(superuser):
    asset = AssetFactory()
    field_error(lambda: services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser,
                                                status=StatusLabelFactory(type=StatusType.ARCHIVED)), "status_id")
    other = StatusLabelFactory()
    services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser, status=other, name="renamed")
    asset.refresh_from_db()
    assert (asset.status_id, asset.name) == (other.pk, "renamed")


def test_checkout_expected_checkin_not_before_checkout(superuser):
    asset = AssetFactory()
    at = timezone.make_aware(dt.datetime(2030, 5, 10, 12, 0))
    field_error(lambda: services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser, checkout_at=at,
                                                expected_checkin=dt.date(2030, 5, 9)), "expected_checkin")
    services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser, checkout_at=at,
                            expected_checkin=dt.date(2030, 5, 10))
    asset.refresh_from_db()
    assert asset.expected_checkin == dt.date(2030, 5, 10)


def test_checkout_target_user_must_be_live_active_and_visible(superuser, staff, company, other_company):
    for target in (UserFactory(deleted_at=timezone.now()), UserFactory(is_active=False)):
        refused(lambda t=target: services.asset_checkout(asset=AssetFactory(), target=t, actor=superuser),
                "invalid_checkout_target")
    stranger = UserFactory(company=other_company)
    refused(lambda: services.asset_checkout(asset=AssetFactory(company=company), target=stranger, actor=staff),
            "invalid_checkout_target")
    colleague = UserFactory(company=company)
    asset = services.asset_checkout(asset=AssetFactory(company=company), target=colleague, actor=staff)
    assert asset.assigned_user_id == colleague.pk
    assert not ActionLog.objects.filter(target_id=stranger.pk).exists()


def test_checkout_target_asset_rules(superuser, staff, company, other_company):
    asset = AssetFactory()
    refused(lambda: services.asset_checkout(asset=asset, target=asset, actor=superuser), "invalid_checkout_target")
    refused(lambda: services.asset_checkout(asset=asset, target=deleted_asset(), actor=superuser),
            "invalid_checkout_target")
    # a loop through a chain: asset <- child <- grandchild
    child = checked_out_asset(asset)
    grandchild = checked_out_asset(child)
    error = refused(lambda: services.asset_checkout(asset=asset, target=grandchild, actor=superuser),
                    "invalid_checkout_target")
    assert "which is checked out to it" in error.message
    # not visible to a company-limited caller
    refused(lambda: services.asset_checkout(asset=AssetFactory(company=company),
                                            target=AssetFactory(company=other_company), actor=staff),
            "invalid_checkout_target")
    # a chain that does not lead back is fine
    parent = checked_out_asset(LocationFactory())
    top = AssetFactory()
    services.asset_checkout(asset=top, target=parent, actor=superuser)
    top.refresh_from_db()
    assert top.assigned_asset_id == parent.pk and top.location_id == parent.location_id


def test_checkout_target_location_must_exist(superuser):
    place = LocationFactory()
    pk = place.pk
    place.delete()
    place.pk = pk
    refused(lambda: services.asset_checkout(asset=AssetFactory(), target=place, actor=superuser),
            "invalid_checkout_target")
    there = LocationFactory()
    asset = services.asset_checkout(asset=AssetFactory(), target=there, actor=superuser)
    assert (asset.assigned_location_id, asset.location_id) == (there.pk, there.pk)


# --- checkin / audit / delete / restore -----------------------------------------------------------------------------


def test_checkin_of_an_asset_that_is_not_out(superuser):
    asset = AssetFactory()
    error = refused(lambda: services.asset_checkin(asset=asset, actor=superuser), "asset_already_checked_in")
    assert error.payload["asset_tag"] == asset.asset_tag


def test_checkin_goes_to_the_given_location_else_home(superuser):
    home, elsewhere = LocationFactory(), LocationFactory()
    a = checked_out_asset(UserFactory(), rtd_location=home)
    services.asset_checkin(asset=a, actor=superuser)
    a.refresh_from_db()
    assert a.location_id == home.pk
    b = checked_out_asset(UserFactory(), rtd_location=home)
    label = StatusLabelFactory()
    services.asset_checkin(asset=b, actor=superuser, location=elsewhere, status=label, name="back")
    b.refresh_from_db()
    assert (b.location_id, b.status_id, b.name, b.checkin_counter) == (elsewhere.pk, label.pk, "back", 1)


def test_audit_dates_and_location(superuser, site_settings):
    site_settings.audit_interval = 12
    site_settings.save()
    asset = AssetFactory()
    services.asset_audit(asset=asset, actor=superuser)
    asset.refresh_from_db()
    today = timezone.localdate()
    assert asset.next_audit_date == services.add_months(today, 12)
    place = LocationFactory()
    _asset, log = services.asset_audit(asset=asset, actor=superuser, next_audit_date=dt.date(2031, 1, 2),
                                       location=place)
    asset.refresh_from_db()
    assert (asset.next_audit_date, asset.location_id, log.location_id) == (dt.date(2031, 1, 2), place.pk, place.pk)


def test_delete_checks_a_checked_out_asset_in_first(superuser):
    holder = UserFactory()
    asset = checked_out_asset(holder)
    services.asset_delete(asset=asset, actor=superuser)
    asset.refresh_from_db()
    assert asset.deleted_at is not None and asset.assigned_user_id is None
    assert list(ActionLog.objects.order_by("id").values_list("action_type", flat=True)) == ["checkin from", "delete"]
    free = AssetFactory()
    services.asset_delete(asset=free, actor=superuser)
    assert ActionLog.objects.filter(item_id=free.pk).count() == 1


def test_restore_rules(superuser, unique_serial):
    live = AssetFactory()
    refused(lambda: services.asset_restore(asset=live, actor=superuser), "asset_not_deleted")

    AssetFactory(asset_tag="TAG-R", serial="S-A")
    clash_tag = deleted_asset(asset_tag="tag-r", serial="S-B")
    refused(lambda: services.asset_restore(asset=clash_tag, actor=superuser), "asset_tag_taken")

    clash_serial = deleted_asset(asset_tag="TAG-S", serial="s-a")
    refused(lambda: services.asset_restore(asset=clash_serial, actor=superuser), "asset_serial_taken")
    clash_serial.refresh_from_db()
    assert clash_serial.deleted_at is not None

    fine = deleted_asset(asset_tag="TAG-T", serial="S-C")
    services.asset_restore(asset=fine, actor=superuser)
    fine.refresh_from_db()
    assert fine.deleted_at is None
    blank = deleted_asset(asset_tag="TAG-U", serial="")
    AssetFactory(serial="")
    services.asset_restore(asset=blank, actor=superuser)
    assert ActionLog.objects.filter(action_type="restore").count() == 2


def test_restore_ignores_serials_without_unique_serial(superuser):
    AssetFactory(serial="S-A")
    twin = deleted_asset(serial="S-A")
    services.asset_restore(asset=twin, actor=superuser)
    twin.refresh_from_db()
    assert twin.deleted_at is None


# --- helpers with a rule in them -------------------------------------------------------------------------------------


def test_log_company_is_the_items_whoever_acts(company, other_company):
    """Issue 25: the item's company, not the actor's nor (for a super user) the target's."""
    member = UserFactory(company=company)
    asset = AssetFactory(company=other_company)
    assert log_company_id(member, asset, None) == other_company.pk
    assert log_company_id(UserFactory(), asset, None) == other_company.pk
    assert log_company_id(None, asset, None) == other_company.pk
    boss = UserFactory(superuser=True, company=company)
    assert log_company_id(boss, asset, LocationFactory()) == other_company.pk
    assert log_company_id(boss, asset, UserFactory(company=company)) == other_company.pk
    assert log_company_id(member, AssetFactory(), UserFactory(company=company)) is None


def test_target_type_of():
    assert services.target_type_of(None) == ""
    assert services.target_type_of(UserFactory.build()) == "user"
    assert services.target_type_of(LocationFactory.build()) == "location"
    with pytest.raises(TypeError):
        services.target_type_of(CompanyFactory.build())


def test_checkout_datetime():
    assert services.checkout_datetime(None) is None
    aware = timezone.make_aware(dt.datetime(2030, 1, 1, 9, 30))
    assert services.checkout_datetime(aware) is aware
    naive = services.checkout_datetime(dt.datetime(2030, 1, 1, 9, 30))
    assert timezone.is_aware(naive) and naive == aware
    assert services.checkout_datetime(dt.date(2030, 1, 1)) == timezone.make_aware(dt.datetime(2030, 1, 1))


def test_a_taken_tag_is_reported_before_anything_else(superuser, unique_serial):
    """The tag check runs first (the database constraint would catch a duplicate tag too, but only after the serial
    check had answered about the serial instead)."""
    AssetFactory(asset_tag="T-1", serial="S-1")
    pending = StatusLabelFactory(type=StatusType.PENDING)
    assert field_error(lambda: services.asset_create(actor=superuser, data=create_data(
        asset_tag="t-1", serial="s-1", status=pending), target=UserFactory()), "asset_tag") == [TAG_TAKEN]
    asset = AssetFactory(asset_tag="T-2", serial="S-2")
    assert field_error(lambda: services.asset_update(asset=asset, actor=superuser,
                                                     data={"asset_tag": "T-1", "serial": "S-1"}),
                       "asset_tag") == [TAG_TAKEN]
    twin = deleted_asset(asset_tag="T-1", serial="S-1")
    refused(lambda: services.asset_restore(asset=twin, actor=superuser), "asset_tag_taken")
