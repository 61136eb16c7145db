// streamparse playground: the form and its shareable link, one replay request at a time (its steps read
// from the server-sent events), and the page's setup. Rendering is in render.js (loaded first).
"use strict";

let meta = { formats: [], examples: [], models: [], limits: {} };
let run = null;       // the current or last replay: {start, steps: [], done, error}
let controller = null;
let follow = true;    // the slider follows the live replay

// ---------------------------------------------------------------------------------------------------
// Page state <-> form, and the shareable link (#s=<base64url of the JSON state>)

function readForm() {
  const formats = [...document.querySelectorAll("#formats input:checked")].map((el) => el.value);
  const sir = $("sir").value;
  return {
    input: $("input").value,
    input_kind: $("input-kind").value,
    model: $("model").value.trim(),
    formats,
    tools: $("tools").value,
    chunk_size: Number($("chunk").value) || 1,
    speed: Number($("speed").value),
    start_in_reasoning: sir === "" ? null : sir === "true",
  };
}

function writeForm(state) {
  $("input").value = state.input || "";
  $("input-kind").value = state.input_kind || "auto";
  $("model").value = state.model || "";
  const want = new Set(state.formats || []);
  document.querySelectorAll("#formats input").forEach((el) => { el.checked = want.has(el.value); });
  $("tools").value = state.tools || "";
  $("chunk").value = state.chunk_size || 4;
  const speed = String(state.speed ?? 40);
  $("speed").value = [...$("speed").options].some((o) => o.value === speed) ? speed : "40";
  $("sir").value = state.start_in_reasoning === true ? "true" : state.start_in_reasoning === false ? "false" : "";
  if (want.size) $("formats-box").open = true;
  if ((state.tools || "").trim()) $("tools-box").open = true;
  formChanged();
  clearTimeout(presetTimer);
  showPreset(); // at once: a restored or example state shows its preset with the first step
}

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(b64) {
  const bin = atob(b64.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function shareLink() {
  const url = new URL(location.href);
  url.hash = "s=" + toBase64Url(JSON.stringify(readForm()));
  return url.toString();
}

function stateFromHash() {
  const m = /^#s=([A-Za-z0-9_-]*)$/.exec(location.hash);
  if (!m) return null;
  try {
    return JSON.parse(fromBase64Url(m[1]));
  } catch (err) {
    showError("The link's state could not be read: " + err.message);
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Form helpers: preset line, formats summary, input info

let presetTimer = 0;

function formChanged() {
  const formats = [...document.querySelectorAll("#formats input:checked")].map((el) => el.value);
  $("formats-summary").textContent = formats.length ? formats.join(", ") : "from the model's preset";
  const tools = $("tools").value.trim();
  let toolsNote = "none: calls are not validated";
  if (tools) {
    try {
      const parsed = JSON.parse(tools);
      const list = Array.isArray(parsed) ? parsed : parsed.tools || [];
      toolsNote = list.length + " tool" + (list.length === 1 ? "" : "s") + ": calls are validated";
    } catch (err) {
      toolsNote = "not valid JSON yet";
    }
  }
  $("tools-summary").textContent = toolsNote;
  const text = $("input").value;
  const looksSse = /^\s*(data:|event:)/.test(text);
  const kind = $("input-kind").value === "auto" ? (looksSse ? "OpenAI SSE capture" : "raw text") : $("input-kind").selectedOptions[0].text;
  const kindChoice = $("input-kind").value;
  $("chunk").disabled = kindChoice === "openai-sse" || (kindChoice === "auto" && looksSse); // captured chunking
  $("input-info").textContent = text ? `${text.length.toLocaleString()} characters, read as ${kind}` + (looksSse || $("input-kind").value === "openai-sse" ? " (fed chunk by chunk as captured)" : "") : "";
  clearTimeout(presetTimer);
  presetTimer = setTimeout(showPreset, 200);
}

async function showPreset() {
  const model = $("model").value.trim();
  const explicit = document.querySelectorAll("#formats input:checked").length > 0;
  const box = $("preset");
  if (!model) {
    box.textContent = explicit ? "Formats as chosen below." : 'No model: every format of formats="auto".';
    return;
  }
  try {
    const resp = await fetch("api/preset?model=" + encodeURIComponent(model));
    const p = await resp.json();
    if (model !== $("model").value.trim()) return;
    const fmts = p.matched ? p.formats.join(", ") : 'auto (no preset matches this id)';
    box.innerHTML = "";
    box.append("Preset ", strong(p.family), " \u2192 formats ", strong(fmts), ", starts in reasoning: ", strong(p.start_in_reasoning ? "yes" : "no"));
    if (explicit) box.append(" (the formats chosen below win)");
    if (p.note) box.append(" \u2014 " + p.note);
  } catch (err) {
    box.textContent = "";
  }
}

// ---------------------------------------------------------------------------------------------------
// Replay: POST, then read the event stream

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function setState(state) {
  document.body.dataset.state = state;
  $("replay").disabled = state === "running";
  $("stop").disabled = state !== "running";
}

async function startReplay() {
  if (controller) controller.abort();
  showError("");
  const request = readForm();
  history.replaceState(null, "", shareLink());
  run = { start: null, steps: [], done: null, error: null };
  cache = null;
  shown = -1;
  follow = true;
  controller = new AbortController();
  const mine = controller;
  const myRun = run;
  let finished = "error";
  setState("running");
  render();
  try {
    const resp = await fetch("api/replay", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
      signal: mine.signal,
    });
    if (!resp.ok) {
      let message = resp.status + " " + resp.statusText;
      try { message = (await resp.json()).error || message; } catch (err) { /* not JSON */ }
      throw new Error(message);
    }
    await readEvents(resp.body, (event, data) => onMessage(event, data));
    if (!myRun.done) throw new Error("the replay ended early");
    finished = "done";
  } catch (err) {
    if (mine.signal.aborted) {
      finished = "stopped";
    } else {
      myRun.error = err.message;
      if (run === myRun) showError(err.message);
      finished = "error";
    }
  } finally {
    if (controller === mine) controller = null;
  }
  if (run === myRun) {
    render(); // the last step is on screen before the state says the replay is over
    setState(finished);
  }
}

async function readEvents(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(event, JSON.parse(data.join("\n")));
    }
  }
}

function onMessage(event, data) {
  if (event === "start") {
    run.start = data;
  } else if (event === "step") {
    run.steps.push(data);
  } else if (event === "done") {
    run.done = data;
  }
  scheduleRender();
}

// ---------------------------------------------------------------------------------------------------
// Setup

function buildExamples() {
  const box = $("examples");
  for (const ex of meta.examples) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip " + ex.kind;
    b.textContent = ex.name;
    b.title = ex.title;
    b.dataset.example = ex.name;
    b.addEventListener("click", () => {
      document.querySelectorAll(".chip").forEach((c) => c.classList.toggle("active", c === b));
      const speed = $("speed").value;
      const chunk = $("chunk").value;
      writeForm({ chunk_size: Number(chunk), speed: Number(speed), ...ex.state });
      startReplay();
    });
    box.append(b);
  }
}

function buildFormats() {
  const box = $("formats");
  for (const f of meta.formats) {
    const label = document.createElement("label");
    label.title = f.models + (f.opt_in ? " (opt-in: not part of auto)" : "");
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.value = f.name;
    label.append(cb, f.name);
    box.append(label);
  }
  const list = $("model-list");
  for (const m of meta.models) list.append(Object.assign(document.createElement("option"), { value: m }));
}

function selectTab(name) {
  document.querySelectorAll(".tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  $("events").hidden = name !== "events";
  $("openai").hidden = name !== "openai";
  $("openai-note").hidden = name !== "openai";
  $("openai-full-box").hidden = name !== "openai";
}

async function init() {
  try {
    meta = await (await fetch("api/meta")).json();
  } catch (err) {
    showError("Could not load the playground's catalog: " + err.message);
  }
  buildExamples();
  buildFormats();
  ["input", "model", "tools"].forEach((id) => $(id).addEventListener("input", formChanged));
  ["input-kind", "sir", "speed", "chunk"].forEach((id) => $(id).addEventListener("change", formChanged));
  $("formats").addEventListener("change", formChanged);
  $("formats-clear").addEventListener("click", () => {
    document.querySelectorAll("#formats input").forEach((el) => { el.checked = false; });
    formChanged();
  });
  $("replay").addEventListener("click", startReplay);
  $("stop").addEventListener("click", () => controller && controller.abort());
  $("scrub").addEventListener("input", () => {
    follow = Number($("scrub").value) === (run ? run.steps.length : 0);
    render();
  });
  $("openai-full").addEventListener("change", render);
  document.querySelectorAll(".tabs button").forEach((b) => b.addEventListener("click", () => selectTab(b.dataset.tab)));
  $("share").addEventListener("click", async () => {
    const link = shareLink();
    history.replaceState(null, "", link);
    try { await navigator.clipboard.writeText(link); $("share").textContent = "Link copied"; } catch (err) { $("share").textContent = "Link in the address bar"; }
    $("share").classList.add("copied");
    setTimeout(() => { $("share").textContent = "Copy share link"; $("share").classList.remove("copied"); }, 1800);
  });
  window.addEventListener("hashchange", () => {
    const state = stateFromHash();
    if (state) { writeForm(state); startReplay(); }
  });
  const state = stateFromHash();
  if (state) {
    writeForm(state);
    startReplay();
  } else {
    formChanged();
    setState("idle");
    render();
  }
}

document.addEventListener("DOMContentLoaded", init);
