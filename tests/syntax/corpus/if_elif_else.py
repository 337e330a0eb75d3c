def sign(x: int) -> int:
    if x > 0:
        return 1
    elif x < 0:
        return -1
    elif x == 0:
        return 0
    else:
        return 2


if __name__ == "__main__":
    print(sign(3))
