def describe(x) -> None:
    if isinstance(x, int):
        print("int", x)
    elif isinstance(x, (float, bool)):
        print("number", x, sep=", ", end="\n")
    else:
        print(f"other: {x!r}")
