"""Issue 25 item 19: ``.env.example`` lists exactly the variables of README.md's configuration table, with the same
default wherever the table gives a plain value, and every variable the service's code reads from the environment is
in that table. The lists are read from the files, so a variable added later is checked the same way."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("assetsvc", "activity", "companies", "accounts", "inventory", "notifications")
#: The service's own reads: ``env_bool("X"``, ``os.environ.get("X"``, ``os.environ["X"]``, ``os.getenv("X"``.
READ = re.compile(r"""(?:env_\w+\(|os\.environ\.get\(|os\.getenv\(|os\.environ\[)\s*["']([A-Z][A-Z0-9_]*)["']""")
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=(.*)$")


def readme_table() -> dict[str, str | None]:
    """README's configuration table: variable → its default when the cell is one plain value (`` `120` ``), else
    None (prose such as "empty (admin setting)"). A row may name several variables (`` `HOST`, `PORT` ``) with as
    many values."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("| Variable | Default | Meaning |")
    table: dict[str, str | None] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        name_cell, default_cell = (cell.strip() for cell in line.strip("|").split("|")[:2])
        names = re.findall(r"`([A-Z][A-Z0-9_]*)`", name_cell)
        values = re.fullmatch(r"`([^`]*)`(?:, `([^`]*)`)*", default_cell)
        plain = re.findall(r"`([^`]*)`", default_cell) if values else []
        for index, name in enumerate(names):
            table[name] = plain[index] if len(plain) == len(names) else None
    return table


def env_example() -> dict[str, str]:
    values: dict[str, str] = {}
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        match = ASSIGNMENT.match(line.strip())
        if match:
            values[match.group(1)] = match.group(2).strip()
    return values


def read_by_code() -> set[str]:
    names: set[str] = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                names.update(READ.findall(path.read_text(encoding="utf-8")))
    return names


def test_env_example_lists_exactly_the_readme_variables():
    readme, example = set(readme_table()), set(env_example())
    assert readme, "README.md's configuration table was not found"
    assert sorted(readme - example) == [], "in README.md's table but missing from .env.example"
    assert sorted(example - readme) == [], "in .env.example but missing from README.md's table"


def test_env_example_defaults_agree_with_the_readme():
    example = env_example()
    differ = {name: (default, example.get(name)) for name, default in readme_table().items()
              if default is not None and name in example and example[name].lower() != default.lower()}
    assert differ == {}, "README default vs .env.example value"


def test_every_variable_the_code_reads_is_documented():
    assert sorted(read_by_code() - set(readme_table())) == [], "read from the environment but not in README.md"


def test_the_parsers_see_what_they_should():
    """Guards the guards: known rows and known reads are found."""
    table = readme_table()
    assert table["MAX_RESULTS"] == "500" and table["HOST"] == "127.0.0.1" and table["PORT"] == "8000"
    assert table["SECRET_KEY"] is None
    assert {"SECRET_KEY", "DATABASE_URL", "API_THROTTLE_PER_MINUTE", "FIELD_ENCRYPTION_KEY"} <= read_by_code()
    assert env_example()["API_THROTTLE_PER_MINUTE"] == "120"
