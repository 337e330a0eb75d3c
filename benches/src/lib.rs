//! Shared helpers for the criterion benches.

/// A synthetic but realistic TorchScript-style module of about `lines` lines: functions with
/// annotated parameters, loops, branches, slicing, calls, tuples and comments, each function
/// with distinct names so nothing is trivially repeated.
pub fn python_source(lines: usize) -> String {
    let mut out = String::from(
        "import torch\nimport math\nfrom torch import Tensor\nfrom typing import List, Tuple, Optional\n\nEPS = 1e-6\n\n",
    );
    let mut i = 0;
    let mut count = out.lines().count();
    while count < lines {
        let chunk = format!(
            r#"
@torch.jit.script
def kernel_{i}(x: Tensor, w: Tensor, n: int, alpha: float = 0.5) -> Tuple[Tensor, int]:
    """Step {i}: a loop with slicing and a branch."""
    acc = torch.zeros_like(x)  # accumulator
    count = 0
    for k in range(n):
        y = x[:, k:k + 2, None] * w[k] + alpha ** 2
        if y.sum() > {i}.0 and not k % 3 == 0:
            acc += torch.tanh(y.mean(dim=-1, keepdim=True))
        elif k == {i} or count >= 10:
            count += 1
        else:
            acc = acc - -x.clamp(min=-1.0, max=1.0) / math.sqrt(n + EPS)
    while count < n:
        count = count * 2 + 1
    values, idx = torch.max(acc.view(-1, 1), 1)
    return acc @ w.t(), count + len([values, idx])
"#
        );
        count += chunk.lines().count();
        out.push_str(&chunk);
        i += 1;
    }
    out
}
