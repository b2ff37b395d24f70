"""Where the current request came from, for the action-log rows written while handling it.

``assetsvc.api.middleware.RequestMetaMiddleware`` sets it once for every request (API and admin alike), so no view
has to remember; ``activity.services.log_action`` reads it. Outside a request (commands, workers) it is empty.
"""

from __future__ import annotations

from contextvars import ContextVar, Token

_request_meta: ContextVar[dict[str, str] | None] = ContextVar("assetsvc_request_meta", default=None)


def set_request_meta(*, remote_ip: str = "", user_agent: str = "", action_source: str = "api") -> Token:
    """Remember the caller's address and agent (cut to the log's column sizes); returns the token to reset with."""
    return _request_meta.set({"remote_ip": (remote_ip or "")[:64], "user_agent": (user_agent or "")[:255],
                              "action_source": (action_source or "")[:16]})


def reset_request_meta(token: Token) -> None:
    _request_meta.reset(token)


def current_request_meta() -> dict[str, str]:
    return _request_meta.get() or {}
