"""What a declared format writes, in words and by example, for the catalog's documentation (the
``delimiters`` and ``example`` of its :class:`~.base.FormatSpec`), built from its :class:`Declaration`."""

from __future__ import annotations

from .declaration import Declaration, ElementArgs, JsonArgs, JsonName, PythonName, RecipientName

__all__ = ["describe_markup"]


def describe_markup(decl: Declaration) -> tuple[str, str]:
    """(delimiters, example) for the catalog's documentation: the declaration's own, or built from it."""
    call = decl.call
    name = call.name
    if isinstance(name, RecipientName):
        m = decl.messages
        assert m is not None
        head = f"{m.open}{m.recipient}{name.prefix}"
        delimiters = f"{head}NAME{m.body}ARGS{call.close or ''}"
        return delimiters, decl.example or f'{head}get_time{m.body}{{"zone": "UTC"}}{call.close or ""}'
    if isinstance(name, PythonName):
        delimiters = f"{call.open}[NAME(key=VALUE, ...), ...]{call.close}"
        return delimiters, decl.example or f"{call.open}[get_time(zone='UTC')]{call.close}"
    if isinstance(name, JsonName):
        obj = '{"NAME": ARGS}' if name.name_is_key else f'{{"{name.field}": NAME, "{name.arguments_field}": ARGS}}'
        body = f"[{obj}, ...]" if name.list else obj
        sample_obj = (
            '{"get_time": {"zone": "UTC"}}'
            if name.name_is_key
            else f'{{"{name.field}": "get_time", "{name.arguments_field}": {{"zone": "UTC"}}}}'
        )
        sample = f"[{sample_obj}]" if name.list else sample_obj
    else:
        if name.attribute is not None:
            head, shead = f' {name.attribute}="NAME"{name.end}', f' {name.attribute}="get_time"{name.end}'
        else:
            head, shead = f"{name.prefix}NAME{name.end}", f"{name.prefix}get_time{name.end}"
        if call.id is not None:
            if call.id.position == "before_name":
                head, shead = f"ID{call.id.end}{head}", f"0{call.id.end}{shead}"
            else:
                head, shead = f"{head}ID{call.id.end}", f"{shead}0{call.id.end}"
        args = call.arguments
        if isinstance(args, JsonArgs):
            body, sample = f"{head}{args.open}ARGS{args.close}", f'{shead}{args.open}{{"zone": "UTC"}}{args.close}'
        elif isinstance(args, ElementArgs):
            n = args.noise
            body, sample = f"{head}{n}<K>V{n}</K>...", f"{shead}{n}<zone>UTC{n}</zone>"
        else:
            vo = args.value_open
            if args.key_attribute is not None:
                extra = f' {args.type_attribute}="string"' if args.type_attribute else ""
                if args.string_attribute:
                    extra = f' {args.string_attribute}="true"'
                k, sk = f' {args.key_attribute}="K"{args.key_end}', f' {args.key_attribute}="zone"{extra}{args.key_end}'
            else:
                k, sk = f"K{args.key_end}", f"zone{args.key_end}"
            close_k = args.close if args.close is not None else "</K>"
            sclose = args.close if args.close is not None else "</zone>"
            body = f"{head}{args.open}{k}{vo}V{close_k}..."
            sample = f"{shead}{args.open}{sk}{vo}UTC{sclose}"
    tail = call.close or ""
    delimiters = f"{call.open}{body}{tail}"
    example = f"{call.open}{sample}{tail}"
    if decl.section is not None:
        sclose = decl.section.close or ""
        delimiters = f"{decl.section.open}{delimiters}...{sclose}"
        example = f"{decl.section.open}{example}{sclose}"
    return delimiters, decl.example or example
