"""Add a format without forking: declare its markers and body kind, register it, parse with it.

Also shows the running snapshot of a call (the arguments parsed so far, for a UI card) and the pydantic
instance of a call to a tool given as a pydantic model.
"""

from __future__ import annotations

from pydantic import BaseModel

from streamparse import StreamParser, ToolCallEnd, ToolCallRejected, ToolCallStart, formats, parse


class get_weather(BaseModel):  # noqa: N801 - the class name is the tool name the model writes
    """Current weather for a city."""

    city: str
    days: int = 1


# A house format: <<call>>{"name": ..., "arguments": {...}}<</call>>
ACME = formats.declare("acme", open="<<call>>", close="<</call>>", body="json_object", models="ACME-7B")


def main() -> None:
    if "acme" not in formats.names():
        formats.register(ACME)  # formats=["acme"] only; pass auto=True to add it to formats="auto"
    parser = StreamParser(formats=["acme"], tools=[get_weather])
    chunks = ['Checking.<<call>>{"name": "get_weather", "arguments": {"city": "Ly', 'on", "days": "3"}}<</call>>']
    for chunk in chunks:
        for event in parser.feed(chunk):
            if isinstance(event, ToolCallStart):
                print("card:", event.name)
            elif isinstance(event, ToolCallEnd):
                print("call:", event.call.name, event.call.arguments, event.call.repairs)
                print("parsed:", repr(event.call.parsed))
            elif isinstance(event, ToolCallRejected):
                print("rejected:", event.reason, "started" if event.started else "no card")
        for snap in parser.calls:
            print("snapshot:", snap.name, snap.arguments, snap.status)
    parser.close()
    # The same format in one-shot parse; an undeclared tool never gets a card (no ToolCallStart).
    result = parse('<<call>>{"name": "rm_rf", "arguments": {}}<</call>>', formats=["acme"], tools=[get_weather])
    print("rejected:", [(r.reason, r.started) for r in result.rejected])


if __name__ == "__main__":
    main()
