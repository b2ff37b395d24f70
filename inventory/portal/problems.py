"""``/account/items/<kind>/<id>/problem/``: the person reports a problem with an item they hold now
(:func:`inventory.services.problems.item_problem_report`). An item they do not hold is a 404, whatever the URL."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.portal.frame import MAX_ID, portal_login_required, portal_render
from assetsvc.exceptions import InvalidInputError, NotFoundError
from inventory.selectors.holdings import KINDS, held_item
from inventory.services.problems import NOTE_MAX, item_problem_report

KIND_NAMES = {"asset": "asset", "accessory": "accessory", "consumable": "consumable", "license": "license",
              "component": "component"}


class ProblemForm(forms.Form):
    note = forms.CharField(label="What is wrong?", max_length=NOTE_MAX, strip=True,
                           widget=forms.Textarea(attrs={"rows": 5}),
                           help_text="IT sees this in the item's history.",
                           error_messages={"required": "Describe the problem."})


def item_title(kind: str, item) -> str:
    if kind == "asset":
        return f"{item.asset_tag} ({item.display_name})"
    return str(getattr(item, "name", "") or item)


@portal_login_required
@require_http_methods(["GET", "HEAD", "POST"])
def problem_report(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    if kind not in KINDS or pk > MAX_ID:
        raise Http404
    item = held_item(request.user, kind, pk)
    if item is None:
        raise Http404
    form = ProblemForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            item_problem_report(kind=kind, item=item, actor=request.user, note=form.cleaned_data["note"])
        except NotFoundError:
            raise Http404 from None
        except InvalidInputError as error:
            form.add_error("note", error.message)
        else:
            messages.success(request, f"Your report about {item_title(kind, item)} was sent to IT.")
            return HttpResponseRedirect(reverse("portal:home"))
    return portal_render(request, "portal/inventory/problem.html", page="home", title="Report a problem",
                         form=form, kind=KIND_NAMES[kind], item_name=item_title(kind, item),
                         status=400 if form.errors else 200)
