//! Use lists: for every value, the `(op, operand index)` pairs of the attached ops reading it.
//!
//! # Validity contract
//!
//! A [`Uses`] is a snapshot that the pass owning it keeps exact. Every field of
//! [`Function`] is public and passes write `ops[op].operands`, `parent` and region op lists
//! directly in many places, so the function cannot maintain an index behind their back. Instead:
//!
//! - [`Uses::build`] makes the index of a function in one walk (O(ops + operands)).
//! - It stays exact for as long as every change to an attached op's operands, and every
//!   attachment or detachment of an op that has (or contains ops that have) operands, goes
//!   through the methods of the index: [`Uses::replace_uses`], [`Uses::set_operand`],
//!   [`Uses::remove_op`], [`Uses::insert_op_before`], or the raw pair [`Uses::detach`] /
//!   [`Uses::attach`] around a mutation the index does not wrap.
//! - Anything else that changes operands or attachment (a plain [`Function::replace_uses`],
//!   `f.op_mut(op).operands = ...`, [`Function::remove_op`], another pass) makes it stale: build
//!   a new one. Passes build one per round (or per run) and drop it at the end; it is never
//!   stored in the [`Function`], never crosses passes, and the printer, parser and verifier
//!   never see it.
//! - Moving attached ops within the function (from one region to another, as splicing a taken
//!   branch does) changes no use and needs no update. Creating a detached op needs none either:
//!   only attached ops are indexed, and attaching it is what [`Uses::attach`] records.
//!
//! [`Uses::check`] compares an index with a fresh build (tests and debug assertions use it).
//!
//! Costs: [`Uses::build`] is one walk; [`Uses::users`] is O(1); [`Uses::replace_uses`] is
//! O(uses of `from`); [`Uses::set_operand`] is O(1); attaching or detaching an op is O(operands)
//! of it and of its nested ops (each use remembers its slot in its value's list, so dropping it
//! is a swap-remove, whatever the number of other uses of the value).

use crate::entities::{Op, Value};
use crate::function::Function;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

/// A value's uses: most values have one or two, kept inline (a build allocates only for the
/// values and ops above the inline sizes, not once per value and op).
type UseList = SmallVec<[(Op, u32); 2]>;
/// An op's slots: most ops have at most three operands.
type SlotList = SmallVec<[u32; 3]>;

/// The uses of every value by attached ops (see the module documentation for when it is valid).
#[derive(Clone, Debug, Default)]
pub struct Uses {
    users: SecondaryMap<Value, UseList>,
    /// For each indexed op, parallel to its operands: where the use is in its value's list.
    slots: SecondaryMap<Op, SlotList>,
}

impl Uses {
    /// The index of `f`, in one walk of its attached ops.
    pub fn build(f: &Function) -> Uses {
        let mut uses = Uses {
            users: SecondaryMap::with_capacity(f.values.len()),
            slots: SecondaryMap::with_capacity(f.ops.len()),
        };
        f.walk(&mut |op| uses.add_op(f, op));
        uses
    }

    /// The `(op, operand index)` pairs reading `v` (an op reading `v` twice appears twice), in
    /// no particular order.
    pub fn users(&self, v: Value) -> &[(Op, u32)] {
        self.users.get(v).map_or(&[], |u| u.as_slice())
    }

    /// How many operands of attached ops are `v` ([`Function::use_counts`] of `v`).
    pub fn count(&self, v: Value) -> usize {
        self.users(v).len()
    }

    /// Whether no attached op reads `v`.
    pub fn is_unused(&self, v: Value) -> bool {
        self.users(v).is_empty()
    }

    fn add_op(&mut self, f: &Function, op: Op) {
        let operands = &f.ops[op].operands;
        let mut slots = SlotList::with_capacity(operands.len());
        for (i, &v) in operands.iter().enumerate() {
            slots.push(self.users[v].len() as u32);
            self.users[v].push((op, i as u32));
        }
        self.slots[op] = slots;
    }

    /// Drops use `(op, i)` of `v` from `v`'s list (a swap-remove).
    fn drop_use(&mut self, v: Value, op: Op, i: usize) {
        let k = self.slots[op][i] as usize;
        let list = &mut self.users[v];
        debug_assert_eq!(list[k], (op, i as u32));
        list.swap_remove(k);
        if let Some(&(o, j)) = list.get(k) {
            self.slots[o][j as usize] = k as u32;
        }
    }

    fn drop_op(&mut self, f: &Function, op: Op) {
        for (i, &v) in f.ops[op].operands.iter().enumerate() {
            self.drop_use(v, op, i);
        }
        self.slots[op] = SlotList::new();
    }

    /// Records the uses of `op` and of the ops nested in its regions, once `op` has been
    /// attached by a mutation the index does not wrap.
    pub fn attach(&mut self, f: &Function, op: Op) {
        self.add_op(f, op);
        for &r in &f.ops[op].regions {
            f.walk_region(r, &mut |o| self.add_op(f, o));
        }
    }

    /// Forgets the uses of `op` and of the ops nested in its regions, before `op` is detached
    /// (or its operands rewritten) by a mutation the index does not wrap.
    pub fn detach(&mut self, f: &Function, op: Op) {
        self.drop_op(f, op);
        for &r in &f.ops[op].regions {
            f.walk_region(r, &mut |o| self.drop_op(f, o));
        }
    }

    /// [`Function::replace_uses`] in O(uses of `from`), keeping the index exact.
    pub fn replace_uses(&mut self, f: &mut Function, from: Value, to: Value) {
        if from == to {
            return;
        }
        let moved = std::mem::take(&mut self.users[from]);
        let list = &mut self.users[to];
        for (op, i) in moved {
            f.ops[op].operands[i as usize] = to;
            self.slots[op][i as usize] = list.len() as u32;
            list.push((op, i));
        }
    }

    /// Sets operand `i` of the attached op `op` to `v`.
    pub fn set_operand(&mut self, f: &mut Function, op: Op, i: usize, v: Value) {
        let old = std::mem::replace(&mut f.ops[op].operands[i], v);
        if old == v {
            return;
        }
        self.drop_use(old, op, i);
        self.slots[op][i] = self.users[v].len() as u32;
        self.users[v].push((op, i as u32));
    }

    /// Removes operand `i` of the attached op `op` (the later operands shift down), in
    /// O(operands of `op`).
    pub fn remove_operand(&mut self, f: &mut Function, op: Op, i: usize) -> Value {
        self.drop_op(f, op);
        let v = f.ops[op].operands.remove(i);
        self.add_op(f, op);
        v
    }

    /// [`Function::remove_op`], forgetting the uses of `op` and of its nested ops.
    pub fn remove_op(&mut self, f: &mut Function, op: Op) {
        if f.ops[op].parent.is_some() {
            self.detach(f, op);
        }
        f.remove_op(op);
    }

    /// [`Function::insert_op_before`], recording the uses of the inserted op (and its nested
    /// ops).
    pub fn insert_op_before(&mut self, f: &mut Function, before: Op, op: Op) {
        f.insert_op_before(before, op);
        self.attach(f, op);
    }

    /// `Ok` when the index equals a fresh [`Uses::build`] of `f` (and its slots are right);
    /// otherwise the first value whose uses differ.
    pub fn check(&self, f: &Function) -> Result<(), String> {
        for (v, list) in self.users.iter() {
            for (k, &(op, i)) in list.iter().enumerate() {
                if self.slots[op].get(i as usize) != Some(&(k as u32)) {
                    return Err(format!("use {k} of {v:?} ({op:?}, {i}) has a wrong slot"));
                }
            }
        }
        let fresh = Uses::build(f);
        for v in f.values.keys() {
            let mut a = self.users(v).to_vec();
            let mut b = fresh.users(v).to_vec();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                return Err(format!(
                    "stale use list of {v:?}: index has {a:?}, the function has {b:?}"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Const, OpKind, Type, parse_module};
    use pyjit_syntax::Span;

    const SRC: &str = "\
func @f(%x: int, %c: bool) -> int {
  %0: int = const 1
  %1: int = int.add(%x, %0)
  %2: int = int.mul(%1, %1)
  %3: int = if %c {
    %4: int = int.sub(%2, %x)
    yield %4
  } else {
    yield %1
  }
  return %3
}
";

    fn func() -> Function {
        let m = parse_module(SRC).expect("parses");
        m.funcs.values().next().unwrap().clone()
    }

    /// A detached `int.add(a, b)` op at `span`.
    fn int_add(f: &mut Function, a: Value, b: Value, span: Span) -> Op {
        f.create_op(
            OpKind::IntBin(crate::IntBinOp::Add),
            &[a, b],
            &[Type::Int],
            &[],
            span,
        )
    }

    fn value_named(f: &Function, kind: &OpKind) -> Value {
        let op = f
            .all_ops()
            .into_iter()
            .find(|&o| f.ops[o].kind == *kind)
            .unwrap();
        f.result(op)
    }

    #[test]
    fn build_matches_use_counts() {
        let f = func();
        let uses = Uses::build(&f);
        uses.check(&f).unwrap();
        let counts = f.use_counts();
        for v in f.values.keys() {
            assert_eq!(uses.count(v), counts[v] as usize);
        }
        let a = value_named(&f, &OpKind::IntBin(crate::IntBinOp::Add));
        // `int.mul %a, %a` (twice) and the else branch's yield.
        assert_eq!(uses.count(a), 3);
        let b = value_named(&f, &OpKind::IntBin(crate::IntBinOp::Mul));
        let [(u, 0)] = uses.users(b) else {
            panic!("{:?}", uses.users(b))
        };
        assert_eq!(f.ops[*u].kind, OpKind::IntBin(crate::IntBinOp::Sub));
    }

    #[test]
    fn every_mutation_keeps_it_exact() {
        let mut f = func();
        let mut uses = Uses::build(&f);
        let x = f.params()[0];
        let a = value_named(&f, &OpKind::IntBin(crate::IntBinOp::Add));
        let b = value_named(&f, &OpKind::IntBin(crate::IntBinOp::Mul));
        let b_op = f.defining_op(b).unwrap();

        // replace_uses: O(uses of `a`), and `a` is unused afterwards.
        uses.replace_uses(&mut f, a, x);
        uses.check(&f).unwrap();
        assert!(uses.is_unused(a));
        assert_eq!(f.use_counts()[a], 0);
        uses.replace_uses(&mut f, x, x);
        uses.check(&f).unwrap();

        // set_operand
        uses.set_operand(&mut f, b_op, 1, a);
        uses.check(&f).unwrap();
        assert_eq!(uses.count(a), 1);
        uses.set_operand(&mut f, b_op, 1, a);
        uses.check(&f).unwrap();

        // create + insert_op_before
        let span = f.ops[b_op].span;
        let k = f.create_op(OpKind::Const(Const::Int(2)), &[], &[Type::Int], &[], span);
        uses.insert_op_before(&mut f, b_op, k);
        let kv = f.result(k);
        let neg = int_add(&mut f, kv, b, span);
        uses.check(&f).unwrap(); // a detached op is not indexed
        uses.insert_op_before(&mut f, b_op, neg);
        uses.check(&f).unwrap();
        assert_eq!(uses.count(kv), 1);

        // remove an op with regions: its nested ops' uses go too
        let if_op = f
            .all_ops()
            .into_iter()
            .find(|&o| f.ops[o].kind == OpKind::If)
            .unwrap();
        let r = f.result(if_op);
        let zero = f.create_op(OpKind::Const(Const::Int(0)), &[], &[Type::Int], &[], span);
        uses.insert_op_before(&mut f, if_op, zero);
        let zv = f.result(zero);
        uses.replace_uses(&mut f, r, zv);
        uses.remove_op(&mut f, if_op);
        uses.check(&f).unwrap();
        uses.remove_op(&mut f, if_op); // already detached: nothing changes
        uses.check(&f).unwrap();

        // remove_operand shifts the later operands
        let removed = uses.remove_operand(&mut f, neg, 0);
        assert_eq!(removed, kv);
        uses.check(&f).unwrap();
        assert_eq!(uses.count(kv), 0);
        f.ops[neg].operands.insert(0, kv);
        // (the index saw `neg` without the inserted operand: re-index it from scratch)
        let mut uses = Uses::build(&f);
        uses.check(&f).unwrap();

        // raw detach/attach around a direct write
        uses.detach(&f, neg);
        f.ops[neg].operands = vec![x, x];
        uses.attach(&f, neg);
        uses.check(&f).unwrap();

        // a direct write without the index is caught by `check`
        f.ops[neg].operands[0] = kv;
        assert!(uses.check(&f).is_err());
    }

    #[test]
    fn removing_users_of_a_much_used_value_keeps_slots_right() {
        let mut f = func();
        let mut uses = Uses::build(&f);
        let x = f.params()[0];
        let ret = f.terminator(f.body).unwrap();
        let span = f.ops[ret].span;
        let mut added = Vec::new();
        for _ in 0..20 {
            let op = int_add(&mut f, x, x, span);
            uses.insert_op_before(&mut f, ret, op);
            added.push(op);
        }
        uses.check(&f).unwrap();
        for (k, &op) in added.iter().enumerate() {
            if k % 3 != 1 {
                uses.remove_op(&mut f, op);
                uses.check(&f).unwrap();
            }
        }
        let y = f.result(added[1]);
        uses.set_operand(&mut f, added[4], 1, y);
        uses.check(&f).unwrap();
        uses.replace_uses(&mut f, x, y);
        uses.check(&f).unwrap();
        assert_eq!(uses.count(x), 0);
    }
}
