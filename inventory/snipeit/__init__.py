"""Switching from Snipe-IT (issue 31): read a running Snipe-IT through its API v1 and write it here.

``client`` reads, ``values`` decodes, ``kinds`` lists what is read and turns rows into plain dicts, ``reading``
reads a kind with its sub-lists, ``report`` is the closing report; the writers are in ``importer``. The command is
``manage.py import_snipeit`` (docs/switching-from-snipe-it.md).
"""
