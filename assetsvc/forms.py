from django import forms

from assetsvc.models import SiteSettings


class SiteSettingsForm(forms.ModelForm):
    """The one validation of site settings, shared by the admin page and ``manage.py site_settings set``."""

    class Meta:
        model = SiteSettings
        exclude: list[str] = []
