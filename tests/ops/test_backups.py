"""Backups (issue 27): `manage.py backup` and `manage.py restore` round trips on SQLite and PostgreSQL, the archive's
checks (manifest, checksums, member names, an empty database), retention, atomic 0600 archives, no credentials.

A round trip populates the database with factories, takes a backup, empties the database (every table dropped, as a
new database has none), restores, and compares every row of every table and every uploaded file with before.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from activity.services import log_action
from assetsvc import backups
from tests.factories import AssetFactory, CompanyFactory, CustomFieldFactory, UserFactory
from tests.factories.custom_fields import AssetFieldValueFactory, fieldset_of
from tests.factories.inventory import AssetModelFactory, checked_out_asset


@pytest.fixture
def backup_dir(settings, tmp_path) -> Path:
    settings.BACKUP_DIR = tmp_path / "backups"
    settings.BACKUP_KEEP = 10
    return settings.BACKUP_DIR


@pytest.fixture
def files_dir(settings, tmp_path) -> Path:
    """An uploads folder (FILES_DIR, from the file-upload feature) with a nested file."""
    root = tmp_path / "files"
    (root / "assets" / "7").mkdir(parents=True)
    (root / "assets" / "7" / "invoice.pdf").write_bytes(b"%PDF-1.4 not really\x00\xff" * 100)
    (root / "top.txt").write_text("hello")
    settings.FILES_DIR = root
    return root


def run(*args, **kwargs) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **kwargs)
    return out.getvalue()


def populate() -> None:
    company = CompanyFactory(name="Acme")
    user = UserFactory(username="jane", company=company)
    serial, secret = CustomFieldFactory(name="Serial 2"), CustomFieldFactory(name="PIN", field_encrypted=True)
    model = AssetModelFactory(fieldset=fieldset_of(serial, secret))
    for number in range(3):
        asset = AssetFactory(company=company, model=model, name=f"Laptop {number}", notes="ünïcode ✓")
        AssetFieldValueFactory(asset=asset, field=serial, value=f"SN-{number}")
        AssetFieldValueFactory(asset=asset, field=secret, value="1234")
        log_action(action_type="create", item_type="asset", item_id=asset.pk, item=asset, actor=user,
                   company_id=company.pk, note=f"created {number}")
    held = checked_out_asset(user, company=company)
    log_action(action_type="checkout", item_type="asset", item_id=held.pk, item=held, actor=user,
               company_id=company.pk, target_type="user", target_id=user.pk, target=user)


def snapshot() -> dict[str, list[dict]]:
    """Every row of every table Django knows (auto-created many-to-many tables too), ordered by primary key."""
    rows = {}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.managed and not model._meta.proxy:
            rows[model._meta.db_table] = list(model._base_manager.order_by("pk").values())
    return rows


def files_of(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def round_trip(backup_dir: Path, files_dir: Path) -> None:
    populate()
    before, files_before = snapshot(), files_of(files_dir)
    assert sum(map(len, before.values())) > 20

    archive = Path(run("backup").strip())
    assert archive.parent == backup_dir and backups.ARCHIVE_NAME.match(archive.name)
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    with zipfile.ZipFile(archive) as opened:
        manifest = json.loads(opened.read("manifest.json"))
    assert manifest["database_vendor"] == connection.vendor
    assert "0001_initial" in manifest["migrations"]["inventory"]
    assert {"files/assets/7/invoice.pdf", "files/top.txt"} <= {entry["path"] for entry in manifest["files"]}

    # A new, empty database and an empty uploads folder.
    with pytest.raises(CommandError, match="not empty"):
        run("restore", str(archive))
    backups.drop_all_objects()
    for path in files_dir.rglob("*"):
        if path.is_file():
            path.unlink()
    assert backups.database_objects() == []

    output = run("restore", archive.name)  # a name in BACKUP_DIR works as well as a path
    assert "restored" in output
    connection.close()
    assert snapshot() == before
    assert files_of(files_dir) == files_before


@pytest.mark.django_db(transaction=True)
def test_round_trip_on_sqlite(backup_dir, files_dir):
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite round trip")
    round_trip(backup_dir, files_dir)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_round_trip_on_postgresql(backup_dir, files_dir):
    round_trip(backup_dir, files_dir)


@pytest.mark.django_db(transaction=True)
def test_archive_without_files_dir_and_retention_after_a_backup(settings, backup_dir):
    if hasattr(settings, "FILES_DIR"):
        del settings.FILES_DIR
    settings.BACKUP_KEEP = 2
    made = [backups.backup_create() for _ in range(3)]
    with zipfile.ZipFile(made[-1].path) as opened:
        assert [n for n in opened.namelist() if not n.startswith("files/")] == [
            backups.DB_MEMBER[connection.vendor], "manifest.json"]
    assert [b.name for b in backups.list_backups()] == [made[2].name, made[1].name]
    assert stat.S_IMODE(backup_dir.stat().st_mode) == 0o700


def make_archive(path: Path, members: dict[str, bytes], manifest: dict | None = None) -> Path:
    entries = [{"path": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
               for name, data in members.items()]
    manifest = manifest or {"format": 1, "created_at": "2026-01-01T00:00:00Z", "app_version": "0.1.0",
                            "database_vendor": connection.vendor, "migrations": {}, "files": entries}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr("manifest.json", json.dumps(manifest))
    return path


@pytest.mark.django_db
def test_restore_checks_the_archive_before_touching_anything(tmp_path, backup_dir):
    db_member = backups.DB_MEMBER[connection.vendor]
    good = {db_member: b"dump"}
    objects = backups.database_objects()

    not_zip = tmp_path / "x.zip"
    not_zip.write_text("no")
    with pytest.raises(CommandError, match="not a backup archive"):
        run("restore", str(not_zip))

    damaged = make_archive(tmp_path / "damaged.zip", good)
    manifest = json.loads(zipfile.ZipFile(damaged).read("manifest.json"))
    manifest["files"][0]["sha256"] = "0" * 64
    make_archive(damaged, good, manifest)
    with pytest.raises(CommandError, match="checksum mismatch"):
        run("restore", str(damaged))

    traversal = make_archive(tmp_path / "traversal.zip", {**good, "files/../../etc/evil": b"x"})
    with pytest.raises(CommandError, match="unsafe member name"):
        run("restore", str(traversal))

    other_vendor = make_archive(tmp_path / "vendor.zip", good)
    manifest = json.loads(zipfile.ZipFile(other_vendor).read("manifest.json"))
    manifest["database_vendor"] = "mysql"
    make_archive(other_vendor, good, manifest)
    with pytest.raises(CommandError, match="same kind of database"):
        run("restore", str(other_vendor))

    newer = make_archive(tmp_path / "newer.zip", good)
    manifest = json.loads(zipfile.ZipFile(newer).read("manifest.json"))
    manifest["migrations"] = {"inventory": ["9999_from_the_future"]}
    make_archive(newer, good, manifest)
    with pytest.raises(CommandError, match="newer version"):
        run("restore", str(newer))

    with pytest.raises(CommandError, match="not empty"):
        run("restore", str(make_archive(tmp_path / "ok.zip", good)))

    with pytest.raises(CommandError, match="no such backup"):
        run("restore", "nothing-here.zip")
    assert backups.database_objects() == objects


@pytest.mark.django_db
def test_retention_keeps_the_newest_and_ignores_other_files(backup_dir):
    backup_dir.mkdir(parents=True)
    names = [f"assetsvc-backup-2026010{day}T000000.000000Z.zip" for day in range(1, 6)]
    for age, name in enumerate(names):
        (backup_dir / name).write_bytes(b"zip")
        os.utime(backup_dir / name, (1_700_000_000 + age, 1_700_000_000 + age))
    (backup_dir / "notes.zip").write_bytes(b"mine")
    (backup_dir / ".assetsvc-backup-x.zip.partial").write_bytes(b"")
    assert [b.name for b in backups.list_backups()] == names[::-1]
    assert backups.backup_prune(keep=2) == names[2::-1]
    assert sorted(p.name for p in backup_dir.iterdir()) == sorted(
        [".assetsvc-backup-x.zip.partial", "notes.zip", *names[3:]])


def test_postgres_credentials_travel_in_the_environment_only(settings):
    from django.db import connections

    conf = connections["default"].settings_dict
    saved = dict(conf)
    conf.update(HOST="db.internal", PORT="5433", USER="svc", PASSWORD="s3cret-pw", NAME="assets")
    try:
        env = backups.pg_environment()
    finally:
        conf.clear()
        conf.update(saved)
    assert env["PGPASSWORD"] == "s3cret-pw" and env["PGHOST"] == "db.internal" and env["PGUSER"] == "svc"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_pg_dump_gets_the_password_by_environment_only(monkeypatch, backup_dir, caplog):
    password = "s3cret-pw-in-env-only"
    monkeypatch.setitem(connection.settings_dict, "PASSWORD", password)  # the test server trusts local users
    calls = []
    real_run = backups.subprocess.run

    def spy(args, **kwargs):
        calls.append((args, kwargs["env"]))
        return real_run(args, **kwargs)

    monkeypatch.setattr(backups.subprocess, "run", spy)
    caplog.set_level("INFO")
    backup = backups.backup_create()
    assert [env["PGPASSWORD"] for _args, env in calls] == [password]
    assert all(password not in " ".join(args) for args, _env in calls)
    text = zipfile.ZipFile(backup.path).read("manifest.json").decode()
    assert password not in text and connection.settings_dict["NAME"] not in text
    assert password not in caplog.text


@pytest.mark.django_db(transaction=True)
def test_force_restores_over_a_database_and_files_that_exist(backup_dir, files_dir):
    CompanyFactory(name="Kept")
    archive = backups.backup_create()
    CompanyFactory(name="Added after the backup")
    (files_dir / "top.txt").write_text("changed")
    with pytest.raises(CommandError, match="not empty"):
        run("restore", str(archive.path))
    run("restore", str(archive.path), force=True)
    connection.close()
    from companies.models import Company

    assert list(Company.objects.values_list("name", flat=True)) == ["Kept"]
    assert (files_dir / "top.txt").read_text() == "hello"


@pytest.mark.django_db(transaction=True)
def test_existing_files_are_refused_without_force(backup_dir, files_dir):
    archive = backups.backup_create()
    backups.drop_all_objects()
    with pytest.raises(CommandError, match="already exist under FILES_DIR"):
        run("restore", str(archive.path))
    assert backups.database_objects() == []
    run("restore", str(archive.path), force=True)
