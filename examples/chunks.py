def chunk_size(total: int, parts: int) -> int:
    return total // parts


def chunks(total: int, parts: int) -> int:
    """How many chunks of `chunk_size` cover `total`: an error two calls deep."""
    size = chunk_size(total, parts)
    return (total + size - 1) // size
