"""The asset services called directly: guards, one log row per verb, signals, log companies, atomicity."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from activity.models import ActionLog
from inventory import signals
from inventory.exceptions import (
    AssetAlreadyCheckedInError,
    AssetNotAvailableError,
    AssetNotDeletedError,
    AssetTagTakenError,
    InvalidCheckoutTargetError,
)
from inventory.models import Asset
from inventory.services import assets as services
from tests.factories import AssetFactory, CompanyFactory, LocationFactory, StatusLabelFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def received():
    """Every domain signal sent during the test, with its keyword arguments."""
    events: list[tuple[str, dict]] = []
    handlers = {}
    for name in ("asset_checked_out", "asset_checked_in", "asset_audited"):
        def handler(sender, _name=name, **kwargs):
            events.append((_name, kwargs))

        handlers[name] = handler
        getattr(signals, name).connect(handler, weak=False)
    yield events
    for name, handler in handlers.items():
        getattr(signals, name).disconnect(handler)


def test_checkout_sends_signal_with_log(superuser, received):
    user = UserFactory()
    asset = AssetFactory()
    services.asset_checkout(asset=asset, target=user, actor=superuser, note="n")
    assert [name for name, _ in received] == ["asset_checked_out"]
    kwargs = received[0][1]
    assert kwargs["item"].pk == asset.pk and kwargs["actor"] == superuser and kwargs["target"] == user
    assert kwargs["note"] == "n" and kwargs["log"] == ActionLog.objects.get()


def test_second_checkout_raises(superuser):
    asset = AssetFactory()
    services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser)
    with pytest.raises(AssetNotAvailableError) as info:
        services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser)
    assert info.value.code == "asset_not_available"
    assert ActionLog.objects.count() == 1


def test_checkin_twice_raises(superuser, received):
    asset = AssetFactory()
    services.asset_checkout(asset=asset, target=LocationFactory(), actor=superuser)
    services.asset_checkin(asset=asset, actor=superuser)
    with pytest.raises(AssetAlreadyCheckedInError):
        services.asset_checkin(asset=asset, actor=superuser)
    assert [name for name, _ in received] == ["asset_checked_out", "asset_checked_in"]


def test_audit_sends_signal(superuser, received):
    asset = AssetFactory()
    _asset, log = services.asset_audit(asset=asset, actor=superuser, next_audit_date=dt.date(2030, 1, 1))
    assert received[0][0] == "asset_audited" and received[0][1]["log"] == log and received[0][1]["target"] is None


def test_delete_of_checked_out_asset_sends_checkin(superuser, received):
    holder = UserFactory()
    asset = AssetFactory()
    services.asset_checkout(asset=asset, target=holder, actor=superuser)
    services.asset_delete(asset=asset, actor=superuser)
    assert [name for name, _ in received] == ["asset_checked_out", "asset_checked_in"]
    assert received[1][1]["target"] == holder
    assert list(ActionLog.objects.order_by("id").values_list("action_type", flat=True)) == [
        "checkout", "checkin from", "delete"]


def test_failing_receiver_rolls_everything_back(superuser):
    asset = AssetFactory()

    def boom(sender, **kwargs):
        raise RuntimeError("receiver failed")

    signals.asset_checked_out.connect(boom, weak=False)
    try:
        with pytest.raises(RuntimeError):
            services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser)
    finally:
        signals.asset_checked_out.disconnect(boom)
    asset.refresh_from_db()
    assert not asset.is_assigned and asset.checkout_counter == 0
    assert ActionLog.objects.count() == 0


def test_target_checks(superuser):
    a = AssetFactory()
    b = AssetFactory()
    services.asset_checkout(asset=b, target=a, actor=superuser)
    with pytest.raises(InvalidCheckoutTargetError):
        services.asset_checkout(asset=a, target=a, actor=superuser)
    with pytest.raises(InvalidCheckoutTargetError):
        services.asset_checkout(asset=a, target=b, actor=superuser)
    with pytest.raises(InvalidCheckoutTargetError):
        services.asset_checkout(asset=a, target=UserFactory(is_active=False), actor=superuser)


def test_service_rechecks_target_visibility(fmcs_on):
    mine, theirs = CompanyFactory(), CompanyFactory()
    actor = UserFactory(company=mine, permissions={"assets.checkout": 1})
    asset = AssetFactory(company=mine)
    with pytest.raises(InvalidCheckoutTargetError):
        services.asset_checkout(asset=asset, target=UserFactory(company=theirs), actor=actor)
    with pytest.raises(InvalidCheckoutTargetError):
        services.asset_checkout(asset=asset, target=AssetFactory(company=theirs), actor=actor)


def test_non_deployable_status_on_checkout(superuser):
    asset = AssetFactory()
    with pytest.raises(ValidationError):
        services.asset_checkout(asset=asset, target=UserFactory(), actor=superuser,
                                status=StatusLabelFactory(type="pending"))
    assert ActionLog.objects.count() == 0


class TestLogCompany:
    """Issue 25: a row belongs to its item's company, whoever acts (Snipe-IT's actor/target rule is not copied); the
    target's company is recorded beside it."""

    def test_super_user_checkout_gets_the_item_company_and_records_the_target_company(self, superuser):
        item_company, target_company = CompanyFactory(), CompanyFactory()
        asset = AssetFactory(company=item_company)
        services.asset_checkout(asset=asset, target=UserFactory(company=target_company), actor=superuser)
        log = ActionLog.objects.get(action_type="checkout")
        assert (log.company, log.target_company) == (item_company, target_company)
        services.asset_audit(asset=asset, actor=superuser)
        assert ActionLog.objects.get(action_type="audit").company == item_company

    def test_user_with_company_gets_the_item_company(self):
        theirs = CompanyFactory()
        actor = UserFactory(company=CompanyFactory())
        services.asset_audit(asset=AssetFactory(company=theirs), actor=actor)
        assert ActionLog.objects.get().company == theirs

    def test_company_less_item_gets_none(self):
        services.asset_audit(asset=AssetFactory(), actor=UserFactory(company=CompanyFactory()))
        assert ActionLog.objects.get().company is None


def test_restore_guards(superuser):
    asset = AssetFactory(asset_tag="R-1")
    with pytest.raises(AssetNotDeletedError):
        services.asset_restore(asset=asset, actor=superuser)
    services.asset_delete(asset=asset, actor=superuser)
    AssetFactory(asset_tag="r-1")
    with pytest.raises(AssetTagTakenError):
        services.asset_restore(asset=asset, actor=superuser)


def test_unique_constraint_violation_becomes_field_error(superuser):
    """The path a lost race takes: the check passed, the database refuses the second tag."""
    AssetFactory(asset_tag="RACE")
    clone = AssetFactory.build(asset_tag="race", model=AssetFactory().model, status=StatusLabelFactory())
    with pytest.raises(ValidationError) as info:
        services._save(clone)
    assert info.value.message_dict == {"asset_tag": ["The asset tag must be unique."]}
    assert Asset.objects.filter(asset_tag__iexact="race").count() == 1


def test_update_logs_changed_fields_only(superuser):
    asset = AssetFactory(name="a", serial="s", purchase_cost="1.00")
    services.asset_update(asset=asset, actor=superuser, data={"name": "b", "serial": "s", "purchase_cost": "2.5"})
    log = ActionLog.objects.get()
    assert log.action_type == "update"
    assert log.log_meta == {"name": {"old": "a", "new": "b"}, "purchase_cost": {"old": "1.00", "new": "2.50"}}


@pytest.mark.parametrize("start,months,expected", [
    (dt.date(2024, 1, 31), 1, dt.date(2024, 2, 29)),
    (dt.date(2023, 1, 31), 1, dt.date(2023, 2, 28)),
    (dt.date(2024, 11, 15), 12, dt.date(2025, 11, 15)),
    (dt.date(2024, 12, 1), 1, dt.date(2025, 1, 1)),
])
def test_add_months(start, months, expected):
    assert services.add_months(start, months) == expected
