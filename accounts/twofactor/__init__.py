"""Two-factor sign-in and sign-in throttling for the admin (issue 30; docs/directory.md "Two-factor sign-in and
sign-in throttling").

- :mod:`~accounts.twofactor.services`: TOTP enrolment (``accounts.models.SealedTOTPDevice``, a
  django-otp device whose seed is encrypted with ``FIELD_ENCRYPTION_KEY``), ten single-use backup codes
  (``otp_static``, stored as keyed hashes), disabling, and the super user's reset (``POST /users/two_factor_reset``).
- :mod:`~accounts.twofactor.middleware`: after the password, the admin asks for a code (or, when the site setting
  ``two_factor`` requires it and the person has no device, for enrolment) before anything else.
- :mod:`~accounts.twofactor.views`: the code page, the enrolment and management page.
- :mod:`~accounts.twofactor.throttle`: django-axes' backend, client address and lockout page.
- :mod:`~accounts.twofactor.attempts`: ``GET /settings/login-attempts`` from axes' logs.
"""
