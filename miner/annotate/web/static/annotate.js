// miner annotate: keyboard shortcuts, click-a-line evidence and save-as-you-go.
// No framework and no build step; the server validates everything this script sends.
"use strict";

function typing(target) {
  return target.matches && target.matches("input[type=text], textarea, select");
}

function annotatorPage(form) {
  const fields = Array.from(form.querySelectorAll("fieldset.field[data-kind]"));
  const error = document.getElementById("error");
  const saved = document.getElementById("saved");
  let current = fields.find((f) => !f.classList.contains("answered")) || fields[0];

  function setCurrent(fs, scroll) {
    if (!fs) return;
    fields.forEach((f) => f.classList.toggle("current", f === fs));
    current = fs;
    if (scroll) fs.scrollIntoView({ block: "nearest" });
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
    if (handIn) handIn.disabled = body.done !== body.total;
    return body;
  }

  async function saveField(fs) {
    const name = fs.dataset.field;
    const data = new FormData();
    data.append("field", name);
    let chosen = false;
    fs.querySelectorAll("input[name='" + name + "']:checked").forEach((box) => {
      data.append(name, box.value);
      chosen = true;
    });
    const other = fs.querySelector("input[name='" + name + "__other']");
    if (other) data.append(name + "__other", other.value);
    data.append(name + "__evidence", fs.querySelector("input.evidence").value);
    if (!chosen) return;
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
  }

  fields.forEach((fs) => {
    fs.addEventListener("focusin", () => setCurrent(fs, false));
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

  function choose(value) {
    const box = current.querySelector("input[value='" + value + "']");
    if (!box) return false;
    box.checked = current.dataset.kind === "set" && box.type === "checkbox" ? !box.checked : true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const key = event.key;
    if (key === "y" || key === "n") {
      if (choose(key === "y" ? "yes" : "no")) move(1);
    } else if (key === "u") {
      if (choose("unclear")) move(1);
    } else if (key === "j") {
      move(1);
    } else if (key === "k") {
      move(-1);
    } else if (key === "]" || key === "[") {
      const button = document.getElementById(key === "]" ? "next" : "prev");
      if (button) button.click();
    } else if (key === "e") {
      current.querySelector("input.evidence").focus();
    } else if (/^[1-9]$/.test(key)) {
      const boxes = current.querySelectorAll(".choices input[type=radio], .choices input[type=checkbox]");
      const box = boxes[Number(key) - 1];
      if (box) choose(box.value);
    } else {
      return;
    }
    event.preventDefault();
  });

  document.querySelectorAll(".docs .block").forEach((block) => {
    block.addEventListener("click", (event) => {
      if (event.target.closest("a")) return;
      const lines = JSON.parse(block.dataset.lines);
      let offset = 0;
      let text = "";
      const selection = window.getSelection().toString().replace(/\s+/g, " ").trim();
      if (selection) {
        const probe = selection.slice(0, 20);
        const hit = lines.findIndex((line) => line.replace(/\s+/g, " ").includes(probe));
        offset = hit >= 0 ? hit : 0;
        text = selection;
      } else {
        offset = Math.max(0, lines.findIndex((line) => line.trim() !== ""));
        text = (lines[offset] || "").trim();
      }
      const where = block.dataset.path + ":" + (Number(block.dataset.line) + offset);
      const evidence = current.querySelector("input.evidence");
      evidence.value = (where + " " + text.slice(0, 200)).trim();
      block.classList.add("picked");
      setTimeout(() => block.classList.remove("picked"), 600);
      saveField(current);
    });
  });

  setCurrent(current, false);
}

function adjudicatorPage() {
  const cards = Array.from(document.querySelectorAll("article.conflict"));
  if (!cards.length) return;
  let current = cards.find((c) => !c.classList.contains("decided")) || cards[0];

  function setCurrent(card) {
    cards.forEach((c) => c.classList.toggle("current", c === card));
    current = card;
    card.scrollIntoView({ block: "nearest" });
  }

  cards.forEach((card) => {
    card.addEventListener("focusin", () => setCurrent(card));
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
    } else if (key === "r") current.querySelector("input.rationale").focus();
    else return;
    event.preventDefault();
  });
  setCurrent(current);
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("labels");
  if (form && !form.dataset.readonly) annotatorPage(form);
  adjudicatorPage();
});
