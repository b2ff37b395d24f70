"""The admin's two-factor pages: the code page after the password, and the person's own enrolment and management
page (QR code, key in text, first code, backup codes shown once, new codes, switching it off)."""

from __future__ import annotations

import segno
from django.contrib import admin, messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods
from django_otp import login as otp_login

from accounts.twofactor import services
from accounts.twofactor.forms import CodeForm, EnrolForm

TEMPLATES = "admin/accounts/twofactor/"


def _next_url(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                   require_https=request.is_secure()):
        return target
    return reverse("admin:index")


def _context(request, title: str, **extra):
    return {**admin.site.each_context(request), "title": title, "next": _next_url(request), **extra}


def _admin_login_required(view):
    return login_required(view, login_url="admin:login")


@never_cache
@sensitive_post_parameters("code")
@require_http_methods(["GET", "POST"])
@_admin_login_required
def verify(request):
    """``/admin/two-factor/verify/``: the code after the password."""
    user = request.user
    if user.is_verified() or not services.has_two_factor(user):
        return HttpResponseRedirect(_next_url(request))
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        wait = services.code_wait_seconds(user)  # still throttled from earlier wrong codes: say so
        device = services.verify_code(user=user, code=form.cleaned_data["code"])
        if device is not None:
            otp_login(request, device)
            return HttpResponseRedirect(_next_url(request))
        form.add_error("code", f"Too many wrong codes: wait {wait} seconds and type the code shown then." if wait
                       else "This code is not valid (or was used already). Try the next one.")
    return render(request, TEMPLATES + "verify.html", _context(request, "Two-factor sign-in", form=form))


def _qr_svg(url: str) -> str:
    return mark_safe(segno.make(url, error="m").svg_inline(scale=5, dark="#000", light="#fff",  # noqa: S308
                                                            title="Scan with your authenticator app"))


@never_cache
@sensitive_post_parameters("code")
@require_http_methods(["GET", "POST"])
@_admin_login_required
def manage(request):
    """``/admin/two-factor/``: enrol (no authenticator yet) or manage (new backup codes, switch off)."""
    user = request.user
    if services.has_two_factor(user):
        if not user.is_verified():
            return HttpResponseRedirect(f"{reverse('two-factor-verify')}?next={reverse('two-factor')}")
        return _manage_enrolled(request)
    device = services.totp_pending_device(user=user)
    form = EnrolForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        codes = services.totp_confirm(user=user, device=device, code=form.cleaned_data["code"])
        if codes is not None:
            device.refresh_from_db()
            otp_login(request, device)
            return _show_codes(request, codes, "Two-factor sign-in is on")
        form.add_error("code", "This code does not match. Check the phone's clock and type the code shown now.")
    context = _context(request, "Set up two-factor sign-in", form=form, qr_svg=_qr_svg(device.config_url),
                       secret=services.totp_secret_text(device), required=services.two_factor_required(user))
    return render(request, TEMPLATES + "enrol.html", context)


def _manage_enrolled(request):
    user = request.user
    required = services.two_factor_required(user)
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "codes":
            return _show_codes(request, services.backup_codes_issue(user=user), "New backup codes")
        if action == "disable":
            if required:
                messages.error(request, "Two-factor sign-in is required on this site: it cannot be switched off.")
            else:
                services.two_factor_disable(user=user)
                messages.success(request, "Two-factor sign-in is off.")
                return HttpResponseRedirect(reverse("admin:index"))
        return HttpResponseRedirect(reverse("two-factor"))
    context = _context(request, "Two-factor sign-in", codes_left=services.backup_codes_left(user), required=required)
    return render(request, TEMPLATES + "manage.html", context)


def _show_codes(request, codes: list[str], title: str):
    """The backup codes, on this answer only (never stored readable, never shown again)."""
    response = render(request, TEMPLATES + "codes.html", _context(request, title, codes=codes))
    response["Cache-Control"] = "no-store"
    return response
