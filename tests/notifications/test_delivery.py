"""Delivery faults against real local receivers: refused, 500, slow, redirect, non-JSON, invalid configuration,
a burst of 200. Each is logged (delivery log + server log) and never retried. Durability (the queue is a table) is
in test_durable.py."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import pytest
from django.db import connection, transaction
from django_tasks_db.models import DBTaskResult
from werkzeug import Response

from inventory.models import Asset
from inventory.signals import asset_checked_out
from notifications.models import WebhookDelivery
from tests.factories import AssetFactory, UserFactory
from tests.notifications.conftest import HOOK_PATH, wait_for_idle


@pytest.fixture
def scene(admin_user):
    return AssetFactory(asset_tag="TAG-1", name="Laptop"), admin_user, UserFactory(first_name="G", last_name="H")


def checkout(scene) -> None:
    """Send one checkout signal in a committed transaction."""
    asset, admin, target = scene
    with transaction.atomic():
        asset_checked_out.send(sender=Asset, item=asset, actor=admin, target=target, note="", log=None)


def checkout_queued_only(scene) -> None:
    """A checkout whose commit only queued its notification: no attempt was made before a worker runs (the
    structure, not a timing, shows a dead or slow receiver cannot slow a change)."""
    checkout(scene)
    assert WebhookDelivery.objects.count() == 0 and DBTaskResult.objects.ready().count() == 1


def only_row() -> WebhookDelivery:
    assert wait_for_idle(10)
    rows = list(WebhookDelivery.objects.all())
    assert len(rows) == 1, rows
    return rows[0]


def test_refused_connection_is_logged(webhook, scene, closed_port_url, caplog):
    webhook("slack", closed_port_url)
    checkout_queued_only(scene)
    row = only_row()
    assert (row.success, row.status_code, row.error, row.endpoint) == (False, None, "ConnectionError",
                                                                       closed_port_url)
    assert row.request_body["text"].startswith("Asset TAG-1 (Laptop) was checked out to G H")
    assert f"endpoint={closed_port_url}" in caplog.text and "error=ConnectionError" in caplog.text


def test_server_error_is_logged_and_not_retried(webhook, receiver, scene, caplog):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("boom", status=500)
    checkout(scene)
    row = only_row()
    assert (row.success, row.status_code, row.error) == (False, 500, "HTTP 500")
    assert len(receiver.log) == 1  # not retried
    assert "Webhook delivery failed (not retried)" in caplog.text and "status=500" in caplog.text


def test_slow_receiver_times_out_without_slowing_the_commit(webhook, slow_receiver, scene):
    webhook("slack", slow_receiver.url_for(HOOK_PATH))
    checkout_queued_only(scene)
    row = only_row()
    assert (row.success, row.status_code, row.error) == (False, None, "ReadTimeout")
    assert 900 <= row.latency_ms < 3000


def test_redirect_is_not_followed(webhook, receiver, scene):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_response(
        Response(status=302, headers={"Location": receiver.url_for("/elsewhere")}))
    receiver.expect_request("/elsewhere").respond_with_json({})
    checkout(scene)
    row = only_row()
    assert (row.success, row.status_code, row.error) == (False, 302, "HTTP 302 redirect not followed")
    assert [request.path for request, _ in receiver.log] == [HOOK_PATH]


def test_non_json_answer_is_a_success(webhook, receiver, scene):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("ok", content_type="text/plain")
    checkout(scene)
    row = only_row()
    assert (row.success, row.status_code, row.error) == (True, 200, "")
    assert row.latency_ms is not None


def test_any_2xx_is_a_success(webhook, receiver, scene):
    webhook("google", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_data("", status=204)
    checkout(scene)
    assert only_row().success


@pytest.mark.parametrize(
    ("overrides", "expected_error"),
    [
        ({"WEBHOOK_ENDPOINT": "ftp://x"}, "must be an http:// or https:// URL"),
        ({"WEBHOOK_SECRET": "too-short"}, "WEBHOOK_SECRET must be 16 to 255 characters"),
    ],
)
def test_invalid_configuration_is_logged_without_a_request(webhook, receiver, scene, settings, overrides,
                                                           expected_error, caplog):
    webhook("slack", receiver.url_for(HOOK_PATH))
    settings.ASSETSVC = {**settings.ASSETSVC, **overrides}
    checkout(scene)
    row = only_row()
    assert (row.success, row.error, row.request_body) == (False, "InvalidConfiguration", None)
    assert receiver.log == []
    assert expected_error in caplog.text


def test_card_kind_legacy_url_logs_a_deprecation_warning(webhook, receiver, scene, caplog):
    webhook("microsoft", receiver.url_for("/webhookb2/abc/IncomingWebhook/def"), channel="")
    receiver.expect_request("/webhookb2/abc/IncomingWebhook/def", method="POST").respond_with_data("1")
    with caplog.at_level(logging.WARNING, logger="notifications.delivery"):
        checkout(scene)
        assert only_row().success  # still delivered, as the adaptive card
    assert "DEPRECATED webhook endpoint" in caplog.text


def test_log_lines_drop_the_query_string(webhook, closed_port_url, scene, caplog):
    webhook("microsoft", closed_port_url + "/workflows/x?sig=SECRET", channel="")
    checkout(scene)
    assert only_row().endpoint.endswith("?sig=SECRET")  # the admin-only log keeps the configured URL
    assert "SECRET" not in caplog.text


def test_burst_of_200_never_blocks_and_every_one_is_logged(webhook, gated_receiver, scene, settings):
    server, gate = gated_receiver  # the receiver holds its answers until the burst is over
    webhook("slack", server.url_for(HOOK_PATH))
    settings.ASSETSVC = {**settings.ASSETSVC, "WEBHOOK_TIMEOUT": 30}
    for _ in range(200):
        checkout(scene)
    assert server.log == [] and DBTaskResult.objects.ready().count() == 200  # queued; no commit waited for a POST
    gate.set()
    assert wait_for_idle(60)
    assert WebhookDelivery.objects.filter(success=True).count() == 200
    assert len(server.log) == 200


@contextmanager
def delivery_log_refused():
    """The database itself refuses every insert into the delivery log (a real trigger, not a patched model)."""
    table = WebhookDelivery._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CREATE FUNCTION refuse_delivery_log() RETURNS trigger AS $$ "
                           "BEGIN RAISE EXCEPTION 'database unavailable'; END $$ LANGUAGE plpgsql")
            cursor.execute(f"CREATE TRIGGER refuse_delivery_log BEFORE INSERT ON {table} "
                           "FOR EACH ROW EXECUTE FUNCTION refuse_delivery_log()")
        else:
            cursor.execute(f"CREATE TRIGGER refuse_delivery_log BEFORE INSERT ON {table} "
                           "BEGIN SELECT RAISE(ABORT, 'database unavailable'); END")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(f"DROP TRIGGER refuse_delivery_log ON {table}")
                cursor.execute("DROP FUNCTION refuse_delivery_log()")
            else:
                cursor.execute("DROP TRIGGER refuse_delivery_log")


def test_worker_survives_a_failing_log_write(webhook, receiver, scene, caplog):
    webhook("slack", receiver.url_for(HOOK_PATH))
    receiver.expect_request(HOOK_PATH, method="POST").respond_with_json({})

    with delivery_log_refused():
        checkout(scene)
        assert wait_for_idle(10)
    assert "Could not record the webhook delivery" in caplog.text
    checkout(scene)  # the same workers go on
    assert only_row().success
