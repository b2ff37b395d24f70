"""What the lower apps need to know of the person acting, as a structural type.

``companies`` and the ``accounts`` helpers read a handful of attributes of the user making a request. Naming
``accounts.models.User`` in their annotations made an import edge upward (``companies``) or a circle inside
``accounts`` once annotations count for import-linter (issue 26); this protocol names the attributes instead.
"""

from __future__ import annotations

from typing import Protocol


class Actor(Protocol):
    """A user as the scoping and permission rules see one (``accounts.models.User`` fits it)."""

    pk: int | None
    company_id: int | None
    is_active: bool
    is_superuser: bool

    @property
    def is_authenticated(self) -> bool: ...
