counter = 0


def bump():
    global counter
    counter += 1


def outer():
    x = 1

    def inner():
        nonlocal x
        x += 1
    inner()
    del x
    lst = [1, 2, 3]
    del lst[0], lst[1:]
    return lst
