"""Small tokenizers built offline (no hub): byte-level BPE with a format's markers as added special tokens.

Markers being special tokens is what real tokenizers do (Qwen's ``<tool_call>`` is one token), and what
exercises ``skip_special_tokens`` and token-id handling in the engines.
"""

from __future__ import annotations

from functools import cache

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

CORPUS = [
    "This is some prior text that has nothing to do with tool calling. Sure, let me check the weather.",
    '{"name": "get_current_temperature", "arguments": {"location": "San Francisco", "unit": "celsius"}}',
    '{"name": "search", "arguments": {"q": "cats"}} final_answer trigger true false null 0123456789',
    "the model writes a file with some code in it while the client waits for each delta = 42",
    "<function=get_weather><parameter=city>Paris</parameter></function> [get_weather(city='Paris')]",
]

MARKERS = (
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<TOOLCALL>",
    "</TOOLCALL>",
    "<|tool_call_start|>",
    "<|channel|>",
    "<|message|>",
    "<|end|>",
    "<|start|>",
    "<|call|>",
    "<|constrain|>",
    "<|return|>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "functools",
    "<|python_tag|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|tool_call|>",
    "<|/tool_call|>",
    "[TOOL_CALLS]",
    "<|im_end|>",
)


def train_bpe(corpus: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A byte-level BPE trained on ``corpus`` (offline: the ``tokenizers`` package, no hub)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    tok.train_from_iterator(corpus * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>")


@cache
def marker_tokenizer(markers: tuple[str, ...] = MARKERS) -> PreTrainedTokenizerFast:
    """A ~500-token byte-level BPE whose ``markers`` are single special tokens."""
    fast = train_bpe(CORPUS, 500)
    fast.add_special_tokens({"additional_special_tokens": list(markers)})
    return fast
