"""Decoding Snipe-IT's values, table by table (issue 31): escaping undone once, date objects, references, booleans,
money, months, custom values keyed by label, notes rendered as Markdown HTML."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from inventory.snipeit import values as v
from inventory.snipeit.values import ValueProblem

UTC = dt.UTC


@pytest.mark.parametrize(("raw", "expected"), [
    (None, ""),
    ("", ""),
    ("O&#039;Brien", "O'Brien"),
    ("R&amp;D &lt;lab&gt; &quot;A&quot;", 'R&D <lab> "A"'),
    ("&amp;#039;", "&#039;"),  # a literal "&#039;" typed by a user: unescaped once, not twice
    ("&amp;amp;", "&amp;"),
    ("Caf\u00e9 &copy", "Caf\u00e9 &copy"),  # only what htmlspecialchars makes is undone
    ("&#39;", "'"),
    (12, "12"),
])
def test_text(raw, expected):
    assert v.text(raw) == expected


def test_text_or_none_and_bad_text():
    assert v.text_or_none("") is None
    assert v.text_or_none("a&amp;b") == "a&b"
    with pytest.raises(ValueProblem):
        v.text({"id": 1})


@pytest.mark.parametrize(("raw", "expected"), [
    (None, ""),
    ("plain &amp; simple", "plain & simple"),
    ("<strong>bold</strong> and <em>it</em>", "**bold** and *it*"),
    ('see <a href="https://x.example/a?b=1&amp;c=2">docs</a>', "see [docs](https://x.example/a?b=1&c=2)"),
    ('<a href="https://x.example">https://x.example</a>', "https://x.example"),
    ("<code>a &lt; b</code>", "`a < b`"),
    ("line<br />\nnext", "line  \nnext"),
    ("<p>para</p>", "para"),
])
def test_notes(raw, expected):
    assert v.notes(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    (None, None),
    ("", None),
    ({"date": "2024-05-01", "formatted": "01/05/2024"}, dt.date(2024, 5, 1)),
    ({"datetime": "2024-05-01 10:11:12", "formatted": "x"}, dt.date(2024, 5, 1)),
    ("2024-05-01", dt.date(2024, 5, 1)),
    ("2024-05-01 10:11:12", dt.date(2024, 5, 1)),
    ("2024-05-01T10:11:12.000000Z", dt.date(2024, 5, 1)),
    ("05-01-2024", dt.date(2024, 5, 1)),  # Laravel's raw expected_checkin cast (m-d-Y)
    ("0000-00-00", None),
])
def test_date_value(raw, expected):
    assert v.date_value(raw) == expected


@pytest.mark.parametrize("raw", ["garbage", "2024-13-01", "2024-02-30 (Invalid date value.)", 20240501])
def test_date_value_refuses(raw):
    with pytest.raises(ValueProblem):
        v.date_value(raw)


@pytest.mark.parametrize(("raw", "zone", "expected"), [
    (None, "UTC", None),
    ({"datetime": "2024-05-01 10:11:12", "formatted": "2024-05-01 10:11 AM"}, "UTC",
     dt.datetime(2024, 5, 1, 10, 11, 12, tzinfo=UTC)),
    ({"datetime": "2024-05-01 10:11:12", "formatted": "x"}, "Europe/Berlin",
     dt.datetime(2024, 5, 1, 8, 11, 12, tzinfo=UTC)),
    ({"date": "2024-05-01", "formatted": "x"}, "UTC", dt.datetime(2024, 5, 1, tzinfo=UTC)),
    ("2024-05-01T10:11:12.000000Z", "Europe/Berlin", dt.datetime(2024, 5, 1, 10, 11, 12, tzinfo=UTC)),
])
def test_datetime_value(raw, zone, expected):
    got = v.datetime_value(raw, zone)
    assert got == expected
    if got is not None:
        assert got.tzinfo is not None


def test_datetime_value_keeps_the_zone_given():
    got = v.datetime_value("2024-01-15 09:00:00", ZoneInfo("America/New_York"))
    assert got.utcoffset() == dt.timedelta(hours=-5)
    with pytest.raises(ValueProblem):
        v.datetime_value("2024-05-01 25:00:00")
    with pytest.raises(ValueProblem):
        v.datetime_value({"formatted": "x"})


@pytest.mark.parametrize(("raw", "expected"), [
    (None, None), ("", None), (0, None), ({"id": 7, "name": "HQ"}, 7), ({"id": None}, None), (3, 3), ("12", 12),
])
def test_ref_id(raw, expected):
    assert v.ref_id(raw) == expected


@pytest.mark.parametrize("raw", [True, "x", {"id": "abc"}])
def test_ref_id_refuses(raw):
    with pytest.raises(ValueProblem):
        v.ref_id(raw)


@pytest.mark.parametrize(("raw", "expected"), [
    (True, True), (False, False), (1, True), (0, False), ("1", True), ("0", False), ("true", True),
    ("false", False), ("", False), (None, False),
])
def test_boolean(raw, expected):
    assert v.boolean(raw) is expected


def test_boolean_default_and_refusal():
    assert v.boolean(None, default=True) is True
    with pytest.raises(ValueProblem):
        v.boolean("maybe")


@pytest.mark.parametrize(("raw", "expected"), [
    (None, None), ("", None), ("1,234.56", Decimal("1234.56")), ("1.234,56", Decimal("1234.56")),
    ("12.00", Decimal("12.00")), ("1,234,567.80", Decimal("1234567.80")), ("0.99", Decimal("0.99")),
    (12.5, Decimal("12.5")), (3, Decimal("3")), ("1234", Decimal("1234")),
])
def test_money(raw, expected):
    assert v.money(raw) == expected


@pytest.mark.parametrize("raw", ["abc", "12 EUR", True])
def test_money_refuses(raw):
    with pytest.raises(ValueProblem):
        v.money(raw)


@pytest.mark.parametrize(("raw", "expected"), [
    ("36 months", 36), ("1 month", 1), ("None", None), (None, None), (24, 24), ("0 months", 0),
])
def test_months(raw, expected):
    assert v.months(raw) == expected


def test_integer():
    assert v.integer("12") == 12
    assert v.integer(None) is None
    with pytest.raises(ValueProblem):
        v.integer("1.5")


@pytest.mark.parametrize(("raw", "expected"), [
    (None, (Decimal(0), "amount")), ("10%", (Decimal(10), "percent")), ("25.00", (Decimal("25.00"), "amount")),
    (5, (Decimal(5), "amount")),
])
def test_percent_or_amount(raw, expected):
    assert v.percent_or_amount(raw) == expected


def test_custom_values_keyed_by_label_become_db_columns():
    raw = {
        "MAC Address": {"field": "_snipeit_mac_address_1", "value": "00:11:22:33:44:55", "field_format": "MAC",
                        "element": "text"},
        "Owner&#039;s note": {"field": "_snipeit_owners_note_2", "value": "R&amp;D &lt;3", "field_format": "ANY",
                              "element": "textarea"},
        "Bought": {"field": "_snipeit_bought_3", "value": {"date": "2024-02-03", "formatted": "03/02/2024"},
                   "field_format": "DATE", "element": "text"},
        "Secret": {"field": "_snipeit_secret_4", "value": "hunter2", "field_format": "ANY", "element": "text"},
        "Empty": {"field": "_snipeit_empty_5", "value": None, "field_format": "ANY", "element": "text"},
    }
    assert v.custom_values(raw) == {
        "_snipeit_mac_address_1": "00:11:22:33:44:55", "_snipeit_owners_note_2": "R&D <3",
        "_snipeit_bought_3": "2024-02-03", "_snipeit_secret_4": "hunter2", "_snipeit_empty_5": ""}


@pytest.mark.parametrize("raw", [None, {}, []])
def test_custom_values_empty(raw):
    assert v.custom_values(raw) == {}


def test_custom_values_refuse_an_entry_without_a_column():
    with pytest.raises(ValueProblem, match="Label"):
        v.custom_values({"Label": {"value": "x"}})
