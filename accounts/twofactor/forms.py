from django import forms


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code", max_length=32, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "text", "autofocus": True,
                                      "autocapitalize": "off", "spellcheck": "false"}),
        help_text="The six digits your authenticator app shows, or one of your backup codes.")


class EnrolForm(forms.Form):
    code = forms.CharField(
        label="First code", max_length=16, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True,
                                      "pattern": "[0-9 ]*"}),
        help_text="The six digits the app shows after adding the account.")
