"""forms.date_picker: format detection (unit) and filling native and text date fields in a real browser."""

from __future__ import annotations

from datetime import date

import pytest
from jsonschema import Draft202012Validator

from curllm_core.errors import PlanError, ToolError
from curllm_core.manifest import load_manifest, manifests_dir
from curllm_core.tool import load_callable
from curllm_core.tools.forms.date_picker import format_from_pattern, format_from_text, format_from_value, run

PATH = manifests_dir() / "forms" / "date_picker.json"
MANIFEST = load_manifest(PATH)
MAY_7 = date(2024, 5, 7)


def checked(output: dict) -> dict:
    Draft202012Validator(MANIFEST.output_schema).validate(output)
    return output["date_picker"]


def test_manifest_is_valid_and_loads(curllm_check_manifest):
    assert curllm_check_manifest(PATH) == []  # what `curllm tools validate` checks, entrypoint imported
    assert load_callable(MANIFEST) is run
    params = Draft202012Validator(MANIFEST.parameters)
    assert params.is_valid({"from": "2024-05-07"}) and not params.is_valid({"from": "07.05.2024"})
    assert not params.is_valid({"submit": True})


@pytest.mark.parametrize(
    ("text", "label", "written"),
    [
        ("DD.MM.YYYY", "DD.MM.YYYY", "07.05.2024"),
        ("dd.mm.rrrr", "DD.MM.YYYY", "07.05.2024"),  # Polish "rok"
        ("TT.MM.JJJJ", "DD.MM.YYYY", "07.05.2024"),  # German "Tag", "Jahr"
        ("jj/mm/aaaa", "DD/MM/YYYY", "07/05/2024"),  # French "jour", "année"
        ("MM/DD/YYYY", "MM/DD/YYYY", "05/07/2024"),
        ("Date (yyyy-mm-dd)", "YYYY-MM-DD", "2024-05-07"),
        ("d.m.yy", "D.M.YY", "7.5.24"),
    ],
)
def test_formats_spelled_out(text, label, written):
    fmt = format_from_text(text)
    assert fmt.label == label and fmt.format(MAY_7) == written


def test_formats_from_pattern_and_value():
    assert format_from_pattern(r"\d{2}\.\d{2}\.\d{4}", "pl").format(MAY_7) == "07.05.2024"
    assert format_from_pattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", "").format(MAY_7) == "2024-05-07"
    assert format_from_pattern(r"\d{2}/\d{2}/\d{4}", "en-us").format(MAY_7) == "05/07/2024"
    assert format_from_value("31.01.2024", "").label == "DD.MM.YYYY"
    assert format_from_value("01/31/2024", "").label == "MM/DD/YYYY"
    assert format_from_value("2024/01/31", "").label == "YYYY/MM/DD"
    assert format_from_text("nothing here") is None and format_from_value("jutro", "pl") is None


@pytest.mark.browser
async def test_polish_text_fields_get_dd_mm_yyyy(page, site_url, on_page):
    await page.goto(site_url + "/test/dates-pl.html")
    report = checked(await on_page(MANIFEST.key, **{"from": "2024-05-07", "to": "2024-05-12"}))
    assert report["filled"] == {"from": "07.05.2024", "to": "12.05.2024"}
    assert report["formats"] == {"from": "DD.MM.YYYY", "to": "DD.MM.YYYY"}
    assert await page.input_value("input[name=data_od]") == "07.05.2024"
    assert await page.input_value("input[name=miasto]") == ""
    assert report["submitted"] is False


@pytest.mark.browser
async def test_us_text_fields_get_mm_dd_yyyy_and_submit(page, site_url, on_page):
    await page.goto(site_url + "/test/dates-us.html")
    report = checked(await on_page(MANIFEST.key, to="2024-05-12", submit=True, **{"from": "2024-05-07"}))
    assert report["filled"] == {"from": "05/07/2024", "to": "05/12/2024"}
    assert report["navigated"] and report["method"] == "button: Find flights"
    assert await page.inner_text("#echo") == "?depart=05/07/2024&return=05/12/2024"


@pytest.mark.browser
async def test_native_date_inputs_take_iso(page, site_url, on_page):
    await page.goto(site_url + "/test/dates.html")
    report = checked(await on_page(MANIFEST.key, to="2024-05-12", **{"from": "2024-05-07"}))
    assert report["formats"]["from"] == "YYYY-MM-DD (native)"
    assert await page.input_value("#checkin") == "2024-05-07"
    assert await page.input_value("#checkout") == "2024-05-12"
    assert await page.input_value("#guests") == "2"


@pytest.mark.browser
async def test_read_only_picker_fields_are_set_by_script(page, site_url, on_page):
    await page.goto(site_url + "/test/dates-readonly.html")
    report = checked(await on_page(MANIFEST.key, to="2024-05-12", **{"from": "2024-05-07"}))
    assert report["filled"] == {"from": "07.05.2024", "to": "12.05.2024"}
    assert report["fields"]["from"]["format_from"] == "value"
    assert await page.locator("#log li").all_inner_texts() == ["przyjazd=07.05.2024", "wyjazd=12.05.2024"]


@pytest.mark.browser
async def test_missing_field_and_bad_dates_are_clear_errors(page, site_url, on_page):
    await page.goto(site_url + "/test/en-shop.html")
    with pytest.raises(ToolError, match="no date field found on .*en-shop.html for from"):
        await on_page(MANIFEST.key, **{"from": "2024-05-07"})
    with pytest.raises(PlanError, match="from: forms.date_picker: parameter '07.05.2024' does not match"):
        await on_page(MANIFEST.key, **{"from": "07.05.2024"})  # refused by the schema, before the tool
    with pytest.raises(ToolError, match="not an ISO date"):
        await on_page(MANIFEST.key, **{"from": "2024-13-45"})  # the schema's shape, no such day
    with pytest.raises(ToolError, match="is after to"):
        await on_page(MANIFEST.key, to="2024-05-01", **{"from": "2024-05-07"})
