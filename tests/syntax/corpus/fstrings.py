def show(x: int, name: str, v: float) -> str:
    a = f"value {x}"
    b = f"{x!r} and {name!s:>10}"
    c = f"{v:.3f} {v:{x}.{x}}"
    d = f"{{literal}} {x + 1} {x * 2:d}"
    e = f"{x=}"
    g = f'{name}' "plain" f"{x}"
    h = F"upper {x}"
    i = rf"raw {x} \d"
    j = f"""triple {x}
{name}"""
    k = f"{[1, 2][0]} {(lambda: 1)()} {x if x else 0}"
    m = f"{'nested'} {name['key']}"
    return a
