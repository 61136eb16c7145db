// streamparse playground: sends one replay request, reads the server-sent steps, and renders the state
// at any step (live while replaying, or picked with the slider afterwards). No dependencies.
"use strict";

const $ = (id) => document.getElementById(id);
const MAX_EVENT_ROWS = 600;
const MAX_CHUNK_ROWS = 600;

let meta = { formats: [], examples: [], models: [], limits: {} };
let run = null;       // the current or last replay: {start, steps: [], done, error}
let controller = null;
let shown = -1;       // the step on screen
let follow = true;    // the slider follows the live replay
let cache = null;     // folded state for steps [0, cache.k)
let framePending = false;

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

function strong(text) {
  const b = document.createElement("b");
  b.textContent = text;
  return b;
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
// Folding steps into the state shown

function emptyState() {
  return { k: 0, text: "", reasoning: "", calls: new Map(), order: [], events: [], chunks: [], spans: [], accepted: 0, rejected: 0 };
}

function addSpan(spans, s, e, kind) {
  const last = spans[spans.length - 1];
  if (last && last[2] === kind && last[1] === s) last[1] = e;
  else spans.push([s, e, kind]);
}

function fold(state, step) {
  for (const ev of step.events) {
    state.events.push([step.n, ev]);
    if (ev.type === "text") state.text += ev.text;
    else if (ev.type === "reasoning") state.reasoning += ev.text;
    else if (ev.type === "tool_call_start") {
      state.calls.set(ev.index, { index: ev.index, id: ev.id, name: ev.name, args: "", status: "streaming" });
      state.order.push(ev.index);
    } else if (ev.type === "tool_call_delta") {
      const c = state.calls.get(ev.index);
      if (c) c.args += ev.arguments;
    } else if (ev.type === "tool_call_end") {
      let c = state.calls.get(ev.index);
      if (!c) { c = { index: ev.index }; state.calls.set(ev.index, c); state.order.push(ev.index); }
      Object.assign(c, { id: ev.call.id, name: ev.call.name, args: ev.call.arguments_json, status: "accepted", call: ev.call });
      state.accepted += 1;
    } else if (ev.type === "tool_call_rejected") {
      let c = state.calls.get(ev.index);
      if (!c) { c = { index: ev.index, id: "", args: "" }; state.calls.set(ev.index, c); state.order.push(ev.index); }
      Object.assign(c, { name: ev.name || c.name || "?", status: "rejected", reason: ev.reason, detail: ev.detail, raw: ev.raw, format: ev.format });
      state.rejected += 1;
    }
  }
  for (const chunk of step.openai) state.chunks.push([step.n, chunk]);
  if (step.sse) state.chunks.push([step.n, null]);
  for (const [s, e, kind] of step.spans) addSpan(state.spans, s, e, kind);
  state.k += 1;
  return state;
}

function stateAt(k) {
  // Calls are mutable records: refold from scratch when going backwards.
  if (!cache || cache.k > k) cache = emptyState();
  while (cache.k < k) fold(cache, run.steps[cache.k]);
  return cache;
}

// ---------------------------------------------------------------------------------------------------
// Rendering

function scheduleRender() {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(() => { framePending = false; render(); });
}

function render() {
  const total = run ? run.steps.length : 0;
  const scrub = $("scrub");
  scrub.max = Math.max(total, 0);
  scrub.disabled = total === 0;
  if (follow) scrub.value = total;
  const k = Math.min(Number(scrub.value), total);
  const state = run ? stateAt(k) : emptyState();
  const step = k > 0 ? run.steps[k - 1] : null;
  const input = run && run.start ? run.start.input : "";
  const fed = step ? step.fed[1] : 0;
  const held = step ? step.held : [0, 0];

  $("st-step").textContent = k;
  $("st-steps").textContent = run && run.start ? run.start.steps + 1 : 0;
  $("st-consumed").textContent = fed.toLocaleString();
  $("st-held").textContent = (held[1] - held[0]).toLocaleString();
  $("st-calls").textContent = state.accepted;
  $("st-rejected").textContent = state.rejected;
  $("st-finish").textContent = run && run.done && k === total ? run.done.finish_reason : "-";
  $("scrub-note").textContent = scrubNote(k, total);

  renderAnnotated(input, state.spans, held, fed);
  renderHeld(input, step, held, state);
  setText($("text"), state.text);
  setText($("reasoning"), state.reasoning);
  renderCalls(state);
  renderEvents(state, step);
  renderChunks(state, step);
  shown = k;
}

function scrubNote(k, total) {
  if (!run) return "Replay, then drag to look at any step.";
  const s = run.start;
  const per = s && s.per_step > 1 ? ` (${s.per_step} pieces per step)` : "";
  const kind = s ? (s.input_kind === "openai-sse" ? `${s.pieces} content deltas from the SSE capture` : `${s.pieces} chunks`) : "";
  const fmts = s ? " \u00b7 formats: " + (s.formats.length > 6 ? s.formats.slice(0, 6).join(", ") + ", \u2026" : s.formats.join(", ")) : "";
  const where = k === 0 ? "before the first chunk" : run.steps[k - 1].closing ? "after close()" : `after step ${k}`;
  return `${kind}${per}${fmts} \u00b7 showing ${where}` + (run.done && run.done.unplaced ? ` \u00b7 ${run.done.unplaced} pieces could not be placed on the input (held view approximate)` : "");
}

function setText(el, text) {
  if (el.textContent !== text) {
    el.textContent = text;
    el.scrollTop = el.scrollHeight;
  }
}

function span(kind, text) {
  const el = document.createElement("span");
  el.className = "k-" + kind;
  el.textContent = text;
  return el;
}

function renderAnnotated(input, spans, held, fed) {
  const pre = $("annotated");
  const frag = document.createDocumentFragment();
  let pos = 0;
  for (const [s, e, kind] of spans) {
    if (s > pos) frag.append(span("pending", input.slice(pos, s)));
    frag.append(span(kind, input.slice(s, e)));
    pos = e;
  }
  if (held[1] > pos) {
    if (held[0] > pos) frag.append(span("pending", input.slice(pos, held[0])));
    frag.append(span("held", input.slice(Math.max(pos, held[0]), held[1])));
    pos = held[1];
  }
  if (fed > pos) { frag.append(span("pending", input.slice(pos, fed))); pos = fed; }
  if (input.length > pos) frag.append(span("pending", input.slice(pos)));
  pre.replaceChildren(frag);
  const heldEl = pre.querySelector(".k-held");
  if (heldEl && follow && document.body.dataset.state === "running") heldEl.scrollIntoView({ block: "nearest" });
}

function renderHeld(input, step, held, state) {
  const text = input.slice(held[0], held[1]);
  $("held").textContent = text;
  let note;
  if (!step) note = "Nothing fed yet.";
  else if (step.closing) note = "The stream is closed: nothing is held. Markup the parser consumed is shown striped above.";
  else if (step.open_call !== null && step.open_call !== undefined) {
    const c = state.calls.get(step.open_call);
    note = `Inside tool call #${step.open_call}${c ? " " + c.name : ""}: its markup is consumed as it streams; the call is released whole (or rejected) when it closes.`;
  } else if (text) note = `${text.length} character${text.length === 1 ? "" : "s"} held: they may start a marker (a tag or special token), so they are released as text only once that is ruled out.`;
  else note = "Nothing held: everything fed so far has been released.";
  $("held-note").textContent = note;
}

function renderCalls(state) {
  const box = $("calls");
  if (!state.order.length) {
    box.innerHTML = '<p class="muted">None yet.</p>';
    return;
  }
  const frag = document.createDocumentFragment();
  for (const index of state.order) {
    const c = state.calls.get(index);
    const card = document.createElement("div");
    card.className = "call";
    card.dataset.status = c.status;
    card.dataset.index = index;
    card.dataset.name = c.name || "";
    card.dataset.argumentsJson = c.args || "";
    const head = document.createElement("div");
    head.className = "call-head";
    const name = document.createElement("span");
    name.className = "call-name";
    name.textContent = (c.name || "?") + "(\u2026)";
    const badge = document.createElement("span");
    badge.className = "badge " + c.status;
    badge.textContent = c.status;
    const id = document.createElement("span");
    id.className = "call-id";
    id.textContent = c.id ? `#${index} \u00b7 ${c.id}` : `#${index}`;
    head.append(name, badge, id);
    card.append(head);
    const args = document.createElement("pre");
    args.className = "call-args";
    args.textContent = c.status === "accepted" ? JSON.stringify(c.call.arguments, null, 2) : c.args;
    if (c.status !== "rejected" || c.args) card.append(args);
    if (c.status === "rejected") {
      const why = document.createElement("div");
      why.className = "call-reason";
      why.append("rejected: ", strong(c.reason));
      if (c.detail) why.append(" \u2014 " + c.detail);
      const raw = document.createElement("pre");
      raw.className = "call-raw";
      raw.textContent = c.raw || "";
      card.append(why, raw);
    } else if (c.status === "accepted") {
      const m = document.createElement("div");
      m.className = "call-meta";
      const bits = [`format ${c.call.format}`, `validation ${c.call.validation}`];
      if (c.call.repairs.length) bits.push("repaired: " + c.call.repairs.join(", "));
      if (c.call.fallback_used) bits.push("found by a fallback format");
      m.textContent = bits.join(" \u00b7 ");
      card.append(m);
    }
    frag.append(card);
  }
  box.replaceChildren(frag);
}

function evPayload(ev) {
  switch (ev.type) {
    case "text":
    case "reasoning": return JSON.stringify(ev.text);
    case "tool_call_start": return `#${ev.index} ${ev.name} (${ev.id})`;
    case "tool_call_delta": return `#${ev.index} ${JSON.stringify(ev.arguments)}`;
    case "tool_call_end": return `#${ev.index} ${ev.call.name} ${ev.call.arguments_json}`;
    case "tool_call_rejected": return `#${ev.index} ${ev.name || "?"}: ${ev.reason}${ev.detail ? " \u2014 " + ev.detail : ""}`;
    default: return JSON.stringify(ev);
  }
}

function row(n, type, payload, now) {
  const el = document.createElement("div");
  el.className = "ev " + type + (now ? " now" : "");
  const a = document.createElement("span"); a.className = "n"; a.textContent = n;
  const b = document.createElement("span"); b.className = "t"; b.textContent = type;
  const c = document.createElement("span"); c.className = "p"; c.textContent = payload;
  el.append(a, b, c);
  return el;
}

function renderEvents(state, step) {
  const box = $("events");
  $("events-count").textContent = state.events.length;
  const frag = document.createDocumentFragment();
  const from = Math.max(0, state.events.length - MAX_EVENT_ROWS);
  if (from) frag.append(Object.assign(document.createElement("div"), { className: "more", textContent: `${from} earlier events not shown` }));
  for (let i = from; i < state.events.length; i++) {
    const [n, ev] = state.events[i];
    frag.append(row(n + 1, ev.type, evPayload(ev), step && n === step.n));
  }
  box.replaceChildren(frag);
  box.scrollTop = box.scrollHeight;
}

function renderChunks(state, step) {
  const box = $("openai");
  const full = $("openai-full").checked;
  $("openai-count").textContent = state.chunks.length;
  const frag = document.createDocumentFragment();
  const from = Math.max(0, state.chunks.length - MAX_CHUNK_ROWS);
  if (from) frag.append(Object.assign(document.createElement("div"), { className: "more", textContent: `${from} earlier chunks not shown` }));
  for (let i = from; i < state.chunks.length; i++) {
    const [n, chunk] = state.chunks[i];
    let payload;
    if (chunk === null) payload = "data: [DONE]";
    else if (full) payload = "data: " + JSON.stringify(chunk);
    else {
      const choice = chunk.choices[0];
      payload = JSON.stringify(choice.delta) + (choice.finish_reason ? `  finish_reason=${choice.finish_reason}` : "");
    }
    frag.append(row(n + 1, "chunk", payload, step && n === step.n));
  }
  box.replaceChildren(frag);
  box.scrollTop = box.scrollHeight;
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
