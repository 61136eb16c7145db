// Zero-config in the playground: a pasted chat template (or a local model folder) replaces the model's
// preset; the derived format is shown beside the parse. Loaded after app.js, whose form and message
// functions it extends.
(function () {
  "use strict";
  const field = () => document.getElementById("chat-template");
  const baseRead = readForm;
  const baseWrite = writeForm;
  const baseMessage = onMessage;

  readForm = function () {
    const form = baseRead();
    // Only when given: share links without a template stay as they were (and as short).
    if (field().value.trim()) form.chat_template = field().value;
    return form;
  };

  writeForm = function (state) {
    baseWrite(state);
    field().value = state.chat_template || "";
    summary();
  };

  onMessage = function (event, data) {
    if (event === "start") show(data.derived);
    baseMessage(event, data);
  };

  function summary() {
    const text = field().value.trim();
    document.getElementById("template-summary").textContent = text
      ? (text.includes("{") ? "pasted (" + text.length + " characters)" : "folder " + text)
      : "none: the model's preset decides";
  }

  function show(derived) {
    const card = document.getElementById("derived-card");
    card.hidden = !derived;
    if (!derived) return;
    const passed = derived.checks.filter((c) => c.ok && !c.skipped).length;
    document.getElementById("derived-summary").textContent =
      derived.name + ": reads back " + passed + " of " + derived.checks.length + " probe renders" +
      (derived.primed ? "; the prompt opens the reasoning" : "");
    document.getElementById("derived").textContent = JSON.stringify(derived.declaration, null, 2);
    document.getElementById("derived-notes").textContent = derived.notes.join("\n");
  }

  document.addEventListener("DOMContentLoaded", () => {
    field().addEventListener("input", summary);
    summary();
  });
})();
