import numpy as np


def var0(a: np.ndarray) -> np.ndarray:
    return np.var(a)


def var1(a: np.ndarray) -> np.ndarray:
    return np.var(a, ddof=1)


def std_axis(a: np.ndarray) -> np.ndarray:
    return np.std(a, axis=0)


def std_method(a: np.ndarray) -> np.ndarray:
    return a.std()


def var_method_ddof(a: np.ndarray) -> np.ndarray:
    return a.var(ddof=1, axis=1)


def arange_float(a: np.ndarray) -> np.ndarray:
    return np.arange(0.0, 1.0, 0.25)


def arange_mixed(a: np.ndarray) -> np.ndarray:
    return np.arange(0, 2.5, 0.5)


def arange_int(a: np.ndarray) -> np.ndarray:
    return np.arange(5)


def full_bool(a: np.ndarray) -> np.ndarray:
    return np.full((2, 3), True)


def full_int(a: np.ndarray) -> np.ndarray:
    return np.full((2,), 3)


def full_float(a: np.ndarray) -> np.ndarray:
    return np.full((2,), 1.5)


def zeros(a: np.ndarray) -> np.ndarray:
    return np.zeros((2, 2))


def linspace(a: np.ndarray) -> np.ndarray:
    return np.linspace(0.0, 1.0, 5)


def eye(a: np.ndarray) -> np.ndarray:
    return np.eye(3)


def array_float(a: np.ndarray) -> np.ndarray:
    return np.array([1.0, 2.5])


def array_int(a: np.ndarray) -> np.ndarray:
    return np.array([1, 2])
