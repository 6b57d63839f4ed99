// The review app's keyboard and the corner clicks.  Every decision is an ordinary form post;
// this only presses the buttons (keys 1-9, Enter, U, V, N, T, D) and records clicked corners.
"use strict";

function typing(el) {
  return el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT");
}

function press(selector) {
  const el = document.querySelector(selector);
  if (el && !el.disabled) { el.click(); return true; }
  return false;
}

function focusField(id) {
  const el = document.getElementById(id);
  if (el) { el.focus(); return true; }
  return false;
}

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (typing(e.target)) {
    if (e.key === "Escape") e.target.blur();
    return;
  }
  let done = false;
  if (/^[1-9]$/.test(e.key)) {
    done = press(`button.choice[data-key="${e.key}"]`);
  } else if (e.key === "Enter") {
    done = press('button.choice[data-key="1"]') || press("#read-corners") ||
      press("#next-after") || press("#start");
  } else if (e.key === "Backspace") {
    done = corners.undoLast();
  } else {
    switch (e.key.toLowerCase()) {
      case "t": case "/": done = focusField("typed"); break;
      case "d": done = focusField("reason"); break;
      case "u": done = press("#undo-last"); break;
      case "v": done = press("#verify"); break;
      case "n": done = press("#next-sheet"); break;
    }
  }
  if (done) e.preventDefault();
});

// ------------------------------------------------------------------ four corners on the page
const corners = {
  points: [],
  undoLast() {
    if (!this.points.length) return false;
    this.points.pop();
    this.draw();
    return true;
  },
  draw() {
    const box = document.getElementById("page-box");
    const img = document.getElementById("page");
    if (!box || !img) return;
    box.querySelectorAll(".corner").forEach((m) => m.remove());
    const sx = img.clientWidth / img.naturalWidth, sy = img.clientHeight / img.naturalHeight;
    for (const [x, y] of this.points) {
      const m = document.createElement("div");
      m.className = "corner";
      m.style.left = `${x * sx}px`;
      m.style.top = `${y * sy}px`;
      box.appendChild(m);
    }
    document.getElementById("corners").value =
      this.points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(";");
    document.getElementById("corner-count").textContent = `${this.points.length} of 4`;
    document.getElementById("read-corners").disabled = this.points.length !== 4;
  },
};

window.addEventListener("DOMContentLoaded", () => {
  const img = document.getElementById("page");
  if (!img) return;
  img.addEventListener("click", (e) => {
    if (corners.points.length >= 4) return;
    const r = img.getBoundingClientRect();
    const x = (e.clientX - r.left) * img.naturalWidth / img.clientWidth;
    const y = (e.clientY - r.top) * img.naturalHeight / img.clientHeight;
    corners.points.push([x, y]);
    corners.draw();
  });
  document.getElementById("clear-corners").addEventListener("click", () => {
    corners.points = [];
    corners.draw();
  });
  window.addEventListener("resize", () => corners.draw());
});
