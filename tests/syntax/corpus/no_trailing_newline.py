def no_newline(x):
    return x