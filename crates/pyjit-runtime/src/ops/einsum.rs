//! `torch.einsum(equation, tensors)`: explicit (`ij,jk->ik`) and implicit (`ij,jk`) output,
//! `...` for broadcast batch dims, repeated subscripts within an operand (diagonals, `ii` →
//! trace). Computed by lining every operand up on the union of the subscripts (size 1 where an
//! operand lacks one), one broadcasting product, and a sum over the subscripts not in the output.

use crate::error::{Result, RuntimeError};
use crate::ops::{BinaryOp, Input, arange, binary, sum};
use crate::tensor::Tensor;
use crate::value::{Scalar, TensorIndex};

/// A subscript: a letter, or the k-th dim of the ellipsis (counted from the right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Sub {
    Ellipsis(usize),
    Letter(char),
}

fn bad(msg: impl Into<String>) -> RuntimeError {
    RuntimeError::Value(format!("einsum(): {}", msg.into()))
}

/// The letters of one term and whether (and where) it has an ellipsis.
fn parse_term(term: &str) -> Result<(Vec<char>, Option<usize>)> {
    let mut letters = Vec::new();
    let mut ellipsis = None;
    let mut rest = term;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if ellipsis.is_some() {
                return Err(bad("found more than one ellipsis (\"...\") in an operand"));
            }
            ellipsis = Some(letters.len());
            rest = r;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if !c.is_ascii_alphabetic() {
            return Err(bad(format!(
                "invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]",
                term.len() - rest.len()
            )));
        }
        letters.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok((letters, ellipsis))
}

/// The subscripts of a term for an operand of `rank` dims (`ell` ellipsis dims in all).
fn expand_term(letters: &[char], ellipsis: Option<usize>, n_ell: usize) -> Vec<Sub> {
    let mut out: Vec<Sub> = Vec::new();
    for (i, &c) in letters.iter().enumerate() {
        if ellipsis == Some(i) {
            out.extend((0..n_ell).rev().map(Sub::Ellipsis));
        }
        out.push(Sub::Letter(c));
    }
    if ellipsis == Some(letters.len()) {
        out.extend((0..n_ell).rev().map(Sub::Ellipsis));
    }
    out
}

/// Takes the diagonal of two dims with the same subscript until every subscript is unique.
fn take_diagonals(mut t: Tensor, mut subs: Vec<Sub>) -> Result<(Tensor, Vec<Sub>)> {
    loop {
        let dup = (0..subs.len()).find_map(|p| {
            (p + 1..subs.len())
                .find(|&q| subs[q] == subs[p])
                .map(|q| (p, q))
        });
        let Some((p, q)) = dup else {
            return Ok((t, subs));
        };
        let (n, m) = (t.shape()[p], t.shape()[q]);
        if n != m {
            return Err(bad(format!(
                "subscript is repeated for operand but the sizes don't match, {n} != {m}"
            )));
        }
        let mut order = vec![p as i64, q as i64];
        order.extend((0..subs.len() as i64).filter(|&d| d != p as i64 && d != q as i64));
        let moved = t.permute(&order)?;
        let ar = arange(Scalar::Int(0), Scalar::Int(n as i64), Scalar::Int(1), None)?;
        t = crate::ops::index(
            &moved,
            &[TensorIndex::Tensor(ar.clone()), TensorIndex::Tensor(ar)],
        )?;
        let s = subs[p];
        let mut rest: Vec<Sub> = vec![s];
        rest.extend(
            subs.iter()
                .enumerate()
                .filter(|&(d, _)| d != p && d != q)
                .map(|(_, s)| *s),
        );
        subs = rest;
    }
}

pub fn einsum(equation: &str, tensors: &[Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != tensors.len() {
        let which = if terms.len() > tensors.len() {
            "fewer"
        } else {
            "more"
        };
        return Err(bad(format!(
            "{which} operands were provided than specified in the equation"
        )));
    }
    let parsed: Vec<(Vec<char>, Option<usize>)> =
        terms.iter().map(|t| parse_term(t)).collect::<Result<_>>()?;
    let mut n_ell = 0;
    let mut per_op = Vec::new();
    for ((letters, ell), t) in parsed.iter().zip(tensors) {
        let k = match ell {
            Some(_) if t.dim() >= letters.len() => t.dim() - letters.len(),
            None if t.dim() == letters.len() => 0,
            _ => {
                return Err(bad(format!(
                    "the number of subscripts in the equation ({}) does not match the number of dimensions ({}) for operand and no ellipsis was given",
                    letters.len(),
                    t.dim()
                )));
            }
        };
        n_ell = n_ell.max(k);
        per_op.push(expand_term(letters, *ell, k));
    }
    let out: Vec<Sub> = match rhs {
        Some(r) => {
            let (letters, ell) = parse_term(r)?;
            let subs = expand_term(&letters, ell, n_ell);
            for s in &subs {
                if let Sub::Letter(c) = s
                    && !per_op.iter().any(|o| o.contains(s))
                {
                    return Err(bad(format!(
                        "output subscript {c} does not appear in the equation for any input operand"
                    )));
                }
            }
            subs
        }
        None => {
            let mut once: Vec<char> = Vec::new();
            for c in parsed.iter().flat_map(|(l, _)| l.iter()) {
                let n = parsed
                    .iter()
                    .flat_map(|(l, _)| l.iter())
                    .filter(|x| *x == c)
                    .count();
                if n == 1 {
                    once.push(*c);
                }
            }
            once.sort();
            let mut subs: Vec<Sub> = (0..n_ell).rev().map(Sub::Ellipsis).collect();
            subs.extend(once.into_iter().map(Sub::Letter));
            subs
        }
    };
    // Every subscript: the output's first, then the summed ones.
    let mut all = out.clone();
    for o in &per_op {
        for s in o {
            if !all.contains(s) {
                all.push(*s);
            }
        }
    }
    let mut product: Option<Tensor> = None;
    for (t, subs) in tensors.iter().zip(per_op) {
        let (t, subs) = take_diagonals(t.clone(), subs)?;
        let order: Vec<i64> = all
            .iter()
            .filter_map(|s| subs.iter().position(|x| x == s).map(|p| p as i64))
            .collect();
        let moved = t.permute(&order)?;
        let shape: Vec<i64> = all
            .iter()
            .map(|s| match subs.iter().position(|x| x == s) {
                Some(p) => t.shape()[p] as i64,
                None => 1,
            })
            .collect();
        let aligned = moved.reshape(&shape)?;
        product = Some(match product {
            None => aligned,
            Some(p) => binary(BinaryOp::Mul, Input::T(&p), Input::T(&aligned))?,
        });
    }
    let Some(p) = product else {
        return Err(bad("must provide at least one operand"));
    };
    if all.len() == out.len() {
        return p.contiguous();
    }
    let summed: Vec<i64> = (out.len() as i64..all.len() as i64).collect();
    sum(&p, Some(&summed), false, None)
}
