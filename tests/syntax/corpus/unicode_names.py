def größe(länge: float) -> float:
    π = 3.14159
    return π * länge
