// streamparse playground: folds the server's steps into the state at any step and renders it (live while
// replaying, or at the step picked with the slider). Loaded before app.js, which holds `run` and `follow`.
"use strict";

const $ = (id) => document.getElementById(id);
const MAX_EVENT_ROWS = 600;
const MAX_CHUNK_ROWS = 600;
let shown = -1; // the step on screen
let cache = null; // folded state for steps [0, cache.k)
let framePending = 0; // the requested animation frame (or timer), if any
let lastRender = 0; // when the last render ended (performance.now())
let renderCost = 0; // how long it took, in ms
let toBottom = []; // elements to scroll to their end once this render's DOM writes are done

function strong(text) {
  const b = document.createElement("b");
  b.textContent = text;
  return b;
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

// Live replays deliver steps far faster than a frame; each render lays out the whole input, text and
// tables, so renders are batched: at most one per animation frame, and spaced by at least twice the cost
// of the last one, so that rendering never takes more than a third of the page's time (the rest reads
// and folds the stream). The last step is always rendered (app.js calls render() at the end).
function scheduleRender() {
  if (framePending) return;
  const wait = Math.max(0, lastRender + 2 * renderCost - performance.now());
  framePending = wait > 0
    ? -setTimeout(() => { framePending = requestAnimationFrame(render); }, wait)
    : requestAnimationFrame(render);
}

function render() {
  if (framePending > 0) cancelAnimationFrame(framePending); // rendered now: the frame asked for is not needed
  else if (framePending < 0) clearTimeout(-framePending);
  framePending = 0;
  const began = performance.now();
  toBottom = [];
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
  // Reads after all writes: one layout for the whole render, not one per scrolled pane.
  for (const el of toBottom) {
    if (el.dataset.scroll === "into-view") el.scrollIntoView({ block: "nearest" });
    else el.scrollTop = el.scrollHeight;
  }
  lastRender = performance.now();
  renderCost = lastRender - began;
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

const shownText = new WeakMap(); // element -> the text last put in it (reading textContent back is a copy)

function setText(el, text) {
  const before = shownText.get(el) ?? el.textContent;
  if (before === text) return;
  if (before && text.length > before.length && text.startsWith(before)) el.append(text.slice(before.length));
  else el.textContent = text; // replaced, not appended: a step back, or a new replay
  shownText.set(el, text);
  toBottom.push(el);
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
  if (heldEl && follow && document.body.dataset.state === "running") {
    heldEl.dataset.scroll = "into-view";
    toBottom.push(heldEl);
  }
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
  toBottom.push(box);
}

function renderChunks(state, step) {
  const box = $("openai");
  const full = $("openai-full").checked;
  $("openai-count").textContent = state.chunks.length;
  const frag = document.createDocumentFragment();
  const from = Math.max(0, state.chunks.length - MAX_CHUNK_ROWS);
  if (from) frag.append(Object.assign(document.createElement("div"), { className: "more", textContent: `${from} earlier chunks not shown` }));
  for (let i = from; i < state.chunks.length; i++) {
    const [n, choice] = state.chunks[i]; // steps carry each chunk's choice; the rest is run.start.chunk_envelope
    let payload;
    if (choice === null) payload = "data: [DONE]";
    else if (full) payload = "data: " + JSON.stringify({ ...run.start.chunk_envelope, choices: [choice] });
    else payload = JSON.stringify(choice.delta) + (choice.finish_reason ? `  finish_reason=${choice.finish_reason}` : "");
    frag.append(row(n + 1, "chunk", payload, step && n === step.n));
  }
  box.replaceChildren(frag);
  toBottom.push(box);
}

