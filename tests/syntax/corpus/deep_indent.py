def deep(a, b, c, d):
    if a:
        for i in range(b):
            while c:
                if d:
                    with ctx():
                        try:
                            if i:
                                return i
                        except E:
                            pass
    return 0
