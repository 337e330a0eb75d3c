# leading comment


def f(x):  # trailing comment on header

    # comment-only line inside body
    y = x + 1  # trailing


        # oddly indented comment is ignored
    return y
# comment at the end
