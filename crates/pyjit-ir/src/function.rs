//! Modules, functions and the arenas that hold a function's values, ops and regions.

use crate::entities::{FuncId, Op, Region, Value};
use crate::ops::OpKind;
use crate::types::Type;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use pyjit_syntax::{SourceFile, Span};
use std::collections::HashMap;
use std::sync::Arc;

/// Where a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// The `index`-th result of an op.
    Result(Op, u32),
    /// The `index`-th parameter of a region (function parameters are the body's parameters).
    Param(Region, u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpData {
    pub kind: OpKind,
    pub operands: Vec<Value>,
    pub results: Vec<Value>,
    pub regions: Vec<Region>,
    pub span: Span,
    /// The region whose op list contains this op; `None` while detached.
    pub parent: Option<Region>,
    /// When the op was inlined from another function: its entry in
    /// [`Function::inline_sites`] (the innermost call it was inlined through).
    pub inlined_at: Option<u32>,
}

/// One call that was inlined: errors raised by ops inlined through it keep the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct InlineSite {
    /// The function that was called (and whose ops now sit in the caller).
    pub callee: String,
    /// The span of the call.
    pub call_span: Span,
    /// The inlined call the call itself came from, if it was inlined too.
    pub parent: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct RegionData {
    pub params: Vec<Value>,
    pub ops: Vec<Op>,
    /// The op owning this region; `None` for a function body and for detached regions.
    pub parent: Option<Op>,
}

/// One function: a body region whose parameters are the function's parameters.
///
/// Ops and regions are never freed: a pass removes an op by detaching it from its region
/// ([`Function::remove_op`]); detached entities are invisible to walks, the printer and the
/// verifier, and disappear on [`Function::compacted`] or a print/parse round trip.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Parameter names, parallel to the body region's parameters.
    pub param_names: Vec<String>,
    pub ret: Type,
    pub span: Span,
    pub body: Region,
    pub values: PrimaryMap<Value, ValueData>,
    pub ops: PrimaryMap<Op, OpData>,
    pub regions: PrimaryMap<Region, RegionData>,
    /// Regions whose op lists still hold ops detached by [`Function::detach_op`].
    stale_regions: Vec<Region>,
    /// How many times an op was detached ([`Function::detach_epoch`]).
    detaches: u64,
    /// The calls inlined into this function (see [`OpData::inlined_at`]). Not part of the text
    /// format: a print/parse round trip forgets where ops were inlined from.
    pub inline_sites: Vec<InlineSite>,
}

/// A set of functions that may call each other (by [`FuncId`]), and the source file their spans
/// point into (if any).
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub funcs: PrimaryMap<FuncId, Function>,
    /// The source every span of the module points into. Printing writes `# file:line:col` only
    /// when it is present. IR parsed from text gets a synthetic file (see [`crate::parse_module`]).
    pub source: Option<Arc<SourceFile>>,
}

impl Module {
    pub fn new() -> Module {
        Module::default()
    }

    pub fn with_source(source: Arc<SourceFile>) -> Module {
        Module {
            funcs: PrimaryMap::new(),
            source: Some(source),
        }
    }

    /// Adds a function with an empty body (parameters only) and returns its id. Declaring every
    /// function before building any body lets calls (and recursion) refer to callees by id.
    pub fn declare_function(
        &mut self,
        name: impl Into<String>,
        params: &[(&str, Type)],
        ret: Type,
        span: Span,
    ) -> FuncId {
        self.funcs.push(Function::new(name, params, ret, span))
    }

    pub fn push_function(&mut self, f: Function) -> FuncId {
        self.funcs.push(f)
    }

    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id]
    }

    pub fn func_mut(&mut self, id: FuncId) -> &mut Function {
        &mut self.funcs[id]
    }

    /// The functions `roots` reach through calls, the roots included (one flag per function,
    /// indexed by [`FuncId::index`]), and how many attached ops those functions hold. Each
    /// reached function is walked once. `Err` names a root or callee that is not a function of
    /// the module.
    pub fn reachable_from(&self, roots: &[FuncId]) -> Result<(Vec<bool>, usize), FuncId> {
        let mut seen = vec![false; self.funcs.len()];
        let mut stack = Vec::new();
        for &id in roots {
            match seen.get_mut(id.index()) {
                Some(s) if !*s => {
                    *s = true;
                    stack.push(id);
                }
                Some(_) => {}
                None => return Err(id),
            }
        }
        let mut ops = 0;
        let mut bad = None;
        while let Some(id) = stack.pop() {
            let f = &self.funcs[id];
            f.walk(&mut |op| {
                ops += 1;
                if let OpKind::Call(callee) = f.ops[op].kind {
                    match seen.get_mut(callee.index()) {
                        Some(s) if !*s => {
                            *s = true;
                            stack.push(callee);
                        }
                        Some(_) => {}
                        None => bad = Some(callee),
                    }
                }
            });
            if let Some(callee) = bad {
                return Err(callee);
            }
        }
        Ok((seen, ops))
    }

    /// Adds a compacted copy of function `id` under a new name (for specialization per
    /// signature; calls inside keep pointing at the same callees).
    pub fn clone_function(&mut self, id: FuncId, new_name: impl Into<String>) -> FuncId {
        let mut f = self.funcs[id].compacted();
        f.name = new_name.into();
        self.funcs.push(f)
    }
}

impl Function {
    /// A function with the given parameters and an empty body.
    pub fn new(
        name: impl Into<String>,
        params: &[(&str, Type)],
        ret: Type,
        span: Span,
    ) -> Function {
        let mut f = Function {
            name: name.into(),
            param_names: params.iter().map(|(n, _)| n.to_string()).collect(),
            ret,
            span,
            body: Region::new(0),
            values: PrimaryMap::new(),
            ops: PrimaryMap::new(),
            regions: PrimaryMap::new(),
            stale_regions: Vec::new(),
            detaches: 0,
            inline_sites: Vec::new(),
        };
        let types: Vec<Type> = params.iter().map(|(_, t)| t.clone()).collect();
        f.body = f.new_region(&types);
        f
    }

    /// The function's parameters (the body region's parameters).
    pub fn params(&self) -> &[Value] {
        &self.regions[self.body].params
    }

    pub fn param_types(&self) -> Vec<Type> {
        self.params()
            .iter()
            .map(|&v| self.values[v].ty.clone())
            .collect()
    }

    // ---- values ----

    pub fn value_type(&self, v: Value) -> &Type {
        &self.values[v].ty
    }

    /// Sets a value's type: the specializer's refinement API. The caller keeps the IR
    /// consistent (the verifier checks it); see [`Function::refine_type`] for a checked version.
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }

    /// Refines a value's type with more facts. Fails (leaving the type alone) when the new type
    /// contradicts the old one; for tensors, the facts of both are combined.
    pub fn refine_type(&mut self, v: Value, ty: Type) -> Result<(), String> {
        let old = &self.values[v].ty;
        let new = match (old, &ty) {
            (Type::Tensor(a), Type::Tensor(b)) => match a.meet(b) {
                Some(m) => Type::Tensor(m),
                None => return Err(format!("cannot refine {old} to {ty}")),
            },
            _ if ty.is_assignable_to(old) && old.is_assignable_to(&ty) => ty,
            _ => return Err(format!("cannot refine {old} to {ty}")),
        };
        self.values[v].ty = new;
        Ok(())
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    /// The op defining `v`, if it is an op result.
    pub fn defining_op(&self, v: Value) -> Option<Op> {
        match self.values[v].def {
            ValueDef::Result(op, _) => Some(op),
            ValueDef::Param(..) => None,
        }
    }

    // ---- regions ----

    /// Creates a detached region with parameters of the given types.
    pub fn new_region(&mut self, param_types: &[Type]) -> Region {
        let r = self.regions.push(RegionData::default());
        for t in param_types {
            self.add_region_param(r, t.clone());
        }
        r
    }

    /// Adds a parameter to a region (e.g. a loop-carried variable discovered late).
    pub fn add_region_param(&mut self, r: Region, ty: Type) -> Value {
        let i = self.regions[r].params.len() as u32;
        let v = self.new_value(ty, ValueDef::Param(r, i));
        self.regions[r].params.push(v);
        v
    }

    pub fn region_params(&self, r: Region) -> &[Value] {
        &self.regions[r].params
    }

    pub fn region_ops(&self, r: Region) -> &[Op] {
        &self.regions[r].ops
    }

    /// The last op of a region if it is a terminator.
    pub fn terminator(&self, r: Region) -> Option<Op> {
        let &last = self.regions[r].ops.last()?;
        self.ops[last].kind.is_terminator().then_some(last)
    }

    // ---- ops ----

    /// Creates a detached op with fresh result values of the given types. Regions are attached
    /// to the op (their parent set).
    pub fn create_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        regions: &[Region],
        span: Span,
    ) -> Op {
        let op = self.ops.push(OpData {
            kind,
            operands: operands.to_vec(),
            results: Vec::new(),
            regions: regions.to_vec(),
            span,
            parent: None,
            inlined_at: None,
        });
        for t in result_types {
            self.add_result(op, t.clone());
        }
        for &r in regions {
            self.regions[r].parent = Some(op);
        }
        op
    }

    /// Adds a result to an op (e.g. an `if` that must yield one more variable).
    pub fn add_result(&mut self, op: Op, ty: Type) -> Value {
        let i = self.ops[op].results.len() as u32;
        let v = self.new_value(ty, ValueDef::Result(op, i));
        self.ops[op].results.push(v);
        v
    }

    /// A fresh value of type `ty` defined by `def` (which the caller makes true).
    fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        self.values.push(ValueData { ty, def })
    }

    pub fn op(&self, op: Op) -> &OpData {
        &self.ops[op]
    }

    pub fn op_mut(&mut self, op: Op) -> &mut OpData {
        &mut self.ops[op]
    }

    pub fn results(&self, op: Op) -> &[Value] {
        &self.ops[op].results
    }

    pub fn result(&self, op: Op) -> Value {
        self.ops[op].results[0]
    }

    /// Appends a detached op at the end of a region.
    pub fn append_op(&mut self, r: Region, op: Op) {
        self.ops[op].parent = Some(r);
        self.regions[r].ops.push(op);
    }

    /// Inserts a detached op at `index` in a region's op list.
    pub fn insert_op(&mut self, r: Region, index: usize, op: Op) {
        self.ops[op].parent = Some(r);
        let ops = &mut self.regions[r].ops;
        let index = index.min(ops.len());
        ops.insert(index, op);
    }

    /// Inserts a detached op just before `before` (which must be attached).
    pub fn insert_op_before(&mut self, before: Op, op: Op) {
        let r = self.ops[before]
            .parent
            .expect("insert_op_before: anchor is detached");
        let i = self.position(before).unwrap_or(0);
        self.insert_op(r, i, op);
    }

    /// The index of an attached op in its region.
    pub fn position(&self, op: Op) -> Option<usize> {
        let r = self.ops[op].parent?;
        self.regions[r].ops.iter().position(|&o| o == op)
    }

    /// Detaches an op (and so everything in its regions) from its region. Its results must no
    /// longer be used; the verifier reports uses of values whose definition is gone.
    pub fn remove_op(&mut self, op: Op) {
        self.detaches += 1;
        if let Some(r) = self.ops[op].parent.take() {
            self.regions[r].ops.retain(|&o| o != op);
        }
    }

    /// Detaches an op in O(1), for passes that remove many ops in one walk (removing each with
    /// [`Function::remove_op`] costs the length of its region, quadratic in a long one). The op
    /// is detached at once (its `parent` is `None`, so it counts as removed) but stays in its
    /// region's op list until [`Function::flush_detached`], which the pass calls before anything
    /// else walks the function.
    pub fn detach_op(&mut self, op: Op) {
        self.detaches += 1;
        if let Some(r) = self.ops[op].parent.take() {
            self.stale_regions.push(r);
        }
    }

    /// Changes whenever an op is detached (removed): a fact "this region is attached" learned
    /// at one epoch holds until the epoch changes (attaching ops never detaches others).
    pub fn detach_epoch(&self) -> u64 {
        self.detaches
    }

    /// Drops the ops detached by [`Function::detach_op`] from their regions' op lists, in one
    /// pass over each region concerned.
    pub fn flush_detached(&mut self) {
        let mut stale = std::mem::take(&mut self.stale_regions);
        stale.sort_unstable();
        stale.dedup();
        for r in stale {
            let ops = &self.ops;
            self.regions[r].ops.retain(|&o| ops[o].parent == Some(r));
        }
    }

    /// Replaces every use of `from` by `to` in the attached ops of the function. Walks the whole
    /// function: a pass replacing values per op keeps a [`crate::Uses`] index instead, whose
    /// [`crate::Uses::replace_uses`] costs the uses of `from`.
    pub fn replace_uses(&mut self, from: Value, to: Value) {
        for op in self.all_ops() {
            for v in &mut self.ops[op].operands {
                if *v == from {
                    *v = to;
                }
            }
        }
    }

    /// [`Function::replace_uses`] limited to the ops of region `r` and the regions nested in it:
    /// the same when every use of `from` is there, as it is when `r` is (or contains) the region
    /// `from` is defined in. Costs the size of `r`, not of the function.
    pub fn replace_uses_in(&mut self, r: Region, from: Value, to: Value) {
        let mut ops = Vec::new();
        self.walk_region(r, &mut |op| ops.push(op));
        for op in ops {
            for v in &mut self.ops[op].operands {
                if *v == from {
                    *v = to;
                }
            }
        }
    }

    /// Replaces every use of each key of `map` by its value, in one walk (for passes that
    /// rewrite many values at once; `map` is applied once, not transitively).
    pub fn replace_uses_with(&mut self, map: &HashMap<Value, Value>) {
        if map.is_empty() {
            return;
        }
        for op in self.all_ops() {
            for v in &mut self.ops[op].operands {
                if let Some(&to) = map.get(v) {
                    *v = to;
                }
            }
        }
    }

    /// How many times each value is used as an operand by attached ops (one walk; see
    /// [`crate::Uses`] for the users themselves, kept exact across a pass's rewrites).
    pub fn use_counts(&self) -> SecondaryMap<Value, u32> {
        let mut counts = SecondaryMap::with_capacity(self.values.len());
        for op in self.all_ops() {
            for &v in &self.ops[op].operands {
                counts[v] += 1;
            }
        }
        counts
    }

    // ---- walking ----

    /// Calls `f` on every op of region `r` and of the regions nested in it, in pre-order (an op
    /// before the ops of its regions, regions in order). Ops are visited in printing order.
    pub fn walk_region(&self, r: Region, f: &mut impl FnMut(Op)) {
        // An explicit stack instead of recursion: nesting depth comes from user programs.
        let mut stack: Vec<(Region, usize)> = vec![(r, 0)];
        while let Some((region, i)) = stack.pop() {
            let Some(&op) = self.regions[region].ops.get(i) else {
                continue;
            };
            stack.push((region, i + 1));
            if self.ops[op].parent != Some(region) {
                // Detached by `detach_op` and not flushed yet: invisible, with its regions.
                continue;
            }
            f(op);
            for &inner in self.ops[op].regions.iter().rev() {
                stack.push((inner, 0));
            }
        }
    }

    /// Calls `f` on every op of the function in pre-order.
    pub fn walk(&self, f: &mut impl FnMut(Op)) {
        self.walk_region(self.body, f)
    }

    /// Whether a call of the function runs in bounded time: every op of every region is
    /// [`crate::OpKind::is_constant_time`] (no loop, call, tensor kernel, list, dict or string
    /// building), so its time does not depend on its arguments' values or sizes. The Python
    /// package calls such a function without releasing the GIL, as NumPy keeps it for small
    /// operations.
    pub fn runs_in_bounded_time(&self) -> bool {
        let mut bounded = true;
        self.walk(&mut |op| bounded &= self.ops[op].kind.is_constant_time());
        bounded
    }

    /// Every attached op, in pre-order. Reversed, it visits every use before its definition
    /// (what dead-code elimination wants).
    pub fn all_ops(&self) -> Vec<Op> {
        let mut out = Vec::new();
        self.walk(&mut |op| out.push(op));
        out
    }

    /// Every attached region (the body first), in pre-order.
    pub fn all_regions(&self) -> Vec<Region> {
        let mut out = vec![self.body];
        self.walk(&mut |op| out.extend(self.ops[op].regions.iter().copied()));
        out
    }

    /// Whether region `inner` is `outer` or nested inside it.
    pub fn region_is_within(&self, mut inner: Region, outer: Region) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            let Some(op) = self.regions[inner].parent else {
                return false;
            };
            let Some(r) = self.ops[op].parent else {
                return false;
            };
            inner = r;
        }
    }

    // ---- inlining ----

    /// Where op `op` was inlined from: the function it was written in (`None` when it is this
    /// function's own op) and the calls that were inlined to bring it here, innermost first, as
    /// `(calling function, call span)` — the frames a traceback shows between the op and this
    /// function's caller.
    pub fn inline_frames(&self, op: Op) -> (Option<&str>, Vec<(&str, Span)>) {
        let mut frames = Vec::new();
        let mut innermost = None;
        let mut cur = self.ops[op].inlined_at;
        // Each site's parent was recorded before it, so the chain ends; the bound guards
        // against a malformed table.
        while let Some(i) = cur
            && frames.len() <= self.inline_sites.len()
        {
            let Some(site) = self.inline_sites.get(i as usize) else {
                break;
            };
            innermost.get_or_insert(site.callee.as_str());
            let caller = site
                .parent
                .and_then(|p| self.inline_sites.get(p as usize))
                .map_or(self.name.as_str(), |p| p.callee.as_str());
            frames.push((caller, site.call_span));
            cur = site.parent;
        }
        (innermost, frames)
    }

    // ---- copying ----

    /// Copies region `src_region` of `src` (with everything nested) into `self` as a new
    /// detached region. `map` translates values of `src` to values of `self`: values defined
    /// outside the copied region must already be in it (an inliner maps the callee's parameters
    /// to the call's arguments); values defined inside are added. Spans are kept.
    pub(crate) fn copy_region_from(
        &mut self,
        src: &Function,
        src_region: Region,
        map: &mut HashMap<Value, Value>,
    ) -> Region {
        let param_types: Vec<Type> = src.regions[src_region]
            .params
            .iter()
            .map(|&p| src.values[p].ty.clone())
            .collect();
        let r = self.new_region(&param_types);
        for (i, &p) in src.regions[src_region].params.iter().enumerate() {
            map.insert(p, self.regions[r].params[i]);
        }
        for &op in &src.regions[src_region].ops {
            let new = self.copy_op_from(src, op, map);
            self.append_op(r, new);
        }
        r
    }

    /// Copies one op (and its regions) of `src` into `self`, detached. See
    /// [`Function::copy_region_from`] for `map`. Operands missing from `map` are kept as they are,
    /// which is right only when `src` is `self`'s own original (cloning within a function).
    pub fn copy_op_from(&mut self, src: &Function, op: Op, map: &mut HashMap<Value, Value>) -> Op {
        pyjit_syntax::grow(|| self.copy_op_from_unbounded(src, op, map))
    }

    fn copy_op_from_unbounded(
        &mut self,
        src: &Function,
        op: Op,
        map: &mut HashMap<Value, Value>,
    ) -> Op {
        let data = &src.ops[op];
        let regions: Vec<Region> = data
            .regions
            .iter()
            .map(|&r| self.copy_region_from(src, r, map))
            .collect();
        let operands: Vec<Value> = data
            .operands
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
        let types: Vec<Type> = data
            .results
            .iter()
            .map(|&v| src.values[v].ty.clone())
            .collect();
        let new = self.create_op(data.kind.clone(), &operands, &types, &regions, data.span);
        // Meaningful when `src` shares `self`'s inline sites (a copy within the function, or
        // `compacted`); the inliner renumbers them when copying from another function.
        self.ops[new].inlined_at = data.inlined_at;
        for (i, &v) in data.results.iter().enumerate() {
            map.insert(v, self.ops[new].results[i]);
        }
        new
    }

    /// Copies one op (and its regions) of `self` into `self`, detached, as
    /// [`Function::copy_op_from`] with `src` a clone of `self` would, without the clone (a pass
    /// copying many small bodies of a big function would clone it once per copy). The copied
    /// ops are read, never changed, so the result is the same.
    pub fn copy_op_within(&mut self, op: Op, map: &mut HashMap<Value, Value>) -> Op {
        pyjit_syntax::grow(|| self.copy_op_within_unbounded(op, map))
    }

    fn copy_op_within_unbounded(&mut self, op: Op, map: &mut HashMap<Value, Value>) -> Op {
        let (kind, operands, results, src_regions, span, inlined_at) = {
            let d = &self.ops[op];
            (
                d.kind.clone(),
                d.operands.clone(),
                d.results.clone(),
                d.regions.clone(),
                d.span,
                d.inlined_at,
            )
        };
        let regions: Vec<Region> = src_regions
            .iter()
            .map(|&r| self.copy_region_within(r, map))
            .collect();
        let operands: Vec<Value> = operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
        let types: Vec<Type> = results.iter().map(|&v| self.values[v].ty.clone()).collect();
        let new = self.create_op(kind, &operands, &types, &regions, span);
        self.ops[new].inlined_at = inlined_at;
        for (i, &v) in results.iter().enumerate() {
            map.insert(v, self.ops[new].results[i]);
        }
        new
    }

    fn copy_region_within(
        &mut self,
        src_region: Region,
        map: &mut HashMap<Value, Value>,
    ) -> Region {
        let params = self.regions[src_region].params.clone();
        let param_types: Vec<Type> = params.iter().map(|&p| self.values[p].ty.clone()).collect();
        let r = self.new_region(&param_types);
        for (i, &p) in params.iter().enumerate() {
            map.insert(p, self.regions[r].params[i]);
        }
        for op in self.regions[src_region].ops.clone() {
            if self.ops[op].parent != Some(src_region) {
                continue; // detached by `detach_op`, not flushed yet
            }
            let new = self.copy_op_within(op, map);
            self.append_op(r, new);
        }
        r
    }

    /// A copy containing only the attached entities, renumbered densely in pre-order.
    pub fn compacted(&self) -> Function {
        let mut f = Function::new(
            self.name.clone(),
            &self
                .param_names
                .iter()
                .zip(self.param_types())
                .map(|(n, t)| (n.as_str(), t))
                .collect::<Vec<_>>(),
            self.ret.clone(),
            self.span,
        );
        f.inline_sites = self.inline_sites.clone();
        let mut map: HashMap<Value, Value> = self
            .params()
            .iter()
            .copied()
            .zip(f.params().to_vec())
            .collect();
        for &op in &self.regions[self.body].ops {
            let new = f.copy_op_from(self, op, &mut map);
            let body = f.body;
            f.append_op(body, new);
        }
        f
    }
}

impl std::fmt::Display for Module {
    /// The text format ([`crate::print_module`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::print_module(self))
    }
}
