def w(xs):
    if (n := len(xs)) > 10:
        return n
    while (chunk := xs.pop()) is not None:
        print(chunk)
    return [y := 5, y ** 2]
