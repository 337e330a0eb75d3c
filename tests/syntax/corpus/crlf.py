def crlf(x: int) -> int:
    if x:
        return 1
    return 0
