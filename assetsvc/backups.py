"""Backups of the database and the uploaded files in one archive, and their restore (issue 27; docs/operations.md).

An archive is a zip file in ``BACKUP_DIR`` named ``assetsvc-backup-<UTC timestamp>.zip`` holding:

- ``database/db.pgdump`` (PostgreSQL, ``pg_dump --format=custom``) or ``database/db.sqlite3`` (SQLite, the online
  backup API, consistent while the service writes);
- ``files/<path>``: every file under ``FILES_DIR`` when that setting exists (uploads);
- ``manifest.json``: when, which version of the service, which database vendor, the migrations applied per app,
  and every other member with its size and SHA-256.

The archive is written under a dot-name (never listed) with mode 0600 and renamed into place once complete, so a
listing or a download never sees half an archive. After a successful backup the oldest archives beyond
``BACKUP_KEEP`` are deleted. Credentials never reach an argument list, a log line or the manifest: ``pg_dump`` and
``pg_restore`` get the connection through ``PG*`` environment variables.

A restore checks the whole archive first (manifest, every checksum, member names, vendor, migrations the code does
not know), then refuses a database that has any table unless ``force`` (which drops them all first) and files that
already exist under ``FILES_DIR`` unless ``force`` (which overwrites them).

This module knows the database and the files only, nothing of the kinds of items; it sits in the framework layer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT_VERSION = 1
PREFIX = "assetsvc-backup-"
#: The names ``backup`` writes; retention and the API consider only these (other files in the folder are left alone).
ARCHIVE_NAME = re.compile(r"^assetsvc-backup-[0-9]{8}T[0-9]{6}(?:\.[0-9]{6})?Z\.zip$")
DB_MEMBER = {"postgresql": "database/db.pgdump", "sqlite": "database/db.sqlite3"}
FILES_PREFIX = "files/"
CHUNK = 1024 * 1024


class BackupError(Exception):
    """A backup or a restore that cannot go on; the message is for the operator (no credentials in it)."""


@dataclass(frozen=True)
class BackupFile:
    """An archive in ``BACKUP_DIR``."""

    path: Path
    size: int
    modified: float

    @property
    def name(self) -> str:
        return self.path.name


# --- where ---------------------------------------------------------------------------------------------------------


def backup_dir() -> Path:
    return Path(settings.BACKUP_DIR)


def files_dir() -> Path | None:
    """The uploads folder, when the service has one (``FILES_DIR``)."""
    value = getattr(settings, "FILES_DIR", None)
    return Path(value) if value else None


def list_backups() -> list[BackupFile]:
    """The archives in ``BACKUP_DIR``, newest first (by modification time, then name)."""
    folder = backup_dir()
    if not folder.is_dir():
        return []
    found = []
    for entry in os.scandir(folder):
        if ARCHIVE_NAME.match(entry.name) and entry.is_file(follow_symlinks=False):
            stat = entry.stat(follow_symlinks=False)
            found.append(BackupFile(Path(entry.path), stat.st_size, stat.st_mtime))
    return sorted(found, key=lambda b: (b.modified, b.name), reverse=True)


def find_backup(name: str) -> BackupFile | None:
    """The archive called ``name`` if the listing holds it: a name is never joined to a path unchecked."""
    return next((b for b in list_backups() if b.name == name), None)


# --- backup --------------------------------------------------------------------------------------------------------


def vendor(alias: str = DEFAULT_DB_ALIAS) -> str:
    name = connections[alias].vendor
    if name not in DB_MEMBER:
        raise BackupError(f"backups support PostgreSQL and SQLite, not {name}")
    return name


def app_version() -> str:
    try:
        return metadata.version("assetsvc")
    except metadata.PackageNotFoundError:
        text = (Path(settings.BASE_DIR) / "pyproject.toml").read_text(encoding="utf-8")
        match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
        return match.group(1) if match else "unknown"


def applied_migrations(alias: str = DEFAULT_DB_ALIAS) -> dict[str, list[str]]:
    """App label → the names of its applied migrations, sorted."""
    applied: dict[str, list[str]] = {}
    for app, name in sorted(MigrationRecorder(connections[alias]).applied_migrations()):
        applied.setdefault(app, []).append(name)
    return applied


def pg_environment(alias: str = DEFAULT_DB_ALIAS) -> dict[str, str]:
    """The ``PG*`` variables that point the client programs at the database (the password among them, so it is
    never an argument anyone can read in the process list)."""
    conf = connections[alias].settings_dict
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    pairs = {"PGHOST": conf.get("HOST"), "PGPORT": conf.get("PORT"), "PGUSER": conf.get("USER"),
             "PGPASSWORD": conf.get("PASSWORD"), "PGDATABASE": conf.get("NAME")}
    options = conf.get("OPTIONS") or {}
    for option, variable in (("sslmode", "PGSSLMODE"), ("sslrootcert", "PGSSLROOTCERT"), ("sslcert", "PGSSLCERT"),
                             ("sslkey", "PGSSLKEY"), ("connect_timeout", "PGCONNECT_TIMEOUT")):
        pairs[variable] = options.get(option)
    env.update({key: str(value) for key, value in pairs.items() if value not in (None, "")})
    return env


def run_client(args: list[str], *, alias: str = DEFAULT_DB_ALIAS) -> None:
    """Run ``pg_dump``/``pg_restore``; a failure raises with the program's own message (it names no password)."""
    program = shutil.which(args[0])
    if program is None:
        raise BackupError(f"{args[0]} is not installed (Debian: apt-get install postgresql-client)")
    result = subprocess.run([program, *args[1:]], env=pg_environment(alias), capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        raise BackupError(f"{args[0]} failed: {result.stderr.strip()}")


def dump_database(target: Path, alias: str = DEFAULT_DB_ALIAS) -> None:
    if vendor(alias) == "postgresql":
        run_client(["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={target}"], alias=alias)
        return
    connection = connections[alias]
    connection.ensure_connection()
    destination = sqlite3.connect(target)
    try:
        connection.connection.backup(destination)
    finally:
        destination.close()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def uploaded_files() -> list[tuple[Path, str]]:
    """Every regular file under ``FILES_DIR`` → its archive name (symbolic links are not followed)."""
    root = files_dir()
    if root is None or not root.is_dir():
        return []
    found = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                found.append((path, FILES_PREFIX + path.relative_to(root).as_posix()))
    return found


def backup_create(*, alias: str = DEFAULT_DB_ALIAS, keep: int | None = None) -> BackupFile:
    """Write one archive into ``BACKUP_DIR`` (atomically, mode 0600), then delete the oldest beyond ``keep``
    (``BACKUP_KEEP``). Returns the new archive."""
    db_vendor = vendor(alias)
    folder = backup_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = datetime.now(UTC)
    name = f"{PREFIX}{now:%Y%m%dT%H%M%S.%f}Z.zip"
    final, partial = folder / name, folder / f".{name}.partial"
    with tempfile.TemporaryDirectory(prefix="assetsvc-backup-") as scratch:
        dump = Path(scratch) / "database"
        dump_database(dump, alias)
        members: list[tuple[Path, str]] = [(dump, DB_MEMBER[db_vendor]), *uploaded_files()]
        manifest: dict[str, Any] = {
            "format": FORMAT_VERSION,
            "created_at": now.isoformat().replace("+00:00", "Z"),
            "app_version": app_version(),
            "database_vendor": db_vendor,
            "migrations": applied_migrations(alias),
            "files": [],
        }
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED,
                                                                     allowZip64=True) as archive:
                for path, member in members:
                    size = path.stat().st_size
                    digest = sha256_of(path)
                    archive.write(path, member)
                    manifest["files"].append({"path": member, "size": size, "sha256": digest})
                archive.writestr(MANIFEST, json.dumps(manifest, indent=2, sort_keys=True))
                raw.flush()
                os.fsync(raw.fileno())
            os.replace(partial, final)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    stat = final.stat()
    logger.info("backup written: %s (%d bytes, %d files)", final.name, stat.st_size, len(members))
    backup_prune(keep=settings.BACKUP_KEEP if keep is None else keep)
    return BackupFile(final, stat.st_size, stat.st_mtime)


def backup_prune(*, keep: int) -> list[str]:
    """Delete the archives beyond the newest ``keep``; returns their names."""
    removed = []
    for old in list_backups()[max(keep, 1):]:
        old.path.unlink(missing_ok=True)
        removed.append(old.name)
        logger.info("old backup deleted: %s", old.name)
    return removed


# --- restore -------------------------------------------------------------------------------------------------------


def safe_member(name: str) -> bool:
    path = PurePosixPath(name)
    return not path.is_absolute() and ".." not in path.parts and "\\" not in name and name == path.as_posix()


def read_manifest(archive: zipfile.ZipFile) -> dict[str, Any]:
    """The manifest, checked against the archive: every member listed, present, with its size and SHA-256."""
    try:
        manifest = json.loads(archive.read(MANIFEST))
    except KeyError as exc:
        raise BackupError("not a backup of this service: manifest.json is missing") from exc
    except ValueError as exc:
        raise BackupError("manifest.json is not valid JSON") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_VERSION:
        raise BackupError("unsupported backup format (manifest.json of another program or version)")
    listed = {entry["path"]: entry for entry in manifest.get("files", [])}
    present = {info.filename for info in archive.infolist() if not info.is_dir()} - {MANIFEST}
    if present != set(listed):
        raise BackupError(f"archive and manifest disagree: {sorted(present ^ set(listed))[:5]}")
    for member, entry in listed.items():
        if not safe_member(member) or not (member.startswith(FILES_PREFIX) or member.startswith("database/")):
            raise BackupError(f"unsafe member name in the archive: {member!r}")
        digest, size = hashlib.sha256(), 0
        with archive.open(member) as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
                size += len(chunk)
        if size != entry["size"] or digest.hexdigest() != entry["sha256"]:
            raise BackupError(f"checksum mismatch for {member}: the archive is damaged")
    return manifest


def unknown_migrations(manifest: dict[str, Any]) -> list[str]:
    """Migrations the archive's database has that this code does not know (a backup of a newer version)."""
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    return [f"{app}.{name}" for app, names in sorted(manifest.get("migrations", {}).items()) for name in names
            if (app, name) not in known]


#: PostgreSQL: the schema objects of the current schema that are not part of an extension (pg_trgm's functions
#: stay), as (kind for DROP, name as PostgreSQL quotes it).
PG_OBJECTS = """
SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                      WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.oid::regclass::text
  FROM pg_class c
 WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                   AND d.deptype IN ('e', 'a', 'i'))
UNION ALL
SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
       p.oid::regprocedure::text
  FROM pg_proc p
 WHERE p.pronamespace = current_schema()::regnamespace
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                   AND d.deptype = 'e')
 ORDER BY 1, 2
"""


def database_objects(alias: str = DEFAULT_DB_ALIAS) -> list[tuple[str, str]]:
    """What makes a database non-empty: its tables and views (and on PostgreSQL its sequences and functions, the
    triggers' included), as (kind, name)."""
    connection = connections[alias]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(PG_OBJECTS)
            return [(kind, name) for kind, name in cursor.fetchall()]
        return [("TABLE", name) for name in connection.introspection.table_names(cursor)]


def database_tables(alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    return [name for kind, name in database_objects(alias) if kind == "TABLE"]


def drop_all_objects(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Empty the database (``restore --force``): every object :func:`database_objects` lists is dropped."""
    connection = connections[alias]
    found = database_objects(alias)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for kind, name in found:  # CASCADE takes triggers, defaults and views along
                cursor.execute(f"DROP {kind} IF EXISTS {name} CASCADE")
            return
        cursor.execute("PRAGMA foreign_keys = OFF")
        for _kind, name in found:
            cursor.execute(f"DROP TABLE IF EXISTS {connection.ops.quote_name(name)}")
        cursor.execute("PRAGMA foreign_keys = ON")


def restore_database(archive: zipfile.ZipFile, member: str, alias: str, scratch: Path) -> None:
    dump = scratch / "database"
    with archive.open(member) as source, open(dump, "wb") as target:
        shutil.copyfileobj(source, target, CHUNK)
    connection = connections[alias]
    if connection.vendor == "postgresql":
        connection.close()  # nothing of ours holds a lock or a prepared statement on the tables being created
        run_client(["pg_restore", "--no-owner", "--no-privileges", "--no-comments", "--exit-on-error",
                    "--single-transaction", f"--dbname={connection.settings_dict['NAME']}", str(dump)], alias=alias)
        return
    connection.ensure_connection()
    source_db = sqlite3.connect(dump)
    try:
        source_db.backup(connection.connection)
    finally:
        source_db.close()
    connection.close()


def restore_files(archive: zipfile.ZipFile, members: list[str], root: Path) -> None:
    for member in members:
        target = root.joinpath(*PurePosixPath(member[len(FILES_PREFIX):]).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.restoring")
        with archive.open(member) as source, open(partial, "wb") as out:
            shutil.copyfileobj(source, out, CHUNK)
        os.replace(partial, target)


def backup_restore(path: Path, *, alias: str = DEFAULT_DB_ALIAS, force: bool = False) -> dict[str, Any]:
    """Bring an archive back: everything is checked before anything changes. Returns the manifest."""
    if not zipfile.is_zipfile(path):
        raise BackupError(f"{path} is not a backup archive (zip)")
    with zipfile.ZipFile(path) as archive:
        manifest = read_manifest(archive)
        db_vendor = vendor(alias)
        if manifest.get("database_vendor") != db_vendor:
            raise BackupError(f"the backup is of a {manifest.get('database_vendor')} database; this service runs "
                              f"on {db_vendor} (restore it on the same kind of database)")
        unknown = unknown_migrations(manifest)
        if unknown:
            raise BackupError("the backup comes from a newer version of the service (unknown migrations: "
                              f"{', '.join(unknown[:5])}); install that version first")
        members = [entry["path"] for entry in manifest["files"]]
        db_member = DB_MEMBER[db_vendor]
        if db_member not in members:
            raise BackupError(f"the archive holds no {db_member}")
        file_members = [m for m in members if m.startswith(FILES_PREFIX)]
        root = files_dir()
        if file_members and root is None:
            raise BackupError(f"the backup holds {len(file_members)} uploaded files but FILES_DIR is not set")
        found = database_objects(alias)
        if found and not force:
            raise BackupError(f"the database is not empty ({len(found)} tables, sequences or functions): restore "
                              "into a new, empty database, or pass --force to drop them all first")
        existing = [m for m in file_members if root.joinpath(*PurePosixPath(m[len(FILES_PREFIX):]).parts).exists()]
        if existing and not force:
            raise BackupError(f"{len(existing)} files already exist under FILES_DIR (e.g. {existing[0][6:]}): "
                              "pass --force to overwrite them")
        if found:
            drop_all_objects(alias)
        with tempfile.TemporaryDirectory(prefix="assetsvc-restore-") as scratch:
            restore_database(archive, db_member, alias, Path(scratch))
        if file_members:
            restore_files(archive, file_members, root)
    logger.info("backup restored: %s (%s, %d files)", Path(path).name, db_vendor, len(file_members))
    return manifest
