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

/// Generated programs of a given number of lines for the scale benchmark (`benches/scale.rs`),
/// each with an entry `main(x: int) -> int`.
pub mod scale {
    /// One `if`/`elif` chain of `lines / 2` branches (the shape that overflowed the stack).
    pub fn elif_chain(lines: usize) -> String {
        let n = (lines / 2).max(2);
        let mut s =
            String::from("def main(x: int) -> int:\n    y = 0\n    if x == 0:\n        y = 1\n");
        for i in 1..n {
            s.push_str(&format!(
                "    elif x == {i}:\n        y = x * {} + {i}\n",
                i % 7
            ));
        }
        s.push_str("    else:\n        y = -1\n    return y\n");
        s
    }

    /// `lines / 4` small functions, each calling the previous one (chains of 50 calls), and a
    /// `main` that calls the last function of every chain.
    pub fn many_functions(lines: usize) -> String {
        let n = (lines / 4).max(50);
        let mut s = String::new();
        for i in 0..n {
            let body = if i % 50 == 0 {
                format!("x * {} + 1", i % 13)
            } else {
                format!("f{}(x) + {}", i - 1, i % 5)
            };
            s.push_str(&format!(
                "def f{i}(x: int) -> int:\n    y = {body}\n    return y\n\n"
            ));
        }
        s.push_str("def main(x: int) -> int:\n    acc = 0\n");
        for i in (49..n).step_by(50) {
            s.push_str(&format!("    acc = acc + f{i}(x)\n"));
        }
        s.push_str("    return acc\n");
        s
    }

    /// One function of `lines` straight-line statements (ints), each using two earlier values.
    pub fn straight_line(lines: usize) -> String {
        let mut s = String::from("def main(x: int) -> int:\n    a0 = x\n    a1 = x + 1\n");
        for k in 2..lines {
            s.push_str(&format!(
                "    a{k} = a{} * {} + a{} - {}\n",
                k - 1,
                k % 3,
                k / 2,
                k % 11
            ));
        }
        s.push_str(&format!("    return a{}\n", lines - 1));
        s
    }

    /// Blocks of 40 nested `if`/`for` levels (the indentation limit is 100), repeated to reach
    /// `lines` lines, all in one function.
    pub fn deep_nesting(lines: usize) -> String {
        const DEPTH: usize = 40;
        let mut s = String::from("def main(x: int) -> int:\n    acc = 0\n");
        let mut count = 2;
        let mut block = 0;
        while count < lines {
            for d in 0..DEPTH {
                let ind = "    ".repeat(d + 1);
                if d % 2 == 0 {
                    s.push_str(&format!("{ind}if x > {}:\n", ((block + d) % 5) as i64 - 2));
                } else {
                    s.push_str(&format!("{ind}for i{d} in range(1):\n"));
                }
            }
            let ind = "    ".repeat(DEPTH + 1);
            s.push_str(&format!("{ind}acc = acc + {}\n", block % 9));
            count += DEPTH + 1;
            block += 1;
        }
        s.push_str("    return acc\n");
        s
    }

    /// The traced loop: `n` iterations of a tensor update (the tracer unrolls it into `n` ops
    /// or so).
    pub const TRACE_LOOP: &str = "import torch
from torch import Tensor


def main(x: Tensor, n: int) -> Tensor:
    for i in range(n):
        x = x + 1.0
    return x
";
}
