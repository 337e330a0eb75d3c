def guarded(path):
    with open(path) as fh, lock:
        data = fh.read()
    try:
        value = int(data)
    except ValueError as err:
        value = 0
    except (TypeError, KeyError):
        value = -1
    except:
        raise
    else:
        value += 1
    finally:
        cleanup()
    try:
        pass
    finally:
        pass
    return value
