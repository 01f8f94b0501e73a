// miner annotate: keyboard shortcuts, click-a-line evidence and save-as-you-go.
// No framework and no build step; the server validates everything this script sends.
"use strict";

function typing(target) {
  return target.matches && target.matches("input[type=text], textarea, select");
}

// Scroll `pane` so that `element` is in full view inside it (its top first when it is taller).
function reveal(pane, element) {
  if (!pane || !element) return;
  const box = pane.getBoundingClientRect();
  const r = element.getBoundingClientRect();
  const margin = 8;
  if (r.top < box.top + margin) {
    pane.scrollTop -= box.top + margin - r.top;
  } else if (r.bottom > box.bottom - margin) {
    pane.scrollTop += Math.min(r.bottom - (box.bottom - margin), r.top - (box.top + margin));
  }
}

// The source line of a point in a rendered block: the last line marker (data-sl) at or before
// the point, clamped to the block; blocks without markers (raw HTML) are searched by text.
function lineAt(block, node) {
  const start = Number(block.dataset.line);
  const end = Number(block.dataset.end || start);
  const lines = JSON.parse(block.dataset.lines);
  let line = null;
  if (node) {
    block.querySelectorAll("[data-sl]").forEach((marker) => {
      const where = marker.compareDocumentPosition(node);
      const before = marker === node || where & Node.DOCUMENT_POSITION_FOLLOWING ||
        where & Node.DOCUMENT_POSITION_CONTAINED_BY;
      if (before) line = Number(marker.dataset.sl);
    });
    if (line === null && node.textContent && node.textContent.trim()) {
      const words = node.textContent.replace(/\s+/g, " ").trim().slice(0, 40);
      const hit = lines.findIndex((text) => text.replace(/\s+/g, " ").includes(words));
      if (hit >= 0) line = start + hit;
    }
  }
  if (line === null) line = start + Math.max(0, lines.findIndex((text) => text.trim() !== ""));
  return Math.min(end, Math.max(start, line));
}

function sourceLine(block, line) {
  const lines = JSON.parse(block.dataset.lines);
  return (lines[line - Number(block.dataset.line)] || "").trim();
}

function pointNode(event) {
  if (document.caretRangeFromPoint) {
    const range = document.caretRangeFromPoint(event.clientX, event.clientY);
    if (range) return range.startContainer;
  }
  return event.target;
}

// `path:line text` of the clicked line, or `path:first-last text` of a selection.
function evidenceOf(block, event) {
  const path = block.dataset.path;
  const selection = window.getSelection();
  if (selection && !selection.isCollapsed && selection.rangeCount) {
    const range = selection.getRangeAt(0);
    const first = range.startContainer.parentElement && range.startContainer.parentElement.closest(".block");
    const last = range.endContainer.parentElement && range.endContainer.parentElement.closest(".block");
    if (first && last && first.dataset.path === path && last.dataset.path === path) {
      const from = lineAt(first, range.startContainer);
      const to = lineAt(last, range.endContainer);
      const text = selection.toString().replace(/\s+/g, " ").trim();
      if (text) return path + ":" + (to > from ? from + "-" + to : from) + " " + text;
    }
  }
  const line = lineAt(block, pointNode(event));
  return (path + ":" + line + " " + sourceLine(block, line)).trim();
}

function annotatorPage(form) {
  const fields = Array.from(form.querySelectorAll("fieldset.field[data-kind]"));
  const pane = document.getElementById("fields");
  const error = document.getElementById("error");
  const saved = document.getElementById("saved");
  const help = document.getElementById("keys-help");
  let current = fields.find((f) => !f.classList.contains("answered")) || fields[0];

  function choicesOf(fs) {
    return Array.from(fs.querySelectorAll(".choices input[type=radio], .choices input[type=checkbox]"));
  }

  function focusChoice(input) {
    if (!input) return;
    input.focus({ preventScroll: true });
    reveal(pane, current);
  }

  function setCurrent(fs, focus) {
    if (!fs) return;
    fields.forEach((f) => f.classList.toggle("current", f === fs));
    current = fs;
    reveal(pane, fs);
    if (focus) {
      const boxes = choicesOf(fs);
      focusChoice(boxes.find((b) => b.checked) || boxes[0]);
    }
  }

  function move(step) {
    const i = fields.indexOf(current) + step;
    if (i >= 0 && i < fields.length) setCurrent(fields[i], true);
  }

  async function post(data) {
    const response = await fetch(window.location.pathname, {
      method: "POST",
      body: data,
      headers: { Accept: "application/json" },
    });
    const body = await response.json();
    if (!body.ok) {
      error.textContent = body.error;
      error.hidden = false;
      return null;
    }
    error.hidden = true;
    saved.textContent = "saved";
    document.getElementById("progress").textContent =
      body.done + "/" + body.total + " repositories · " + body.answers + "/" + body.asked + " answers";
    const handIn = document.getElementById("hand-in");
    if (handIn) handIn.classList.toggle("disabled", body.done !== body.total);
    return body;
  }

  // Saves the field's value (when one is chosen) and its evidence (always, even alone).
  async function saveField(fs) {
    const name = fs.dataset.field;
    const data = new FormData();
    data.append("field", name);
    fs.querySelectorAll("input[name='" + name + "']:checked").forEach((box) => data.append(name, box.value));
    const other = fs.querySelector("input[name='" + name + "__other']");
    if (other) data.append(name + "__other", other.value);
    data.append(name + "__evidence", fs.querySelector("input.evidence").value);
    const body = await post(data);
    if (body) {
      const item = document.querySelector(".queue li.current");
      if (item) {
        item.querySelector("small").textContent = body.answered.length + "/" + fields.length;
        item.classList.toggle("complete", body.repo_complete);
        const link = item.querySelector("a");
        link.textContent = (body.repo_complete ? "✓" : "·") + link.textContent.slice(1);
      }
      fields.forEach((f) => {
        const done = body.answered.includes(f.dataset.field);
        f.classList.toggle("answered", done);
        f.querySelector(".state").textContent = done ? "✓" : "";
      });
    }
    return body;
  }

  fields.forEach((fs) => {
    fs.addEventListener("focusin", () => {
      if (current !== fs) setCurrent(fs, false);
      else reveal(pane, fs);
    });
    fs.addEventListener("click", () => setCurrent(fs, false));
    fs.addEventListener("change", (event) => {
      const box = event.target;
      if (box.type === "checkbox" && box.checked) {
        const special = box.dataset.special === "1";
        fs.querySelectorAll("input[type=checkbox]").forEach((other) => {
          if (other !== box && (special || other.dataset.special === "1")) other.checked = false;
        });
      }
      if (box.name === fs.dataset.field + "__other" && box.value) {
        const open = fs.querySelector("input[value$=':'][name='" + fs.dataset.field + "']");
        if (open) open.checked = true;
      }
      saveField(fs);
    });
  });

  const note = form.querySelector("textarea[name=note]");
  note.addEventListener("change", () => {
    const data = new FormData();
    data.append("note", note.value);
    post(data);
  });

  // Pick one choice: a set toggles it and stays; a single choice is set and the form moves on.
  function pick(box) {
    if (!box) return;
    const single = box.type === "radio";
    box.checked = single ? true : !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    if (box.value.endsWith(":") && box.checked) {
      const name = current.querySelector("input[name$='__other']");
      if (name) { name.focus(); return; }
    }
    if (single) move(1);
    else focusChoice(box);
  }

  function byValue(value) {
    return current.querySelector(".choices input[value='" + value + "']");
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (typing(target)) {
      const own = fields.find((f) => f.contains(target));
      if (event.key === "Escape") {
        target.blur();
        if (own) setCurrent(own, true);
      } else if (event.key === "Enter" && target.tagName === "INPUT" && own) {
        event.preventDefault(); // no form submission: the box is saved, the form stays
        const isOther = target.name.endsWith("__other");
        if (isOther && target.value) {
          const open = own.querySelector("input[value$=':'][name='" + own.dataset.field + "']");
          if (open) open.checked = true;
        }
        saveField(own).then(() => {
          const single = own.dataset.kind !== "set";
          if (isOther && single) move(1);
          else setCurrent(own, true);
        });
      }
      return;
    }
    const key = event.key;
    const boxes = choicesOf(current);
    const focused = boxes.indexOf(document.activeElement);
    if (key === "y" || key === "n") {
      pick(byValue(key === "y" ? "yes" : "no"));
    } else if (key === "u") {
      pick(byValue("unclear"));
    } else if (key === "j" || key === "ArrowDown") {
      move(1);
    } else if (key === "k" || key === "ArrowUp") {
      move(-1);
    } else if (key === "l" || key === "ArrowRight" || key === "h" || key === "ArrowLeft") {
      const step = key === "l" || key === "ArrowRight" ? 1 : -1;
      const from = focused < 0 ? (step > 0 ? -1 : boxes.length) : focused;
      focusChoice(boxes[Math.min(boxes.length - 1, Math.max(0, from + step))]);
    } else if (key === " " || key === "Enter") {
      pick(focused >= 0 ? boxes[focused] : boxes[0]);
    } else if (key === "]" || key === "[") {
      const button = document.getElementById(key === "]" ? "next" : "prev");
      if (button) button.click();
    } else if (key === "e") {
      current.querySelector("input.evidence").focus();
    } else if (key === "H") {
      const handIn = document.getElementById("hand-in");
      if (handIn) handIn.click();
    } else if (key === "?") {
      if (help) {
        help.open = !help.open;
        if (help.open) help.scrollIntoView({ block: "nearest" });
      }
    } else if (/^[1-9]$/.test(key)) {
      pick(boxes[Number(key) - 1]);
    } else {
      return;
    }
    event.preventDefault();
  });

  document.querySelectorAll(".docs .block").forEach((block) => {
    block.addEventListener("click", (event) => {
      if (event.target.closest("a")) return;
      const evidence = current.querySelector("input.evidence");
      evidence.value = evidenceOf(block, event);
      block.classList.add("picked");
      setTimeout(() => block.classList.remove("picked"), 600);
      saveField(current);
      focusChoice(choicesOf(current).find((b) => b.checked) || choicesOf(current)[0]);
    });
  });

  setCurrent(current, true);
}

function adjudicatorPage() {
  const cards = Array.from(document.querySelectorAll("article.conflict"));
  if (!cards.length) return;
  const list = document.querySelector(".cards");
  const docs = document.getElementById("pane");
  let current = cards.find((c) => c.classList.contains("refused")) ||
    cards.find((c) => !c.classList.contains("decided")) || cards[0];
  let shown = null;

  async function showDocuments(card) {
    if (!docs || shown === card) return;
    shown = card;
    const response = await fetch(card.dataset.docs + "?fragment=1");
    if (shown !== card) return;
    docs.innerHTML = await response.text(); // rendered and sanitised by the server
    docs.scrollTop = 0;
    const first = docs.querySelector(".block.cited") || docs.querySelector(".doc.cited");
    if (first) { // the first cited line near the top of the pane, the file's name above it
      const offset = first.getBoundingClientRect().top - docs.getBoundingClientRect().top;
      docs.scrollTop += Math.max(0, offset - 80);
    }
  }

  function setCurrent(card) {
    cards.forEach((c) => c.classList.toggle("current", c === card));
    current = card;
    reveal(list, card);
    showDocuments(card);
  }

  cards.forEach((card) => {
    card.addEventListener("focusin", () => { if (current !== card) setCurrent(card); });
    card.addEventListener("click", () => { if (current !== card) setCurrent(card); });
    const own = card.querySelector("input[name=pick][value=own]");
    card.querySelector("input[name=value]").addEventListener("input", () => {
      own.checked = true;
    });
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const i = cards.indexOf(current);
    const key = event.key;
    if (key === "j" && i + 1 < cards.length) setCurrent(cards[i + 1]);
    else if (key === "k" && i > 0) setCurrent(cards[i - 1]);
    else if (key === "a" || key === "b" || key === "m") {
      const pick = current.querySelector("input[name=pick][value=" + key + "]");
      if (pick) pick.checked = true;
    } else if (key === "o") {
      current.querySelector("input[name=pick][value=own]").checked = true;
      current.querySelector("input[name=value]").focus();
    } else if (key === "r") current.querySelector("input.rationale").focus();
    else return;
    event.preventDefault();
  });
  setCurrent(current);
  if (current.classList.contains("refused")) current.querySelector("input.rationale").focus();
}

function handInPage() {
  const back = document.getElementById("back");
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && back) back.click();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("labels");
  if (form && !form.dataset.readonly) annotatorPage(form);
  if (document.body.classList.contains("hand-in")) handInPage();
  adjudicatorPage();
});
