"""``/account/tokens/``: the person's own personal access tokens for the API (issue 32), for those allowed the API
(``self.api``, Snipe-IT's "Create API Keys"): the list (name, created, expires; never the value), a new one (its value
shown once, on the page that answers the form) and revoking. The same services and rules as
``/api/v1/account/personal-access-tokens``: the name is optional ("Auth Token"), the expiry is the site's
``API_TOKEN_EXPIRATION_YEARS``."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import has_access
from accounts.portal.frame import portal_login_required, portal_render
from accounts.services import DEFAULT_TOKEN_NAME, personal_token_issue, personal_token_revoke, personal_tokens_active
from assetsvc.conf import app_settings
from assetsvc.exceptions import NotFoundError

NOT_ALLOWED = "Your account may not use the API. Ask IT if you need it."
NOT_FOUND = "Token not found."


def may_use_api(user) -> bool:
    """The navigation shows the tokens page to these people only; the page refuses everyone else."""
    return has_access(user, "self.api")


class TokenForm(forms.Form):
    name = forms.CharField(label="Name", max_length=255, required=False, strip=True,
                           help_text=f"What the token is for, e.g. the script that uses it. Empty: "
                                     f"“{DEFAULT_TOKEN_NAME}”.")


def _refused(request, text: str):
    return portal_render(request, "portal/accounts/refused.html", page="tokens", title="Not found", status=404,
                         text=text)


@portal_login_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    if not may_use_api(request.user):
        return _refused(request, NOT_ALLOWED)
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        record, raw = personal_token_issue(user=request.user, name=form.cleaned_data["name"] or DEFAULT_TOKEN_NAME)
        response = portal_render(request, "portal/accounts/token_created.html", page="tokens",
                                 title="Your new API token", record=record, raw=raw)
        response["Cache-Control"] = "no-store, private"
        return response
    return portal_render(request, "portal/accounts/tokens.html", page="tokens", title="API tokens",
                         status=400 if form.errors else 200, form=form, years=app_settings.API_TOKEN_EXPIRATION_YEARS,
                         tokens=list(personal_tokens_active(user=request.user)))


@portal_login_required
@require_POST
def token_revoke(request, token_id: str):
    """``POST /account/tokens/<id>/revoke/``: one of the person's own tokens; anyone else's is "not found"."""
    if not may_use_api(request.user):
        return _refused(request, NOT_ALLOWED)
    try:
        record = personal_token_revoke(user=request.user, token_id=token_id)
    except NotFoundError:
        return _refused(request, NOT_FOUND)
    messages.success(request, f"The token “{record.name}” is revoked: it no longer works.")
    return HttpResponseRedirect(reverse("portal:tokens"))
