"""streamparse as vLLM's reasoning parser (vLLM 0.33 ``ReasoningParser``).

Two roles, decided per request by what vLLM builds next to it:

- **paired** with the streamparse tool parser (the recommended setup): both run one engine per request, which
  emits reasoning, content and tool calls, so a call written inside ``<think>`` is still a call; the
  reasoning parser never reports the end of reasoning to vLLM's streaming loop (the whole output stays with
  that engine);
- **alone**, or paired with the engine's own tool parser: the engine parser's contract. Reasoning and
  content are split; call markup is left in the content, where it was, for the engine's tool parser; the end
  of reasoning is reported so that vLLM hands the rest of the stream to that tool parser.

Where the output starts (inside reasoning or not) follows, in this order: the request's
``chat_template_kwargs`` switch (``enable_thinking`` / ``thinking``), the prompt's last ``<think>`` /
``</think>`` token (vLLM passes the prompt's token ids), and the family's convention (:data:`FAMILIES`,
the engine parser's assumption for ``streamparse_qwen3``, ``streamparse_deepseek_r1``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import DeltaMessage
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser

from streamparse import StreamParser
from streamparse.presets import preset_for

from .session import ReasoningSplit, RequestSession, split, tool_specs
from .vllm_base import (
    THINK_CLOSE,
    THINK_OPEN,
    UNPAIRED,
    Family,
    delta_message,
    make_parser,
    served_model,
    thinking_switch,
)

__all__ = ["StreamparseReasoningParser"]

PROMPT_TOKENS = 64  # the prompt's last tokens that can hold a reasoning opener (decoded once per request)


class StreamparseReasoningParser(ReasoningParser):
    """vLLM ``ReasoningParser`` backed by streamparse (see the module docstring for its two roles)."""

    format_names: tuple[str, ...] | None = None
    family: Family | None = None
    """The vLLM reasoning parser this one stands in for, when it is a ``streamparse_<family>`` name."""
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self.model = served_model(kwargs.get("model_config"))
        self.template: dict[str, Any] | None = kwargs.get("chat_template_kwargs")
        self._prompt: bool | None = None
        """What the prompt's last reasoning marker said (``<think>``: primed), ``None`` if none was seen."""
        self.prompt_tail: str | None = None
        """The prompt's last tokens as text, when no ``<think>`` token ends it: the parser's prompt rule reads
        other families' openers there (Kimi K3's ``<|open|>think<|sep|>`` against ``<|open|>response<|sep|>``)."""
        vocab = tokenizer.get_vocab() if tokenizer is not None and hasattr(tokenizer, "get_vocab") else {}
        self._open_id = vocab.get(THINK_OPEN)
        self._close_id = vocab.get(THINK_CLOSE)
        self._split: ReasoningSplit | None = None
        self._state: bool | None = None  # inside reasoning, as of the tokens seen; None: where the output starts
        self.tool_parser: Any = None
        """The streamparse tool parser of the same request, when vLLM built one (it pairs itself here)."""
        UNPAIRED[0] = self

    @property
    def primed(self) -> bool | None:
        """Whether this request's output starts inside reasoning; ``None``: the served model's preset decides."""
        return self._primed(self.template, self.model)

    def _primed(self, template: dict[str, Any] | None, model: str | None) -> bool | None:
        switch = self._switch(template)
        if switch is not None:
            # Off: the template closed (or never opened) the reasoning. On: the family's template opened it.
            return switch and (self.family is None or self.family.primed or self.family.switch == "thinking")
        if self._prompt is not None:
            return self._prompt
        if self.family is None or self.tool_parser is not None or self.prompt_tail is not None:
            return None  # the prompt's end, else the served model's preset, decides (make_parser)
        preset = preset_for(model or "")
        # Alone, the engine parser's contract: a served model the presets know is that model's convention,
        # otherwise the family's.
        return preset.start_in_reasoning if preset.matched else self.family.primed

    def _switch(self, template: dict[str, Any] | None) -> bool | None:
        """The request's thinking switch, unless the served chat template has none: then it cannot change the
        prompt (GLM-5.3's always opens ``<think>``, and vLLM's GLM parser ignores the switch for it)."""
        chat_template = getattr(self.model_tokenizer, "chat_template", None)
        if isinstance(chat_template, str) and "thinking" not in chat_template:
            return None
        return thinking_switch(template, self.family.switch if self.family else "enable_thinking")

    @property
    def _in_reasoning(self) -> bool:
        return bool(self.primed) if self._state is None else self._state

    @property
    def reasoning_start_str(self) -> str | None:
        return THINK_OPEN

    @property
    def reasoning_end_str(self) -> str | None:
        return THINK_CLOSE

    def _parser(self, request: Any = None) -> StreamParser:
        template = getattr(request, "chat_template_kwargs", None) or self.template
        model = getattr(request, "model", None) or self.model
        primed = self._primed(template, model)
        tools = tool_specs(getattr(request, "tools", None))
        return make_parser(
            self.format_names, model, tools, primed, template, tokenizer=self.model_tokenizer, prompt=self.prompt_tail
        )

    def _stream(self, tokens: bool = True) -> RequestSession:
        session: RequestSession = self.tool_parser.session(model=self.model, tokens=tokens)
        return session

    def _alone(self) -> ReasoningSplit:
        if self._split is None:
            self._split = ReasoningSplit(self._parser(), self.family.enders if self.family else ())
        return self._split

    # -- token-level gating ----------------------------------------------------------------------------

    def _last_marker(self, ids: Iterable[int]) -> int | None:
        last = None
        for token in ids:
            if token == self._close_id or token == self._open_id:
                last = token
        return last

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        last = next((t for t in reversed(input_ids) if t == self._close_id or t == self._open_id), None)
        if last is None:
            return not self._in_reasoning
        return last == self._close_id

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
        # Only the new tokens are looked at: a per-step rescan of the output would be quadratic.
        last = self._last_marker(delta_ids)
        if last is not None:
            self._state = last == self._open_id
        return not self._in_reasoning

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        for i in range(len(input_ids) - 1, -1, -1):
            if input_ids[i] == self._close_id:
                return input_ids[i + 1 :]
        return [] if self._in_reasoning else input_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """Tokens of the output inside reasoning (none when the request switched thinking off)."""
        if self._switch(self.template) is False:
            return 0
        count, inside = 0, bool(self.primed)
        for token in token_ids:
            if token == self._open_id or token == self._close_id:
                inside = token == self._open_id
            elif inside:
                count += 1
        return count

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        self.adjust_initial_state_from_prompt(prompt_token_ids)

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        # The template's last reasoning marker decides where the output starts (reasoning rule, docs/FORMATS.md),
        # unless the request switched thinking explicitly.
        if self._switch(self.template) is not None:
            return
        self.prompt_tail = None
        last = self._last_marker(prompt_token_ids[-4:])
        if last is not None:
            self._prompt = last == self._open_id
        elif self.family is None and prompt_token_ids and hasattr(self.model_tokenizer, "decode"):
            # Only for the preset parser: a family's parser keeps its engine parser's convention.
            try:
                self.prompt_tail = self.model_tokenizer.decode(list(prompt_token_ids[-PROMPT_TOKENS:])) or None
            except Exception:  # a tokenizer that cannot decode these ids: the other rules decide
                self.prompt_tail = None

    def has_engine_confirmed_reasoning_end(self) -> bool:
        # Paired: the engine keeps the whole output. Alone: the rest goes to the engine's tool parser.
        return self.tool_parser is None and self._split is not None and self._split.ended

    # -- text ------------------------------------------------------------------------------------------

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        """The reasoning and the visible text (alone: the rest of the output verbatim, call markup included)."""
        if self.tool_parser is None:
            alone = ReasoningSplit(self._parser(request), self.family.enders if self.family else ())
            if model_output[:1].isspace() and model_output.lstrip().startswith(THINK_OPEN):
                # Whitespace before the opening <think> is the template's separator, not reasoning (vLLM's
                # parsers drop it when they see the whole output; a stream cannot know yet and keeps it).
                model_output = model_output.lstrip()
            content, reasoning = split(p for p in (alone.push(model_output), alone.finish()) if p is not None)
        else:
            session = self.tool_parser.new_session(self._parser(request), True)
            content, reasoning = split(p for p in (session.push(model_output), session.finish()) if p is not None)
            self.tool_parser.handoff(content, session)
        return (reasoning or (self.family.empty if self.family else None)), (content or None)

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        if self.tool_parser is not None:
            self.tool_parser.count_tokens(len(delta_token_ids))
            session = self._stream(tokens=bool(delta_token_ids) or not delta_text)
            return delta_message(self.tool_parser.push(session, delta_text, delta_token_ids))
        if self._split is not None and self._split.finished:
            self._split, self._state = None, None  # one instance, the next request (the last one was finished)
        alone = self._alone()
        piece = alone.push(delta_text)
        if alone.ended:
            self._state = False
        return delta_message(piece)

    def finish_streaming(self) -> DeltaMessage | None:
        if self.tool_parser is not None or self._split is None:
            return None  # paired: the tool parser's finish_streaming closes the shared session
        return delta_message(self._split.finish())
