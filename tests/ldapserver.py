"""A REAL OpenLDAP server for the directory tests (issue 30): Debian's ``slapd`` started as the current user on a free
port of 127.0.0.1, from a generated ``slapd.conf`` in a temporary folder (mdb backend, suffix ``dc=example,dc=org``,
the core, cosine and inetOrgPerson schema files of ``/etc/ldap/schema``), loaded with :data:`DIRECTORY`.

Besides inetOrgPerson, a small schema of our own (``ad-attrs.schema``, written next to the configuration) gives the
entries Active Directory's ``department``, ``company`` and ``userAccountControl`` attributes through an auxiliary
class, so the default attribute map (Active Directory's names) and the disabled bit (``userAccountControl`` bit 2)
are exercised against a real server. Debian's ``msuser.schema`` cannot be used: its ``user`` class is structural and
conflicts with inetOrgPerson.

- ``slapd`` missing: the tests are skipped with the reason, except under ``CI=true`` (``.ci/run`` installs ``slapd``
  when missing), where they fail.
- StartTLS is offered with a certificate for 127.0.0.1 signed by a CA made for the session (:attr:`LdapServer.ca_file`,
  the service's ``LDAP_CA_FILE``).
- The service reads as ``cn=reader,dc=example,dc=org`` (:data:`READER_DN`, :data:`READER_PASSWORD`); the tests
  change entries as the root DN (:meth:`LdapServer.admin`).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

SLAPD = os.environ.get("SLAPD", "/usr/sbin/slapd")
SCHEMA_DIR = Path("/etc/ldap/schema")
MODULE_DIR = Path("/usr/lib/ldap")
SUFFIX = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PASSWORD = "root-secret-pw"  # noqa: S105 - a throw-away test directory
READER_DN = f"cn=reader,{SUFFIX}"
READER_PASSWORD = "reader-secret-pw"  # noqa: S105
PEOPLE = f"ou=people,{SUFFIX}"

AD_SCHEMA = """
attributetype ( 1.3.6.1.4.1.55555.1.1 NAME 'userAccountControl'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.55555.1.2 NAME 'department'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.55555.1.3 NAME 'company'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.55555.2.1 NAME 'adAccount' AUXILIARY
  MAY ( userAccountControl $ department $ company ) )
"""


def person(uid: str, ou: str = "people", *, password: str | None = None, **attrs: str | int) -> tuple[str, dict]:
    """An inetOrgPerson entry with the ``adAccount`` auxiliary class: ``(dn, attributes)``."""
    values = {"objectClass": ["inetOrgPerson", "adAccount"], "uid": uid, "cn": uid,
              "userPassword": password or f"{uid}-pw", **attrs}
    values.setdefault("sn", uid.capitalize())
    return f"uid={uid},ou={ou},{SUFFIX}", values


#: The directory every test starts from: several people, one disabled (``userAccountControl`` 514), one in another
#: OU (``ou=contractors``), one with a department and a company the tests create locally (``Finance``, ``Acme``).
DIRECTORY: list[tuple[str, dict]] = [
    person("alice", givenName="Alice", sn="Archer", mail="alice@example.org", employeeNumber="E-100",
           telephoneNumber="+1 555 0100", userAccountControl=512),
    person("bob", givenName="Bob", sn="Baker", mail="bob@example.org", employeeNumber="E-101",
           userAccountControl=512),
    person("carol", givenName="Carol", sn="Cole", mail="carol@example.org", department="Finance",
           company="Acme", physicalDeliveryOfficeName="Head Office", userAccountControl=512),
    person("dave", givenName="Dave", sn="Disabled", mail="dave@example.org", userAccountControl=514),
    person("erin", "contractors", givenName="Erin", sn="Moved", mail="erin@example.org", department="Nowhere",
           company="Unknown Corp"),
]


def slapd_missing_reason() -> str | None:
    if not os.access(SLAPD, os.X_OK):
        return f"{SLAPD} is not installed (apt-get install slapd ldap-utils)"
    if not (SCHEMA_DIR / "inetorgperson.schema").exists():
        return f"{SCHEMA_DIR}/inetorgperson.schema is missing"
    return None


def require_slapd() -> None:
    """Skip the calling test without slapd, or fail it under CI (``CI=true``), where it must run."""
    reason = slapd_missing_reason()
    if reason is None:
        return
    if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"LDAP tests must run under CI but cannot: {reason}", pytrace=False)
    pytest.skip(f"LDAP tests skipped: {reason}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LdapServer:
    """One slapd process on 127.0.0.1:``port`` serving ``dc=example,dc=org`` from a temporary folder."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="assetsvc-slapd-"))
        self.port = _free_port()
        self.uri = f"ldap://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.ca_file: Path | None = None

    def _write_config(self) -> Path:
        (self.folder / "data").mkdir()
        (self.folder / "ad-attrs.schema").write_text(AD_SCHEMA)
        includes = "".join(f"include {SCHEMA_DIR / name}\n" for name in
                           ("core.schema", "cosine.schema", "inetorgperson.schema"))
        module = f"modulepath {MODULE_DIR}\nmoduleload back_mdb\n" if (MODULE_DIR / "back_mdb.so").exists() else ""
        from tests.mailserver import make_certificates  # a CA and a certificate for 127.0.0.1 (StartTLS)

        self.ca_file, cert, key = make_certificates(self.folder)
        config = self.folder / "slapd.conf"
        config.write_text(
            f"{includes}include {self.folder / 'ad-attrs.schema'}\n"
            f"pidfile {self.folder / 'slapd.pid'}\nargsfile {self.folder / 'slapd.args'}\n{module}"
            f"TLSCACertificateFile {self.ca_file}\nTLSCertificateFile {cert}\nTLSCertificateKeyFile {key}\n"
            "database mdb\nmaxsize 10485760\n"
            f'suffix "{SUFFIX}"\nrootdn "{ROOT_DN}"\nrootpw {ROOT_PASSWORD}\n'
            f"directory {self.folder / 'data'}\n"
            "access to attrs=userPassword by anonymous auth by self write by * none\n"
            "access to * by * read\n"
        )
        return config

    def start(self) -> LdapServer:
        config = self._write_config()
        # -d 0: stay in the foreground (the process is ours to stop), log nothing.
        self.process = subprocess.Popen(  # noqa: S603 - a fixed program and generated arguments
            [SLAPD, "-d", "0", "-h", f"{self.uri}/", "-f", str(config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"slapd exited: {self.process.stderr.read().decode(errors='replace')}")
            try:
                self.admin().unbind()
                break
            except Exception:  # noqa: BLE001 - not listening yet
                time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError("slapd did not answer within 15 seconds")
        self.load()
        return self

    def admin(self):
        """A connection bound as the root DN (changes the directory)."""
        import ldap3

        return ldap3.Connection(ldap3.Server(self.uri, connect_timeout=2), ROOT_DN, ROOT_PASSWORD,
                                auto_bind=True, raise_exceptions=True)

    def load(self) -> None:
        """Empty the directory and load :data:`DIRECTORY` again (each test starts from it)."""
        import ldap3

        conn = self.admin()
        try:
            conn.search(SUFFIX, "(objectClass=*)", ldap3.SUBTREE, attributes=[])
            dns = sorted((entry["dn"] for entry in conn.response if entry.get("dn")), key=lambda dn: -dn.count(","))
            for dn in dns:
                conn.delete(dn)
        except ldap3.core.exceptions.LDAPNoSuchObjectResult:
            pass
        conn.add(SUFFIX, ["dcObject", "organization"], {"dc": "example", "o": "Example"})
        conn.add(READER_DN, ["organizationalRole", "simpleSecurityObject"], {"userPassword": READER_PASSWORD})
        for ou in ("people", "contractors", "leavers"):
            conn.add(f"ou={ou},{SUFFIX}", ["organizationalUnit"], {"ou": ou})
        for dn, attrs in DIRECTORY:
            attrs = dict(attrs)
            conn.add(dn, attrs.pop("objectClass"), attrs)
        conn.unbind()

    def modify(self, dn: str, **changes) -> None:
        """Replace attributes of ``dn`` (a value of ``None`` deletes the attribute)."""
        import ldap3

        conn = self.admin()
        conn.modify(dn, {name: [(ldap3.MODIFY_REPLACE, [] if value is None else [value])]
                         for name, value in changes.items()})
        conn.unbind()

    def add(self, dn: str, attrs: dict) -> None:
        conn = self.admin()
        attrs = dict(attrs)
        conn.add(dn, attrs.pop("objectClass"), attrs)
        conn.unbind()

    def delete(self, dn: str) -> None:
        conn = self.admin()
        conn.delete(dn)
        conn.unbind()

    def move(self, dn: str, new_superior: str) -> None:
        conn = self.admin()
        conn.modify_dn(dn, dn.split(",", 1)[0], new_superior=new_superior)
        conn.unbind()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
