"""The two-factor pages: the code page after the password, and the person's own enrolment and management page (QR
code, key in text, first code, backup codes shown once, new codes, switching it off).

The logic is written once and shown in two frames (:class:`Frame`): the admin's (``/admin/two-factor/``, staff, here)
and the employees' portal's (``/account/two-factor/``, every active user; issue 32: ``accounts.portal.twofactor``,
which imports this module, not the other way round). A frame names its templates, its URLs and how a page is
rendered; :func:`pages` builds the two views of a frame."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Frame:
    """Where the two-factor pages live: ``templates`` (a folder with ``verify``, ``enrol``, ``manage`` and ``codes``
    ``.html``), the URL names of the two pages, of the home page (after switching off, the default ``next``) and of
    the sign-in page, and ``render(request, template, title, context)``."""

    templates: str
    verify_url: str
    manage_url: str
    home_url: str
    login_url: str
    render: Callable


def _admin_render(request, template: str, title: str, context: dict):
    return render(request, template, {**admin.site.each_context(request), "title": title, **context})


ADMIN = Frame("admin/accounts/twofactor/", "two-factor-verify", "two-factor", "admin:index", "admin:login",
              _admin_render)


def _next_url(request, frame: Frame) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                   require_https=request.is_secure()):
        return target
    return reverse(frame.home_url)


def _page(request, frame: Frame, name: str, title: str, **extra):
    return frame.render(request, frame.templates + name, title, {"next": _next_url(request, frame), **extra})


def _verify(request, frame: Frame):
    """The code after the password."""
    user = request.user
    if user.is_verified() or not services.has_two_factor(user):
        return HttpResponseRedirect(_next_url(request, frame))
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        wait = services.code_wait_seconds(user)  # still throttled from earlier wrong codes: say so
        device = services.verify_code(user=user, code=form.cleaned_data["code"])
        if device is not None:
            otp_login(request, device)
            return HttpResponseRedirect(_next_url(request, frame))
        form.add_error("code", f"Too many wrong codes: wait {wait} seconds and type the code shown then." if wait
                       else "This code is not valid (or was used already). Try the next one.")
    return _page(request, frame, "verify.html", "Two-factor sign-in", form=form)


def _qr_svg(url: str) -> str:
    return mark_safe(segno.make(url, error="m").svg_inline(scale=5, dark="#000", light="#fff",  # noqa: S308
                                                            title="Scan with your authenticator app"))


def _manage(request, frame: Frame):
    """Enrol (no authenticator yet) or manage (new backup codes, switch off)."""
    user = request.user
    if services.has_two_factor(user):
        if not user.is_verified():
            return HttpResponseRedirect(f"{reverse(frame.verify_url)}?next={reverse(frame.manage_url)}")
        return _manage_enrolled(request, frame)
    device = services.totp_pending_device(user=user)
    form = EnrolForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        codes = services.totp_confirm(user=user, device=device, code=form.cleaned_data["code"])
        if codes is not None:
            device.refresh_from_db()
            otp_login(request, device)
            return _show_codes(request, frame, codes, "Two-factor sign-in is on")
        form.add_error("code", "This code does not match. Check the phone's clock and type the code shown now.")
    return _page(request, frame, "enrol.html", "Set up two-factor sign-in", form=form,
                 qr_svg=_qr_svg(device.config_url), secret=services.totp_secret_text(device),
                 required=services.two_factor_required(user))


def _manage_enrolled(request, frame: Frame):
    user = request.user
    required = services.two_factor_required(user)
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "codes":
            return _show_codes(request, frame, services.backup_codes_issue(user=user), "New backup codes")
        if action == "disable":
            if required:
                messages.error(request, "Two-factor sign-in is required on this site: it cannot be switched off.")
            else:
                services.two_factor_disable(user=user)
                messages.success(request, "Two-factor sign-in is off.")
                return HttpResponseRedirect(reverse(frame.home_url))
        return HttpResponseRedirect(reverse(frame.manage_url))
    return _page(request, frame, "manage.html", "Two-factor sign-in", codes_left=services.backup_codes_left(user),
                 required=required)


def _show_codes(request, frame: Frame, codes: list[str], title: str):
    """The backup codes, on this answer only (never stored readable, never shown again)."""
    response = _page(request, frame, "codes.html", title, codes=codes)
    response["Cache-Control"] = "no-store"
    return response


def pages(frame: Frame) -> tuple[Callable, Callable]:
    """The code page and the enrolment/management page of ``frame``: signed-in people only (others go to the frame's
    sign-in page), never cached, the code kept out of error reports."""

    def wrap(view):
        def page(request):
            return view(request, frame)

        page.__name__ = page.__qualname__ = view.__name__.lstrip("_")
        page.__doc__ = view.__doc__
        guarded = login_required(page, login_url=frame.login_url)
        return never_cache(sensitive_post_parameters("code")(require_http_methods(["GET", "POST"])(guarded)))

    return wrap(_verify), wrap(_manage)


verify, manage = pages(ADMIN)  # /admin/two-factor/verify/ and /admin/two-factor/
