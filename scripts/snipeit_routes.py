"""Print Snipe-IT's API route list (``METHOD /path``, Laravel ``{param}`` placeholders) from its ``routes/api.php``.

Used once to write ``tests/compat/snipeit_routes.txt``; the committed list is the source of truth (issue 27), this
script only shows how it was made and lets a later release be compared::

    git -C /work/.mirror/snipe+snipe-it/repo show v8.1.4:routes/api.php | python scripts/snipeit_routes.py

It understands what that file uses: nested ``Route::group([... 'prefix' => ...], function () { ... })``,
``Route::get|post|put|patch|delete('path', ...)`` and ``Route::resource('name', Controller, [... 'except' => [...],
'only' => [...], 'parameters' => [...]])`` expanded as Laravel does (index, store, show, update as PUT and PATCH,
destroy; nested ``a.b`` resources under ``a/{a}``). ``Route::fallback`` and the base URL's 404 (``GET /``) are not
routes, and a route declared twice (or with another placeholder name) counts once. Lines are grouped by the
first path segment, each group under a ``# <segment>`` comment, in the file's order; duplicates are dropped.
"""

from __future__ import annotations

import re
import sys

RESOURCE_ACTIONS = [("index", "GET", False), ("store", "POST", False), ("show", "GET", True),
                    ("update", "PUT", True), ("update", "PATCH", True), ("destroy", "DELETE", True)]

TOKEN = re.compile(
    r"Route::group\(\s*\[(?P<group>.*?)\]\s*,\s*function\s*\(\)\s*\{"
    r"|Route::resource\(\s*'(?P<resource>[^']+)'(?P<resource_args>.*?)\)\s*;"
    r"|Route::(?P<method>get|post|put|patch|delete)\(\s*'(?P<path>[^']*)'"
    r"|(?P<close>\}\s*\)\s*;)",
    re.S,
)


def _strip_comments(php: str) -> str:
    php = re.sub(r"/\*.*?\*/", "", php, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", php)


def _list_option(args: str, name: str) -> list[str] | None:
    match = re.search(rf"'{name}'\s*=>\s*\[([^\]]*)\]", args)
    return None if match is None else re.findall(r"'([^']+)'", match.group(1))


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s"):
        return word[:-1]
    return word


def _join(*parts: str) -> str:
    return "/" + "/".join(p.strip("/") for p in parts if p.strip("/"))


def _resource(name: str, args: str, prefix: str) -> list[tuple[str, str]]:
    only, except_ = _list_option(args, "only"), _list_option(args, "except") or []
    parameters = dict(re.findall(r"'([^']+)'\s*=>\s*'([^']+)'",
                                 (re.search(r"'parameters'\s*=>\s*\[([^\]]*)\]", args) or [None, ""])[1]))

    def wildcard(segment: str) -> str:
        return "{" + parameters.get(segment, _singular(segment)).replace("-", "_") + "}"

    *parents, last = name.split(".")
    base = _join(prefix, *(f"{p}/{wildcard(p)}" for p in parents), last)
    routes = []
    for action, method, detail in RESOURCE_ACTIONS:
        if (only is not None and action not in only) or action in except_:
            continue
        routes.append((method, f"{base}/{wildcard(last)}" if detail else base))
    return routes


def parse(php: str) -> list[tuple[str, str]]:
    php = _strip_comments(php)
    stack: list[str] = []
    routes: list[tuple[str, str]] = []
    for match in TOKEN.finditer(php):
        if match.group("group") is not None:
            prefix = re.search(r"'prefix'\s*=>\s*'([^']*)'", match.group("group"))
            stack.append(prefix.group(1) if prefix else "")
        elif match.group("close"):
            if stack:
                stack.pop()
        elif match.group("resource"):
            routes += _resource(match.group("resource"), match.group("resource_args"), _join(*stack))
        elif match.group("method"):
            path = re.sub(r"\{(\w+)\?\}", r"{\1}", _join(*stack, match.group("path")))
            routes.append((match.group("method").upper(), path))
    # One route per method and path shape: ``bytag/{tag}`` and ``bytag/{any}`` are one route, the PUT of
    # ``hardware/{asset}`` is declared twice.
    seen: set[tuple[str, str]] = set()
    unique = []
    for method, path in routes:
        shape = (method, re.sub(r"\{\w+\}", "{}", path))
        if shape not in seen:
            seen.add(shape)
            unique.append((method, path.removeprefix("/v1") or "/"))
    # ``GET /`` is Snipe-IT's "this is the base URL" 404, not an endpoint: the service answers it the same way.
    return [route for route in unique if route != ("GET", "/")]


def render(routes: list[tuple[str, str]]) -> str:
    groups: dict[str, list[str]] = {}
    for method, path in routes:
        groups.setdefault(path.strip("/").split("/")[0] or "(root)", []).append(f"{method} {path}")
    return "\n".join(f"# {group}\n" + "\n".join(lines) + "\n" for group, lines in groups.items())


if __name__ == "__main__":
    sys.stdout.write(render(parse(sys.stdin.read())))
