"""Helpers of the browser tests: Debian's chromium found, a word clicked where it is drawn,
and the check that the current field of the form is in full view (nothing covers it)."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium binary: install it with `apt-get install -y chromium`"
)

_WORDS_AT = """([scope, words]) => {
  const root = document.querySelector(scope);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(words);
    if (at < 0) continue;
    node.parentElement.scrollIntoView({ block: "center" });
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + words.length);
    const r = range.getClientRects()[0];
    return [r.left + r.width / 2, r.top + r.height / 2];
  }
  return null;
}"""

_COVERED = """() => {
  const problems = [];
  const pane = document.getElementById("fields").getBoundingClientRect();
  const nav = document.querySelector("#labels .nav").getBoundingClientRect();
  const field = document.querySelector("fieldset.current");
  const r = field.getBoundingClientRect();
  const name = field.dataset.field;
  const outside = r.top < pane.top - 0.5 || r.bottom > pane.bottom + 0.5;
  if (outside) problems.push(name + ": outside the pane");
  if (r.bottom > nav.top + 0.5) problems.push(name + ": under the save bar");
  if (r.bottom > window.innerHeight) problems.push(name + ": below the window");
  field.querySelectorAll(".choices label, input.evidence").forEach((el) => {
    const b = el.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    const what = el.textContent.trim() || "evidence";
    if (!hit || !field.contains(hit)) problems.push(name + ": " + what + " covered");
  });
  return problems;
}"""


def click_words(page: Any, words: str, scope: str = ".docs") -> None:
    """Click the middle of `words` where the page draws them (the first occurrence in scope)."""
    point = page.evaluate(_WORDS_AT, [scope, words])
    assert point is not None, f"{words!r} is not on the page"
    page.mouse.click(point[0], point[1])


def covered(page: Any) -> list[str]:
    """What of the current field is hidden (outside the form's pane, under the save bar)."""
    return list(page.evaluate(_COVERED))


def saving(page: Any) -> Any:
    """Wait for the page's next save to be answered."""
    return page.expect_response(lambda r: r.request.method == "POST")


def key(page: Any, name: str) -> None:
    """Press a shortcut that saves an answer, and wait for the save."""
    with saving(page):
        page.keyboard.press(name)
