"""The web app in a real browser: Debian's chromium, headless, driven by Playwright.

Skipped only when no chromium binary is installed (`apt-get install -y chromium`)."""

from __future__ import annotations

from typing import Any

from annotate_study import REPOS
from browsing import click_words, key, needs_chromium, saving
from typer.testing import CliRunner
from web_round import Round

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
