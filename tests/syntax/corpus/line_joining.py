def joined(a: int, b: int,
           c: int) -> int:
    total = (a +
             b +
             c)
    items = [
        1,
        2,
        3,
    ]
    mapping = {
        "a": 1,
        "b": 2,
    }
    value = a + \
        b + \
        c
    return total + value + len(items)
