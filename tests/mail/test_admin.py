"""The back office's mail pieces (issue 29): the mail log (filters, company separation, sending again) and the site
settings page's "Send test mail" button, through the real SMTP server."""

from __future__ import annotations

import pytest
from django.urls import reverse

from assetsvc.models import SiteSettings
from notifications.models import OutboundMail
from tests.conftest import run_mail_queue
from tests.factories import CompanyFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
LOG = reverse("admin:notifications_outboundmail_changelist")


def mail(to: str, status: str = "sent", company=None, **more) -> OutboundMail:
    return OutboundMail.objects.create(to=to, subject=f"About {to}", text_body="text", event="asset.checked_out",
                                       message_id=f"<{to}.{status}@test>", status=status, company=company, **more)


def test_the_mail_log_lists_and_filters(signed_in):
    boss = UserFactory(superuser=True)
    mail("a@example.com", "sent")
    mail("b@example.com", "failed", last_error="550 No such user")
    page = signed_in(boss).get(LOG).content.decode()
    assert "a@example.com" in page and "b@example.com" in page and "550 No such user" in page
    failed = signed_in(boss).get(LOG, {"status__exact": "failed"}).content.decode()
    assert "b@example.com" in failed and "a@example.com" not in failed


def test_a_company_administrator_sees_only_their_company_mails(signed_in):
    settings = SiteSettings.load()
    settings.full_multiple_companies_support = True
    settings.save()
    mine, theirs = CompanyFactory(), CompanyFactory()
    mail("mine@example.com", company=mine)
    mail("theirs@example.com", company=theirs)
    mail("nobody@example.com")
    admin = UserFactory(company=mine, permissions={"admin": 1})
    page = signed_in(admin).get(LOG)
    assert page.status_code == 200
    text = page.content.decode()
    assert "mine@example.com" in text and "theirs@example.com" not in text and "nobody@example.com" not in text
    other = OutboundMail.objects.get(to="theirs@example.com")
    assert signed_in(admin).get(reverse("admin:notifications_outboundmail_change", args=[other.pk])).status_code \
        in (302, 404)
    assert signed_in(UserFactory(permissions={})).get(LOG).status_code == 302  # not an administrator: sign in


def test_send_again_queues_failed_and_uncertain_mails_only(signed_in, smtp_server):
    boss = UserFactory(superuser=True)
    failed, uncertain, sent = mail("f@example.com", "failed"), mail("u@example.com", "uncertain"), mail("s@x.org")
    OutboundMail.objects.filter(pk__in=[failed.pk, uncertain.pk]).update(attempts=10)
    response = signed_in(boss).post(LOG, {"action": "send_again", "_selected_action": [failed.pk, uncertain.pk,
                                                                                       sent.pk]}, follow=True)
    assert "2 mail(s) queued again" in response.content.decode()
    run_mail_queue()
    assert sorted(m.rcpt_tos[0] for m in smtp_server.wait_for(2)) == ["f@example.com", "u@example.com"]
    assert OutboundMail.objects.get(pk=failed.pk).status == "sent"


def test_the_settings_page_sends_a_test_mail_to_the_signed_in_person(signed_in, smtp_server):
    boss = UserFactory(superuser=True, email="boss@example.com")
    client = signed_in(boss)
    page = client.get(reverse("admin:assetsvc_sitesettings_change", args=[SiteSettings.load().pk])).content.decode()
    assert 'id="send-test-mail"' in page and 'name="alert_email"' in page and 'name="default_eula_text"' in page
    answer = client.post(reverse("admin:assetsvc_sitesettings_send_test_mail"), follow=True).content.decode()
    assert "Mail sent to boss@example.com." in answer
    assert [m.rcpt_tos for m in smtp_server.wait_for(1)] == [["boss@example.com"]]
    smtp_server.stop()
    answer = client.post(reverse("admin:assetsvc_sitesettings_send_test_mail"), follow=True).content.decode()
    assert "The test mail to boss@example.com failed: ConnectionRefusedError" in answer
    assert client.get(reverse("admin:assetsvc_sitesettings_send_test_mail")).status_code == 405
    admin = UserFactory(permissions={"admin": 1}, email="a@example.com")
    assert signed_in(admin).post(reverse("admin:assetsvc_sitesettings_send_test_mail")).status_code == 403


def test_alert_email_is_checked_and_tidied(signed_in):
    from django.core.exceptions import ValidationError

    from assetsvc.site_settings import site_settings_update

    with pytest.raises(ValidationError) as refused:
        site_settings_update({"alert_email": "it@example.com, not-an-address"})
    assert "not-an-address" in str(refused.value)
    assert site_settings_update({"alert_email": " it@example.com ;ops@example.com,, "}).alert_email == \
        "it@example.com, ops@example.com"
