//! The producer API: build a function's ops at an insertion point, region by region.
//!
//! The builder never fails and never panics on ill-typed requests: where it cannot compute a
//! result type (say `tuple.get` of a non-tuple) it uses `None`, and the verifier reports the op
//! with its span. Producers (the script frontend, the tracer) run the verifier on what they built.

use crate::entities::{FuncId, Op, Region, Value};
use crate::function::Function;
use crate::ops::{
    BoolBinOp, CastOp, CmpOp, Const, FloatBinOp, FloatUnOp, IndexKind, IntBinOp, IntUnOp, MathFn,
    OpKind,
};
use crate::schema::DType;
use crate::schema::OpId;
use crate::types::Type;
use pyjit_syntax::Span;

/// Where new ops go: the end of a region, or a given index of it (advanced after each insert).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InsertPoint {
    pub region: Region,
    pub index: Option<usize>,
}

/// Builds ops into a [`Function`] at an insertion point, with the span of the source construct
/// being translated (set with [`FunctionBuilder::set_span`], like Cranelift's `set_srcloc`).
///
/// ```
/// use pyjit_ir::{Module, Type, FunctionBuilder, IntBinOp, CmpOp, verify_module, print_module};
/// use pyjit_syntax::Span;
///
/// let mut m = Module::new();
/// let f = m.declare_function("clamp0", &[("n", Type::Int)], Type::Int, Span::DUMMY);
/// let mut b = FunctionBuilder::new(m.func_mut(f));
/// let n = b.param(0);
/// let zero = b.const_int(0);
/// let neg = b.int_cmp(CmpOp::Lt, n, zero);
/// let then_r = b.new_region(&[]);
/// b.build_in(then_r, |b| b.yield_(&[zero]));
/// let else_r = b.new_region(&[]);
/// b.build_in(else_r, |b| b.yield_(&[n]));
/// let r = b.if_(neg, then_r, else_r, &[Type::Int]);
/// let r = b.result(r);
/// b.return_(r);
/// assert!(verify_module(&m).is_ok());
/// assert!(print_module(&m).contains("%2: int = if %1 {"));
/// ```
pub struct FunctionBuilder<'f> {
    pub func: &'f mut Function,
    point: InsertPoint,
    span: Span,
}

impl<'f> FunctionBuilder<'f> {
    /// A builder inserting at the end of the function's body, with the function's span.
    pub fn new(func: &'f mut Function) -> FunctionBuilder<'f> {
        let point = InsertPoint {
            region: func.body,
            index: None,
        };
        let span = func.span;
        FunctionBuilder { func, point, span }
    }

    /// The span given to the ops built from now on.
    pub fn set_span(&mut self, span: Span) {
        self.span = span;
    }

    pub fn span(&self) -> Span {
        self.span
    }

    pub fn param(&self, i: usize) -> Value {
        self.func.params()[i]
    }

    pub fn value_type(&self, v: Value) -> &Type {
        self.func.value_type(v)
    }

    // ---- insertion point ----

    pub fn insert_point(&self) -> InsertPoint {
        self.point
    }

    pub fn set_insert_point(&mut self, p: InsertPoint) {
        self.point = p;
    }

    /// Moves the insertion point to the end of `r` and returns the previous one.
    pub fn position_at_end(&mut self, r: Region) -> InsertPoint {
        std::mem::replace(
            &mut self.point,
            InsertPoint {
                region: r,
                index: None,
            },
        )
    }

    /// Moves the insertion point just before an attached op and returns the previous one.
    pub fn position_before(&mut self, op: Op) -> InsertPoint {
        let region = self.func.op(op).parent.unwrap_or(self.func.body);
        let index = self.func.position(op);
        std::mem::replace(&mut self.point, InsertPoint { region, index })
    }

    pub fn current_region(&self) -> Region {
        self.point.region
    }

    /// Runs `f` with the insertion point at the end of `r`, then restores it.
    pub fn build_in<R>(&mut self, r: Region, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.position_at_end(r);
        let out = f(self);
        self.point = saved;
        out
    }

    /// Whether the current region already ends with a terminator (so nothing more may follow,
    /// e.g. after a `raise` in a branch).
    pub fn is_terminated(&self) -> bool {
        self.point.index.is_none() && self.func.terminator(self.point.region).is_some()
    }

    /// A new detached region with parameters of the given types; attach it by passing it to
    /// [`FunctionBuilder::if_`] or [`FunctionBuilder::loop_`].
    pub fn new_region(&mut self, param_types: &[Type]) -> Region {
        self.func.new_region(param_types)
    }

    // ---- generic insertion ----

    /// Creates an op and inserts it at the insertion point.
    pub fn insert(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: &[Type],
        regions: &[Region],
    ) -> Op {
        let op = self
            .func
            .create_op(kind, operands, result_types, regions, self.span);
        match &mut self.point.index {
            None => self.func.append_op(self.point.region, op),
            Some(i) => {
                self.func.insert_op(self.point.region, *i, op);
                *i += 1;
            }
        }
        op
    }

    /// Inserts an op with one result and returns the result.
    pub fn insert1(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.insert(kind, operands, &[ty], &[]);
        self.func.result(op)
    }

    pub fn result(&self, op: Op) -> Value {
        self.func.result(op)
    }

    pub fn results(&self, op: Op) -> Vec<Value> {
        self.func.results(op).to_vec()
    }

    // ---- constants ----

    pub fn constant(&mut self, c: Const) -> Value {
        let ty = c.ty();
        self.insert1(OpKind::Const(c), &[], ty)
    }

    pub fn const_int(&mut self, v: i64) -> Value {
        self.constant(Const::Int(v))
    }

    pub fn const_float(&mut self, v: f64) -> Value {
        self.constant(Const::Float(v))
    }

    pub fn const_bool(&mut self, v: bool) -> Value {
        self.constant(Const::Bool(v))
    }

    pub fn const_none(&mut self) -> Value {
        self.constant(Const::None)
    }

    pub fn const_str(&mut self, v: impl Into<String>) -> Value {
        self.constant(Const::Str(v.into()))
    }

    pub fn const_dtype(&mut self, d: DType) -> Value {
        self.constant(Const::DType(d))
    }

    // ---- scalars ----

    pub fn int_bin(&mut self, op: IntBinOp, a: Value, b: Value) -> Value {
        self.insert1(OpKind::IntBin(op), &[a, b], Type::Int)
    }

    pub fn int_un(&mut self, op: IntUnOp, a: Value) -> Value {
        self.insert1(OpKind::IntUn(op), &[a], Type::Int)
    }

    /// `int.truediv`: Python's `int / int`.
    pub fn int_truediv(&mut self, a: Value, b: Value) -> Value {
        self.insert1(OpKind::IntTrueDiv, &[a, b], Type::Float)
    }

    pub fn float_bin(&mut self, op: FloatBinOp, a: Value, b: Value) -> Value {
        self.insert1(OpKind::FloatBin(op), &[a, b], Type::Float)
    }

    pub fn float_un(&mut self, op: FloatUnOp, a: Value) -> Value {
        self.insert1(OpKind::FloatUn(op), &[a], Type::Float)
    }

    pub fn int_cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.insert1(OpKind::IntCmp(op), &[a, b], Type::Bool)
    }

    pub fn float_cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.insert1(OpKind::FloatCmp(op), &[a, b], Type::Bool)
    }

    pub fn bool_cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.insert1(OpKind::BoolCmp(op), &[a, b], Type::Bool)
    }

    pub fn bool_bin(&mut self, op: BoolBinOp, a: Value, b: Value) -> Value {
        self.insert1(OpKind::BoolBin(op), &[a, b], Type::Bool)
    }

    pub fn not(&mut self, a: Value) -> Value {
        self.insert1(OpKind::Not, &[a], Type::Bool)
    }

    pub fn cast(&mut self, op: CastOp, a: Value) -> Value {
        let ty = match op {
            CastOp::IntToFloat | CastOp::BoolToFloat => Type::Float,
            CastOp::IntToBool | CastOp::FloatToBool => Type::Bool,
            CastOp::FloatToInt | CastOp::BoolToInt => Type::Int,
        };
        self.insert1(OpKind::Cast(op), &[a], ty)
    }

    /// `elem.F.P(args)`: one element of a float tensor op (see [`OpKind::Elem`]).
    pub fn elem(&mut self, f: crate::ElemFn, p: crate::Prec, args: &[Value]) -> Value {
        self.insert1(OpKind::Elem(f, p), args, Type::Float)
    }

    pub fn math(&mut self, f: MathFn, args: &[Value]) -> Value {
        let (_, ty) = f.signature();
        self.insert1(OpKind::Math(f), args, ty)
    }

    /// `a if c else b`, both already evaluated.
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.value_type(a).clone();
        self.insert1(OpKind::Select, &[c, a, b], ty)
    }

    // ---- tensors ----

    /// A tensor op of the runtime's schema table; the result types are the schema's returns
    /// (generic; specialization refines them).
    pub fn tensor_op(&mut self, id: OpId, args: &[Value]) -> Vec<Value> {
        let types = crate::schema::return_types(id);
        let op = self.insert(OpKind::Tensor(id), args, &types, &[]);
        self.results(op)
    }

    /// [`FunctionBuilder::tensor_op`] for an op with exactly one result (`None` otherwise).
    pub fn tensor_op1(&mut self, id: OpId, args: &[Value]) -> Option<Value> {
        match self.tensor_op(id, args).as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }

    /// One component of a subscript (see [`IndexKind`] for the operands of each).
    pub fn index(&mut self, kind: IndexKind, operands: &[Value]) -> Value {
        self.insert1(OpKind::Index(kind), operands, Type::Index)
    }

    // ---- tuples, lists, optionals, strings ----

    pub fn tuple_new(&mut self, elems: &[Value]) -> Value {
        let ty = Type::Tuple(elems.iter().map(|&v| self.value_type(v).clone()).collect());
        self.insert1(OpKind::TupleNew, elems, ty)
    }

    pub fn tuple_get(&mut self, t: Value, index: u32) -> Value {
        let ty = match self.value_type(t) {
            Type::Tuple(ts) => ts.get(index as usize).cloned().unwrap_or(Type::None),
            _ => Type::None,
        };
        self.insert1(OpKind::TupleGet(index), &[t], ty)
    }

    /// A fresh list of element type `elem` holding `elems`.
    pub fn list_new(&mut self, elem: Type, elems: &[Value]) -> Value {
        self.insert1(OpKind::ListNew, elems, Type::list(elem))
    }

    fn elem_type(&self, list: Value) -> Type {
        match self.value_type(list) {
            Type::List(t) => (**t).clone(),
            _ => Type::None,
        }
    }

    pub fn list_get(&mut self, list: Value, index: Value) -> Value {
        let ty = self.elem_type(list);
        self.insert1(OpKind::ListGet, &[list, index], ty)
    }

    pub fn list_set(&mut self, list: Value, index: Value, v: Value) -> Op {
        self.insert(OpKind::ListSet, &[list, index, v], &[], &[])
    }

    pub fn list_append(&mut self, list: Value, v: Value) -> Op {
        self.insert(OpKind::ListAppend, &[list, v], &[], &[])
    }

    pub fn list_len(&mut self, list: Value) -> Value {
        self.insert1(OpKind::ListLen, &[list], Type::Int)
    }

    /// An empty `Optional[inner]`.
    pub fn opt_none(&mut self, inner: Type) -> Value {
        self.insert1(OpKind::OptNone, &[], Type::optional(inner))
    }

    pub fn opt_wrap(&mut self, v: Value) -> Value {
        let ty = Type::optional(self.value_type(v).clone());
        self.insert1(OpKind::OptWrap, &[v], ty)
    }

    pub fn opt_unwrap(&mut self, o: Value) -> Value {
        let ty = match self.value_type(o) {
            Type::Optional(t) => (**t).clone(),
            _ => Type::None,
        };
        self.insert1(OpKind::OptUnwrap, &[o], ty)
    }

    pub fn opt_is_none(&mut self, o: Value) -> Value {
        self.insert1(OpKind::OptIsNone, &[o], Type::Bool)
    }

    /// `format(v, spec)`; an empty spec is `str(v)`.
    pub fn str_of(&mut self, v: Value, spec: impl Into<String>) -> Value {
        self.insert1(OpKind::StrOf(spec.into()), &[v], Type::Str)
    }

    /// `str(v)` as NumPy shows arrays (see [`OpKind::StrNumPy`]).
    pub fn str_numpy(&mut self, v: Value) -> Value {
        self.insert1(OpKind::StrNumPy, &[v], Type::Str)
    }

    pub fn str_concat(&mut self, parts: &[Value]) -> Value {
        self.insert1(OpKind::StrConcat, parts, Type::Str)
    }

    /// A placeholder value of type `ty` that is never read.
    pub fn undef(&mut self, ty: Type) -> Value {
        self.insert1(OpKind::Undef, &[], ty)
    }

    // ---- control flow ----

    /// `if cond -> (result_types) { then_r } else { else_r }`: both regions must have been
    /// created with [`FunctionBuilder::new_region`] (no parameters) and end in `yield` or `raise`.
    pub fn if_(
        &mut self,
        cond: Value,
        then_r: Region,
        else_r: Region,
        result_types: &[Type],
    ) -> Op {
        self.insert(OpKind::If, &[cond], result_types, &[then_r, else_r])
    }

    /// `loop(max_trip, cond, inits...) body(i, carried...)`: `body` must have parameters
    /// `(int, types of inits...)` and end in `yield (continue_cond, carried...)`. The results
    /// (one per carried value) take the types of the body's carried parameters.
    pub fn loop_(&mut self, max_trip: Value, cond: Value, inits: &[Value], body: Region) -> Op {
        let types: Vec<Type> = self
            .func
            .region_params(body)
            .iter()
            .skip(1)
            .map(|&p| self.func.value_type(p).clone())
            .collect();
        let mut operands = vec![max_trip, cond];
        operands.extend_from_slice(inits);
        self.insert(OpKind::Loop, &operands, &types, &[body])
    }

    pub fn yield_(&mut self, values: &[Value]) -> Op {
        self.insert(OpKind::Yield, values, &[], &[])
    }

    pub fn return_(&mut self, v: Value) -> Op {
        self.insert(OpKind::Return, &[v], &[], &[])
    }

    /// `raise Class(msg)`; ends the region.
    pub fn raise(&mut self, class: impl Into<String>, msg: Value) -> Op {
        self.insert(OpKind::Raise(class.into()), &[msg], &[], &[])
    }

    /// Raises `Class(msg)` when `cond` is false.
    pub fn check(&mut self, class: impl Into<String>, cond: Value, msg: Value) -> Op {
        self.insert(OpKind::Check(class.into()), &[cond, msg], &[], &[])
    }

    /// The tracer's guard that scalar `v` equals `expected`.
    pub fn guard(&mut self, v: Value, expected: Const, message: impl Into<String>) -> Op {
        let kind = OpKind::Guard {
            expected,
            message: message.into(),
        };
        self.insert(kind, &[v], &[], &[])
    }

    pub fn print(&mut self, args: &[Value]) -> Op {
        self.insert(OpKind::Print, args, &[], &[])
    }

    /// Calls `callee`, whose return type the caller passes (the builder sees one function only).
    pub fn call(&mut self, callee: FuncId, args: &[Value], ret: Type) -> Value {
        self.insert1(OpKind::Call(callee), args, ret)
    }
}
