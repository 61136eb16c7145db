"""The offline tokenizer the engines' own test files run on (``make engine-suite``): no hub download.

vLLM's parser tests load real tokenizers by model id (``AutoTokenizer.from_pretrained``,
``vllm.tokenizers.get_tokenizer``). The suite answers every such load with one byte-level BPE trained here
with the ``tokenizers`` package, whose vocabulary holds the marker tokens of every family the suite runs
as added tokens, as the real tokenizers do (Qwen's ``<tool_call>``, DeepSeek's ``<｜tool▁calls▁begin｜>``,
Kimi's section tokens...). The engines' parsers look those up in the vocabulary at construction, and the
streaming helpers of the test files split text at them, so both the engine's parser and the adapter see
markers as single tokens.
"""

from __future__ import annotations

from functools import cache

from engine_tokenizer import train_bpe
from transformers import PreTrainedTokenizerFast

CORPUS = [
    "This is some prior text that has nothing to do with tool calling. Sure, let me check the weather for you.",
    '{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}',
    '{"name": "search", "arguments": {"query": "cats"}} final_answer trigger true false null 0123456789',
    "The user wants to know the weather. I should call the tool with the location and the unit.",
    "<function=get_weather><parameter=city>Paris</parameter></function> [get_weather(city='Paris')]",
    "def calculate_area(shape, dimensions): return {'width': 10, 'height': 20} # result",
    "Hello world! This is a reasoning section. This is the rest of the answer, in plain English text.",
]

MARKERS = (
    # Qwen / Hermes / GLM / MiniMax / ERNIE reasoning and calls
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<|im_start|>",
    "<|im_end|>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|observation|>",
    "<|user|>",
    "<|assistant|>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<response>",
    "</response>",
    # DeepSeek
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    "<｜begin▁of▁sentence｜>",
    "<｜end▁of▁sentence｜>",
    "<｜Assistant｜>",
    "<｜User｜>",
    # Kimi K2
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    # Granite, Jamba, InternLM, Llama, LFM2, Phi-4-mini, Nemotron, Mistral
    "<|tool_call|>",
    "<tool_calls>",
    "</tool_calls>",
    "<|action_start|>",
    "<|action_end|>",
    "<|plugin|>",
    "<|python_tag|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|begin_of_text|>",
    "<|python_start|>",
    "<|python_end|>",
    "<|tool_call_start|>",
    "functools",
    "<TOOLCALL>",
    "</TOOLCALL>",
    "[TOOL_CALLS]",
    "[ARGS]",
    # Gemma 4, FunctionGemma
    "<|tool_call>",
    "<tool_call|>",
    '<|"|>',
    "<start_function_call>",
    "<end_function_call>",
    "<escape>",
    # gpt-oss
    "<|channel|>",
    "<|message|>",
    "<|end|>",
    "<|start|>",
    "<|call|>",
    "<|constrain|>",
    "<|return|>",
)


# Olmo 3 writes <think> and </think> with ordinary tokens ("</", "think", ">"; "Ġ</" after a space), which
# vLLM's Olmo 3 parser looks up in the vocabulary: its tokenizer has no think markers and learns those pieces.
PLAIN_THINK = ["I'm thinking </think> the answer. <think> Look! </think> </think> </think>"]


def for_model(model_id: str) -> PreTrainedTokenizerFast:
    """The tokenizer standing in for ``model_id``'s."""
    return suite_tokenizer(plain_think="olmo" in model_id.lower())


@cache
def suite_tokenizer(plain_think: bool = False) -> PreTrainedTokenizerFast:
    """A ~1000-token byte-level BPE with :data:`MARKERS` as added tokens (one shared instance per kind)."""
    fast = train_bpe(CORPUS + (PLAIN_THINK if plain_think else []), 1000)
    fast.add_tokens([m for m in MARKERS if not (plain_think and m in ("<think>", "</think>"))])
    return fast
