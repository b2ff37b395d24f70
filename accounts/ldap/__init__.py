"""LDAP and Active Directory (issue 30, docs/directory.md): the settings read at call time (``config``), the
directory client on ldap3 (``directory``), the sync and sign-in services (``services``) and the authentication
backend (``backend``). Nothing here runs while ``LDAP_SERVER_URI`` is empty."""
