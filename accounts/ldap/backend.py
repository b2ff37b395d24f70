"""Admin sign-in with the directory password (``AUTHENTICATION_BACKENDS`` gets it only when ``LDAP_SERVER_URI`` is
set). After ``accounts.backends.UsernameBackend``: a local user's own password is tried first; a directory user has
no usable local password. The admin itself still admits only those ``accounts.permissions.may_use_admin_site``
allows (``User.is_staff``): a directory sign-in gives no rights."""

from __future__ import annotations

import logging

from accounts.backends import UsernameBackend
from accounts.ldap import directory
from accounts.ldap.config import ldap_config
from accounts.ldap.services import ldap_login_user

logger = logging.getLogger(__name__)


class LdapBackend(UsernameBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        config = ldap_config()
        if not config.enabled or not username or not password:
            return None
        try:
            person = directory.person_login(config, username, password)
        except directory.LDAPException as exc:
            # the class only: an exception text may quote the bind DN; never the password
            logger.warning("LDAP sign-in of %r failed: %s", username, type(exc).__name__)
            return None
        if person is None:
            return None
        user = ldap_login_user(person)
        return user if user is not None and self.user_can_authenticate(user) else None
