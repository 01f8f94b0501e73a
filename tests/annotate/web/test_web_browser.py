"""The web app in a real browser: Debian's chromium, headless, driven by Playwright.

Skipped only when no chromium binary is installed (`apt-get install -y chromium`)."""

from __future__ import annotations

from typing import Any

import pytest
from annotate_study import REPOS, Study
from browsing import click_words, covered, key, needs_chromium, saving
from conftest import BROWSER_TIMEOUT_MS, serving
from typer.testing import CliRunner
from web_round import Round, prepared

from miner.annotate.layout import Layout
from miner.annotate.reconcile import current_resolutions
from miner.annotate.sheets import read_sheet
from miner.cli import app

pytestmark = needs_chromium


def test_label_with_clicks_and_keys_then_reload(served: tuple[Round, str], page: Any) -> None:
    r, base = served
    page.goto(base + r.url("ann"))
    assert page.url.endswith("/r/101")  # the queue starts at its first unanswered repository
    assert page.locator("fieldset.current").get_attribute("data-field") == "is_dl"
    key(page, "y")  # is_dl: yes, then the next field
    key(page, "3")  # frameworks: the third value, pytorch
    with saving(page):
        page.locator("#f-frameworks label", has_text="keras").click()
    page.keyboard.press("j")
    key(page, "y")  # hw_gpu: yes
    page.keyboard.press("k")
    page.keyboard.press("j")
    with saving(page):
        click_words(page, "GTX 1080 Ti")
    evidence = "README.md:10 We trained on one NVIDIA GTX 1080 Ti with 11 GB of memory."
    assert page.input_value("input[name=hw_gpu__evidence]") == evidence
    page.reload()
    page.wait_for_selector("fieldset.current")
    assert page.is_checked("#f-is_dl input[value=yes]")
    assert page.is_checked("#f-frameworks input[value=pytorch]")
    assert page.is_checked("#f-frameworks input[value=keras]")
    assert page.is_checked("#f-hw_gpu input[value=yes]")
    assert page.input_value("input[name=hw_gpu__evidence]") == evidence
    assert "1/6 repositories" in page.inner_text("#progress")
    sheet = Layout(r.study.annotations).sheet("main", "ann")
    row = next(cells for _, cells in read_sheet(sheet).rows if cells["repo_id"] == "101")
    assert (row["is_dl"], row["frameworks"], row["hw_gpu"]) == ("yes", "keras;pytorch", "yes")
    assert row["hw_gpu__evidence"] == evidence
    with page.expect_navigation():
        page.keyboard.press("]")
    assert page.url.endswith("/r/102")
    page.goto(base + r.url("ann"))
    assert page.url.endswith("/r/102")  # reopened: resumes where it stopped


def label_round(page: Any, base: str, r: Round, who: str) -> None:
    """Label every repository with keys only, then hand the sheet in."""
    page.goto(base + r.url(who))
    page.wait_for_selector("fieldset.current")
    for index, (_, name, _) in enumerate(REPOS):
        key(page, "y")  # is_dl
        key(page, "3")  # frameworks: pytorch
        page.keyboard.press("j")
        key(page, "y" if (who == "ann" and name == "alpha/seg-net") else "n")  # hw_gpu
        if index + 1 < len(REPOS):
            with page.expect_navigation():
                page.keyboard.press("]")
    with page.expect_navigation():
        page.keyboard.press("H")  # the check before handing in
    assert "Hand in" in page.inner_text("h1")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # the confirm button has the focus
    assert f"handed in: layer {who}@main, 6 repositories" in page.inner_text("main")


def test_round_in_the_browser_read_by_agreement_and_score(
    served: tuple[Round, str], page: Any
) -> None:
    r, base = served
    label_round(page, base, r, "ann")
    label_round(page, base, r, "bob")
    page.goto(base + r.url("adjudicator"))
    with page.expect_navigation():
        page.get_by_role("button", name="List the conflicts").click()
    page.wait_for_selector("article.conflict.current")  # the page's script is listening
    card = page.locator("article.conflict")
    assert card.count() == 1 and "alpha/seg-net" in card.inner_text()
    page.keyboard.press("a")
    page.keyboard.press("r")
    page.keyboard.type("README names a GTX 1080 Ti")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "decided: yes by cara (discussion)" in page.inner_text("article.conflict")
    page.goto(base + r.url("adjudicator") + "status")
    assert "1 listed, 1 decided" in page.inner_text("main")
    root = r.study.annotations
    assert current_resolutions(root, "main")["101:hw_gpu"]["value"] == "yes"
    study = str(r.study.settings.study_dir)
    agreement = CliRunner().invoke(app, ["annotate", "agreement", "ann", "bob", "--study", study])
    assert agreement.exit_code == 0 and "hw_gpu" in agreement.stdout
    assert "Agreement of ann and bob, round main (6 repositories)" in agreement.stdout
    score = CliRunner().invoke(
        app, ["annotate", "score", "--format", "csv", "-f", "hw_gpu", "--study", study]
    )
    assert score.exit_code == 0 and "hw_gpu,6,0,1.0000" in score.stdout


LONG = "We trained it " + "for many days " * 30 + "on four Tesla V100 GPUs with 32 GB each."
FOCUS = """() => {
  const el = document.activeElement;
  const label = el.closest("label");
  const style = getComputedStyle(label);
  return [el.value, el.closest("fieldset").dataset.field, style.boxShadow !== "none"];
}"""


NOT_TYPING = """() => {
  const e = document.activeElement;
  return !(e && (e.tagName === "TEXTAREA" || (e.tagName === "INPUT" && e.type === "text")));
}"""


def test_every_choice_of_every_field_is_reached_by_keys(study: Study, page: Any) -> None:
    wide = ["frameworks", "primary_framework", "language", "hw_gpu"]
    r = prepared(study, wide)
    with serving(r) as base:
        page.goto(base + r.url("ann") + "r/101")
        page.wait_for_selector("fieldset.current")
        orders = {}
        for field in wide:
            page.wait_for_selector(f"fieldset.current[data-field='{field}']")  # moved on once saved
            boxes = page.locator(f"fieldset.current .choices input[name={field}]")
            seen = []
            page.keyboard.press("Home")  # no effect: the focus starts on the first choice
            for index in range(boxes.count()):
                if index:
                    page.keyboard.press("ArrowRight")
                value, where, ringed = page.evaluate(FOCUS)
                assert where == field and ringed, (field, value)  # a visible focus, every time
                seen.append(value)
            assert seen == [boxes.nth(i).get_attribute("value") for i in range(boxes.count())]
            assert seen[-2:] == ["unclear", "n/a"]
            if field in ("frameworks", "primary_framework"):
                assert seen[-4:] == ["other:", "none", "unclear", "n/a"] and len(seen) == 20
            orders[field] = seen
            if field == "language":
                key(page, "Space")  # the last choice, n/a, picked by keys; on to hw_gpu
            elif field == "hw_gpu":
                for _ in range(3):
                    page.keyboard.press("ArrowLeft")
                key(page, "Space")  # back to the first choice, yes
            elif field == "frameworks":
                for _ in range(3):
                    page.keyboard.press("ArrowLeft")  # to `other:`: its name box opens
                key(page, "Space")
                page.keyboard.type("flax")
                key(page, "Enter")
                # The page takes the focus back from the name box once the save is answered.
                page.wait_for_function(NOT_TYPING)
                page.keyboard.press("j")
            else:
                page.keyboard.press("ArrowLeft")
                page.keyboard.press("ArrowLeft")
                page.keyboard.press("ArrowLeft")  # to `other:`
                key(page, "Space")
                page.keyboard.type("mindspore")
                key(page, "Enter")  # saved, and on to language
        assert orders["frameworks"] == orders["primary_framework"]  # one order for both
    row = next(c for _, c in read_sheet(Layout(r.study.annotations).sheet("main", "ann")).rows)
    assert (row["frameworks"], row["primary_framework"]) == ("other:flax", "other:mindspore")
    assert (row["language"], row["hw_gpu"]) == ("n/a", "yes")


def test_evidence_is_the_clicked_line_or_the_selected_range_uncut(
    served: tuple[Round, str], page: Any
) -> None:
    r, base = served
    readme = r.study.settings.repos / "alpha__seg-net" / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    readme.write_text("\n".join([*lines, "", LONG, ""]), encoding="utf-8")
    page.goto(base + r.url("ann") + "r/101")
    page.wait_for_selector("fieldset.current")
    page.keyboard.press("j")
    page.keyboard.press("j")  # hw_gpu, no value yet
    evidence = "input[name=hw_gpu__evidence]"
    with saving(page):
        click_words(page, "Download the dataset")  # the second line of a paragraph
    assert page.input_value(evidence) == f"README.md:11 {lines[10]}"
    with saving(page):
        click_words(page, "PyTorch >= 1.4")  # the second item of a list
    assert page.input_value(evidence) == "README.md:7 - PyTorch >= 1.4"
    with saving(page):
        click_words(page, "Tesla V100")  # at the end of a long line: nothing cut off
    assert page.input_value(evidence) == f"README.md:13 {LONG}"
    page.evaluate("""() => {
      const items = document.querySelectorAll(".docs li");
      const range = document.createRange();
      range.setStart(items[0].firstChild, 0);
      range.setEnd(items[1].firstChild, 7);
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
    }""")
    with saving(page):
        page.locator(".docs li").nth(1).click(position={"x": 2, "y": 2})
    assert page.input_value(evidence) == "README.md:6-7 Python 3.6 PyTorch"
    page.reload()
    page.wait_for_selector("fieldset.current")
    assert page.input_value(evidence) == "README.md:6-7 Python 3.6 PyTorch"  # saved alone
    assert not page.is_checked("#f-hw_gpu input[value=yes]")


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_no_field_is_ever_covered(study: Study, browser: Any, size: tuple[int, int]) -> None:
    r = prepared(study)  # every field of the codebook: the longest form
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    opened = context.new_page()
    with serving(r) as base:
        opened.goto(base + r.url("ann") + "r/101")
        opened.wait_for_selector("fieldset.current")
        names = []
        for _ in range(30):
            assert covered(opened) == []
            names.append(opened.locator("fieldset.current").get_attribute("data-field"))
            opened.keyboard.press("j")
        for _ in range(30):
            opened.keyboard.press("k")
            assert covered(opened) == []
    context.close()
    assert names[-1] == names[-2] and "data_available" in names  # the last field reached
