"""The registry of the employees' pages (``/account/...``): each app adds its pages in ``AppConfig.ready()``, the
URL list (:mod:`accounts.portal.urls`) and the navigation (:func:`nav`) read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.urls import reverse

from assetsvc.registry import entries, register_entry

STORE = "portal_pages"


@dataclass(frozen=True)
class PortalPage:
    """One page under ``/account/``: ``route`` is Django's path syntax relative to ``/account/`` (``""`` is the
    portal's home), ``name`` its URL name in the ``portal`` namespace. Pages with a ``label`` are in the navigation,
    in ``order``; the others (a form's target, a file download) are only routes. ``visible`` (given the signed-in
    user) keeps a labelled page out of the navigation of those who may not use it; the page itself still refuses
    them. ``count`` (given the user) puts a number beside the label when it is not 0 ("Waiting for me 2"): one
    query per page shown, so keep it a single COUNT."""

    name: str
    route: str
    view: Callable
    label: str = ""
    order: int = 100
    visible: Callable[[object], bool] | None = None
    count: Callable[[object], int] | None = None


def register_portal_page(page: PortalPage) -> None:
    register_entry(STORE, page.name, page)


def portal_pages() -> tuple[PortalPage, ...]:
    return tuple(entries(STORE).values())


def nav(current: str = "", user=None) -> list[dict[str, object]]:
    """The navigation's links, in order: label, address, and whether it is the page shown (``current``: a name).
    A page with ``visible`` is listed only when it answers true for ``user`` (never without a user)."""
    pages = sorted((page for page in portal_pages()
                    if page.label and (page.visible is None or (user is not None and page.visible(user)))),
                   key=lambda page: (page.order, page.name))
    return [{"label": page.label, "url": reverse(f"portal:{page.name}"), "current": page.name == current,
             "count": page.count(user) if page.count is not None and user is not None else 0}
            for page in pages]
