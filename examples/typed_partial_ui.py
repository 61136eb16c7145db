"""A typed card for a call while it streams: ``parser.snapshot(i).partial()`` is an instance of the tool's
pydantic model holding the fields parsed so far (the others None), like instructor's ``Partial[T]``.

The draft e-mail fills in as the model writes it: strings grow as they stream, a boolean appears once it
is complete, a field is None until it has begun. A complete call gives the validated instance
(``ToolCall.parsed``).
"""

from __future__ import annotations

from pydantic import BaseModel

from streamparse import StreamParser, ToolCallDelta, ToolCallEnd


class send_email(BaseModel):  # noqa: N801 - the tool's name is the class name
    """Send an e-mail."""

    to: str
    subject: str
    body: str
    urgent: bool = False


MODEL_OUTPUT = [
    "Drafting it now.\n<tool_call>\n",
    '{"name": "send_email", "arguments": {"to": "ada@exa',
    'mple.com", "subject": "Lunch", "bo',
    'dy": "Hi Ada, are you free',
    ' on Friday?", "urgent": fal',
    "se}}\n</tool_call>",
]


def render(card: send_email) -> str:
    """One line of the UI's card: what is known so far, '…' for what is not."""
    return " | ".join(f"{field}={value!r}" if value is not None else f"{field}=…" for field, value in card)


parser = StreamParser(formats=["hermes"], tools=[send_email])
for chunk in MODEL_OUTPUT:
    for event in parser.feed(chunk):
        if isinstance(event, ToolCallDelta):
            print("card:", render(parser.snapshot(event.index).partial()))
        elif isinstance(event, ToolCallEnd):
            print("send:", repr(event.call.parsed))
parser.close()
