"""``manage.py recount_assets``: rebuild the live-asset tally that the hardware list's ``total`` reads on PostgreSQL
(``inventory/selectors/tally.py``). Triggers keep it exact under every write; run this only after loading data with
triggers
disabled (``pg_restore --data-only --disable-triggers``) or when in doubt. Safe while serving: writes to assets wait
for the few seconds it takes, reads go on."""

from django.core.management.base import BaseCommand, CommandError

from inventory.selectors import tally


class Command(BaseCommand):
    help = "Rebuild the live-asset tally (PostgreSQL) from the assets."

    def handle(self, *args, **options):
        if not tally.available():
            raise CommandError("The live-asset tally exists on PostgreSQL only; on SQLite lists count every time.")
        live, rows = tally.rebuild()
        self.stdout.write(f"{live} live assets in {rows} (company, status) pairs.")
