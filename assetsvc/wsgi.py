"""WSGI entry point for gunicorn: ``gunicorn assetsvc.wsgi``.

After the application is loaded, its long-lived objects (modules, settings, URL patterns, compiled templates) are
moved out of the garbage collector's sight (``gc.freeze``) and the collector runs less often: a 500-row page
allocates tens of thousands of short-lived objects, and the default thresholds made a full collection land on one
request in ten, doubling its time (p95 92 -> 39 ms for ``limit=500`` at 100,000 assets; docs/performance.md).
Objects freed by reference counting are freed at once as before; only reference cycles wait longer, and an object in
a cycle that a collection finds still in use (a request in flight) moves to an older generation, collected only after
100 middle collections: thousands of requests. So an answer must not be held by a cycle: the API views and the
paginator let go of the page once it is rendered (issue 13: the worker grew to 1 GiB over 3,000 ``limit=500``
requests when every page was; tests/api/test_memory.py).
"""
import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assetsvc.settings")
application = get_wsgi_application()

#: Allocations before a young collection, and young (then middle) collections before an older one.
GC_THRESHOLDS = (50_000, 20, 100)
gc.collect()
gc.freeze()
gc.set_threshold(*GC_THRESHOLDS)
