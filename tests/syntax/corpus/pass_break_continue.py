def loops(n: int) -> int:
    total = 0
    for i in range(n):
        if i % 2:
            continue
        if i > 50:
            break
        total += i
    else:
        pass
    while True:
        break
    else:
        total = -1
    return total
