"""Rule checks of the registries (``assetsvc.scoping``, ``accounts.holdings``, ``inventory.selectors.counts``) that
mutation
testing showed no other test would notice breaking."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from accounts.holdings import (
    UserHolding,
    annotate_user_counts,
    blocking_holdings,
    holds_items_of_other_company,
    register_user_holding,
)
from accounts.models import User
from activity.models import ActionLog
from assetsvc.registry import STORES, registry
from assetsvc.scoping import limiting_company_id
from assetsvc.services import alive
from inventory.models import Location
from tests.factories import AssetFactory, AssetModelFactory, CategoryFactory, LocationFactory, UserFactory

pytestmark = pytest.mark.django_db


@contextmanager
def holdings(*entries: UserHolding):
    """The user-holdings store holding exactly ``entries`` (in that order) for the block."""
    saved = dict(STORES["user_holdings"])
    STORES["user_holdings"].clear()
    try:
        for entry in entries:
            register_user_holding(entry)
        yield
    finally:
        STORES["user_holdings"].clear()
        STORES["user_holdings"].update(saved)


MANAGED = UserHolding(name="managed", model_label="inventory.Location", user_field="manager", company_field=None)
ASSETS = UserHolding(name="assets", model_label="inventory.Asset", user_field="assigned_user",
                     count_name="assets_count", blocks_delete=("one", "many :count"), messages_key="assets")


def test_without_a_scope_policy_scoped_rows_fail_closed(company):
    from activity.services import log_action

    member = UserFactory(company=company)
    log_action(action_type="create", item_type="asset", item_id=1, actor=member, company_id=company.pk)
    policy = registry.pop("scope_policy")
    try:
        assert not ActionLog.objects.restrict(member).exists()
        assert limiting_company_id(member) is None
    finally:
        registry["scope_policy"] = policy
    assert ActionLog.objects.restrict(member).exists()


def test_holdings_without_a_count_a_guard_or_a_company_do_not_stop_the_others(company, other_company):
    holder = UserFactory(company=company)
    LocationFactory(manager=holder)
    AssetFactory(assigned_user=holder, company=other_company)
    with holdings(MANAGED, ASSETS):
        assert annotate_user_counts(User.objects.filter(pk=holder.pk)).get().assets_count == 1
        assert [(h.name, n) for h, n in blocking_holdings(holder)] == [("assets", 1)]
        assert holds_items_of_other_company(holder, company.pk)


@pytest.mark.parametrize("count_name", ["assets_count", "licenses_count", None])
def test_a_holding_may_fill_a_user_count_key_or_none(count_name):
    with holdings(UserHolding(name="x", model_label="inventory.Asset", user_field="assigned_user",
                              count_name=count_name)):
        assert list(STORES["user_holdings"]) == ["x"]


def test_a_holding_may_not_invent_a_user_count_key():
    with holdings(), pytest.raises(ValueError):
        register_user_holding(UserHolding(name="x", model_label="inventory.Asset", user_field="assigned_user",
                                          count_name="widgets_count"))


def test_alive_leaves_models_without_soft_delete_alone():
    LocationFactory()
    assert alive(Location.objects.all()).count() == 1


def test_an_asset_model_holds_its_category_whatever_its_type(token_client):
    """The flag and the refusal agree, also for data from before the type rule (the foreign key protects it)."""
    category = CategoryFactory(category_type="accessory")
    AssetModelFactory(category=category)
    assert token_client.get(f"/api/v1/categories/{category.pk}").json()["available_actions"]["delete"] is False
    body = token_client.delete(f"/api/v1/categories/{category.pk}").json()
    assert body["status"] == "error" and "cannot be deleted" in body["message"]
    assert CategoryFactory._meta.model.objects.filter(pk=category.pk).exists()
    empty = CategoryFactory(category_type="accessory")
    assert token_client.get(f"/api/v1/categories/{empty.pk}").json()["available_actions"]["delete"] is True
