"""``/account/profile/``: who the person is here (name, e-mail, phone, location, department, company, username), and
what they may change themselves: names and phone, the location with ``self.edit_location``; nothing when the
directory (LDAP or SCIM) keeps the profile; the e-mail never (as Snipe-IT)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.models import User
from accounts.permissions import has_access
from accounts.portal.frame import portal_login_required, portal_render
from accounts.services import PROFILE_MANAGED, profile_managed_by_directory, user_profile_update
from accounts.twofactor.services import has_two_factor
from assetsvc.exceptions import DomainError

#: Locations belong to inventory, a layer above: the user's foreign key names the model (as accounts/api/users.py).
LOCATION_MODEL = User._meta.get_field("location").related_model


class ProfileForm(forms.Form):
    first_name = forms.CharField(label="First name", max_length=191, required=False,
                                 widget=forms.TextInput(attrs={"autocomplete": "given-name"}))
    last_name = forms.CharField(label="Last name", max_length=191, required=False,
                                widget=forms.TextInput(attrs={"autocomplete": "family-name"}))
    phone = forms.CharField(label="Phone", max_length=50, required=False,
                            widget=forms.TextInput(attrs={"type": "tel", "autocomplete": "tel"}))

    def __init__(self, *args, may_edit_location: bool, **kwargs):
        super().__init__(*args, **kwargs)
        if may_edit_location:
            self.fields["location"] = forms.ModelChoiceField(
                label="Location", required=False, empty_label="(none)",
                queryset=LOCATION_MODEL._default_manager.order_by("name", "pk"))


@portal_login_required
@require_http_methods(["GET", "POST"])
def profile(request):
    user = User.objects.select_related("company", "location", "department").get(pk=request.user.pk)
    managed = profile_managed_by_directory(user)
    may_edit_location = has_access(user, "self.edit_location")
    if managed:
        if request.method == "POST":  # no form is shown: a crafted POST changes nothing
            messages.error(request, PROFILE_MANAGED)
            return HttpResponseRedirect(reverse("portal:profile"))
        form = None
    else:
        initial = {"first_name": user.first_name, "last_name": user.last_name, "phone": user.phone,
                   "location": user.location_id}
        form = ProfileForm(request.POST or None, initial=initial, may_edit_location=may_edit_location)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                user_profile_update(user=user, actor=request.user, first_name=data["first_name"],
                                    last_name=data["last_name"], phone=data["phone"],
                                    location=data["location"] if may_edit_location else user.location)
            except (DomainError, PermissionDenied) as exc:
                messages.error(request, str(exc) or "This change is not allowed.")
            except ValidationError as exc:  # the model's own checks (user_update runs them): a message, never a 500
                messages.error(request, " ".join(exc.messages))
            else:
                messages.success(request, "Your profile is saved.")
            return HttpResponseRedirect(reverse("portal:profile"))
    return portal_render(request, "portal/accounts/profile.html", page="profile", title="Profile",
                         status=400 if form is not None and form.errors else 200, person=user, form=form,
                         managed=managed, may_edit_location=may_edit_location, two_factor_on=has_two_factor(user),
                         may_use_tokens=has_access(user, "self.api"))
