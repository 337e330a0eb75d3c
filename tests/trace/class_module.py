import torch


class Linear:
    scale = 1.0

    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x @ self.w * self.scale + self.b


class MLP:
    def __init__(self, w1, w2, act="relu"):
        self.layers = [Linear(w1, torch.zeros(w1.size(1))), Linear(w2, torch.ones(w2.size(1)))]
        self.act = act

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x) if self.act == "relu" else torch.tanh(x)
        return x


def f(x, w1, w2):
    # an nn.Module-style model built and run inside the traced function
    m = MLP(w1, w2)
    y = m.forward(x)
    if y.sum() > 0:
        y = m.forward(y @ w2.t() @ w1.t())
    return y, sum(layer.calls for layer in m.layers), isinstance(m, MLP)


def args0():
    return (torch.tensor([[1.0, 2.0]]), torch.tensor([[1.0, -1.0, 0.5], [0.5, 1.0, -2.0]]), torch.tensor([[1.0], [2.0], [-1.0]]))


def args1():
    return (torch.tensor([[-1.0, 2.0]]), torch.tensor([[1.0, -1.0, 0.5], [0.5, 1.0, -2.0]]), torch.tensor([[1.0], [-2.0], [-1.0]]))
