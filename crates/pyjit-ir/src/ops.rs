//! The op kinds of the IR and their text names.
//!
//! Scalar ops are explicit per type (`int.add`, `float.add`) so that every later layer (interpreter,
//! codegen, folding) handles one meaning per kind and never re-derives Python's rules from operand
//! types. Tensor ops are not listed here: one kind, [`OpKind::Tensor`], names an entry of the
//! runtime's op-schema table.

use crate::entities::FuncId;
use crate::schema::DType;
use crate::schema::OpId;
pub use pyjit_runtime::ops::elem::{ElemFn, Prec};
use std::hash::{Hash, Hasher};

/// A constant's value. Floats compare and hash by bit pattern (so `NaN` equals itself and `-0.0`
/// differs from `0.0`), which is what CSE and constant pooling need.
#[derive(Clone, Debug)]
pub enum Const {
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    Str(String),
    DType(DType),
}

impl PartialEq for Const {
    fn eq(&self, other: &Const) -> bool {
        match (self, other) {
            (Const::Int(a), Const::Int(b)) => a == b,
            (Const::Float(a), Const::Float(b)) => a.to_bits() == b.to_bits(),
            (Const::Bool(a), Const::Bool(b)) => a == b,
            (Const::None, Const::None) => true,
            (Const::Str(a), Const::Str(b)) => a == b,
            (Const::DType(a), Const::DType(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Const {}

impl Hash for Const {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Const::Int(v) => v.hash(state),
            Const::Float(v) => v.to_bits().hash(state),
            Const::Bool(v) => v.hash(state),
            Const::None => {}
            Const::Str(v) => v.hash(state),
            Const::DType(v) => v.hash(state),
        }
    }
}

impl Const {
    /// The runtime's value of the constant (an argument of a tensor op).
    pub fn to_runtime(&self) -> pyjit_runtime::Value {
        use pyjit_runtime::Value as Rt;
        match self {
            Const::Int(i) => Rt::Int(*i),
            Const::Float(x) => Rt::Float(*x),
            Const::Bool(b) => Rt::Bool(*b),
            Const::None => Rt::None,
            Const::Str(s) => Rt::Str(s.clone()),
            Const::DType(d) => Rt::DType(*d),
        }
    }

    /// The type of the value.
    pub fn ty(&self) -> crate::Type {
        use crate::Type;
        match self {
            Const::Int(_) => Type::Int,
            Const::Float(_) => Type::Float,
            Const::Bool(_) => Type::Bool,
            Const::None => Type::None,
            Const::Str(_) => Type::Str,
            Const::DType(_) => Type::DType,
        }
    }
}

/// Binary ops on two `int`s giving an `int`. Python semantics: `floordiv` and `mod` round toward
/// negative infinity (the remainder has the divisor's sign) and raise `ZeroDivisionError` on a zero
/// divisor; `add`/`sub`/`mul`/`pow`/`shl` wrap around on overflow (two's complement, like
/// PyTorch's int64); `pow` with a negative exponent raises `ValueError`; `shl`/`shr` with a negative
/// count raise `ValueError`, counts ≥ 64 give 0 (or -1 for `shr` of a negative value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntBinOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
    Pow,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl IntBinOp {
    /// Every int binary op, in declaration order.
    pub const ALL: [IntBinOp; 11] = [
        IntBinOp::Add,
        IntBinOp::Sub,
        IntBinOp::Mul,
        IntBinOp::FloorDiv,
        IntBinOp::Mod,
        IntBinOp::Pow,
        IntBinOp::BitAnd,
        IntBinOp::BitOr,
        IntBinOp::BitXor,
        IntBinOp::Shl,
        IntBinOp::Shr,
    ];
}

/// Unary ops on an `int` giving an `int` (`neg` and `abs` wrap on `i64::MIN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntUnOp {
    Neg,
    Invert,
    Abs,
}

/// Binary ops on two `float`s giving a `float`, with Python semantics: `div`, `floordiv` and
/// `mod` raise `ZeroDivisionError` on a zero divisor; `floordiv` is `floor(a / b)` computed as
/// Python does, `mod` has the divisor's sign; `pow` of a negative base to a non-integer exponent
/// raises `ValueError` (Python would return a complex number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatBinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

impl FloatBinOp {
    /// Every float binary op, in declaration order.
    pub const ALL: [FloatBinOp; 7] = [
        FloatBinOp::Add,
        FloatBinOp::Sub,
        FloatBinOp::Mul,
        FloatBinOp::Div,
        FloatBinOp::FloorDiv,
        FloatBinOp::Mod,
        FloatBinOp::Pow,
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatUnOp {
    Neg,
    Abs,
}

/// Comparisons; operands of one type (`int`, `float` or `bool`), result `bool`: the runtime's
/// comparison of tensor elements, so a scalar and a tensor comparison are one operator. Float
/// comparisons are IEEE (every comparison with NaN is false except `ne`).
pub use pyjit_runtime::ops::CmpOp;

/// Non-short-circuit ops on two `bool`s (`&`, `|`, `^` on bools; `and`/`or` are `if`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolBinOp {
    And,
    Or,
    Xor,
}

/// Conversions between scalar types. `float.to_int` truncates toward zero (Python's `int(x)`)
/// and raises `ValueError` on NaN and `OverflowError` on infinities and out-of-range values.
/// `x.to_bool` is `x != 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    IntToFloat,
    IntToBool,
    FloatToInt,
    FloatToBool,
    BoolToInt,
    BoolToFloat,
}

/// Python's `math` module functions (and `round`). Domain errors raise `ValueError("math domain
/// error")` as Python does; see [`MathFn::signature`] for operand and result types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Exp,
    Expm1,
    Log,
    Log1p,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Erf,
    Erfc,
    Fabs,
    /// `math.floor`: float → int.
    Floor,
    /// `math.ceil`: float → int.
    Ceil,
    /// `math.trunc`: float → int.
    Trunc,
    /// `round(x)`: float → int, half to even.
    Round,
    IsNan,
    IsInf,
    IsFinite,
    /// `math.pow(x, y)`: float, float → float.
    Pow,
    Atan2,
    Fmod,
    Copysign,
}

/// One component of a tensor subscript (`x[i, 1:3, None, ..., mask]`); a `List[Index]` is the
/// `Index[]` argument of the runtime's `index` and `index_put_` ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    /// `index.int(%i)`: `x[i]`, removes the dimension (negative counts from the end).
    Int,
    /// `index.slice(%start, %stop, %step)`: `Optional[int]`, `Optional[int]`, `int` → `x[a:b:c]`.
    Slice,
    /// `index.none()`: `x[None]`, inserts a dimension of size 1.
    None,
    /// `index.ellipsis()`: `x[...]`.
    Ellipsis,
    /// `index.tensor(%t)`: a bool mask or an integer index tensor.
    Tensor,
}

impl IndexKind {
    pub const ALL: [IndexKind; 5] = [
        IndexKind::Int,
        IndexKind::Slice,
        IndexKind::None,
        IndexKind::Ellipsis,
        IndexKind::Tensor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Int => "int",
            IndexKind::Slice => "slice",
            IndexKind::None => "none",
            IndexKind::Ellipsis => "ellipsis",
            IndexKind::Tensor => "tensor",
        }
    }

    /// The operand types.
    pub fn operands(self) -> Vec<crate::Type> {
        use crate::Type;
        match self {
            IndexKind::Int => vec![Type::Int],
            IndexKind::Slice => vec![
                Type::optional(Type::Int),
                Type::optional(Type::Int),
                Type::Int,
            ],
            IndexKind::None | IndexKind::Ellipsis => vec![],
            IndexKind::Tensor => vec![Type::tensor()],
        }
    }
}

/// What an op does. Operands, results, owned regions and the span live in [`crate::OpData`].
/// The text name of each kind is in the comment; docs/ir.md gives each one's full semantics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `const`: no operands, one result of the constant's type.
    Const(Const),
    /// `int.add` …: (int, int) → int.
    IntBin(IntBinOp),
    /// `int.neg`, `int.invert`, `int.abs`: int → int.
    IntUn(IntUnOp),
    /// `int.truediv`: (int, int) → float, Python's `int / int`: the correctly rounded quotient
    /// of the exact integers; `ZeroDivisionError("division by zero")`.
    IntTrueDiv,
    /// `float.add` …: (float, float) → float.
    FloatBin(FloatBinOp),
    /// `float.neg`, `float.abs`.
    FloatUn(FloatUnOp),
    /// `int.lt` …: (int, int) → bool.
    IntCmp(CmpOp),
    /// `float.lt` …: (float, float) → bool.
    FloatCmp(CmpOp),
    /// `bool.eq` …: (bool, bool) → bool (`False < True`).
    BoolCmp(CmpOp),
    /// `bool.and`, `bool.or`, `bool.xor`: (bool, bool) → bool.
    BoolBin(BoolBinOp),
    /// `bool.not`: bool → bool.
    Not,
    /// `int.to_float` …
    Cast(CastOp),
    /// `math.sqrt` …
    Math(MathFn),
    /// `elem.exp.f32(%x)`, `elem.add.f64(%a, %b)`, `elem.cast.f32(%x)`: one element of a float
    /// tensor op (IEEE results, never raises) on `float` operands, which it first rounds to the
    /// precision; its result is a value of the precision (an `f32` value is carried as the
    /// `float` equal to it). [`pyjit_runtime::ops::elem`] defines what each computes.
    Elem(ElemFn, Prec),
    /// `select(%c, %a, %b)`: `%a if %c else %b` of two values of one type, both already computed.
    Select,
    /// `tensor.NAME(...)`: an op of the runtime's schema table; operands follow the schema's
    /// parameters, results its returns.
    Tensor(OpId),
    /// `index.int(%i)` …: one component of a subscript, of type `Index`.
    Index(IndexKind),
    /// `tensor.load(%t, %i0, …, %ik)`: element `[i0, …, ik]` of a tensor with one int index per
    /// dim, as a Python scalar (`x[i, j].item()`): `int` for integer dtypes, `float` for float
    /// dtypes, `bool` for bool. Negative indices count from the end; an index out of range
    /// raises PyTorch's `IndexError`. Written by the `tensor-access` pass.
    TensorLoad,
    /// `tensor.store(%t, %i0, …, %ik, %v)`: `x[i0, …, ik] = v` for a scalar `v`, converted to the
    /// tensor's dtype as `index_put_` converts a Python scalar; indexing as `tensor.load`; no
    /// result. Written by the `tensor-access` pass.
    TensorStore,
    /// `tuple.new(...)`: elements → `Tuple[...]`.
    TupleNew,
    /// `tuple.get[i]`: `Tuple[...]` → its `i`-th element (a constant index).
    TupleGet(u32),
    /// `list.new(...)`: elements (all of the element type) → a fresh `List[T]`.
    ListNew,
    /// `list.get(%l, %i)`: Python indexing (negative from the end), `IndexError` when out of range.
    ListGet,
    /// `list.set(%l, %i, %v)`: in place, no result; indexing as `list.get`.
    ListSet,
    /// `list.append(%l, %v)`: in place, no result.
    ListAppend,
    /// `list.len(%l)` → int.
    ListLen,
    /// `dict.new(%k0, %v0, %k1, %v1, ...)`: key/value pairs → a fresh `Dict[K, V]` (a later
    /// pair with an equal key replaces the value and keeps the first position, as in Python).
    DictNew,
    /// `dict.get(%d, %k)` → V: `d[k]`, `KeyError(repr(k))` when absent.
    DictGet,
    /// `dict.set(%d, %k, %v)`: `d[k] = v` in place (a new key goes last), no result.
    DictSet,
    /// `dict.contains(%d, %k)` → bool: `k in d`.
    DictContains,
    /// `dict.len(%d)` → int.
    DictLen,
    /// `dict.keys(%d)` → a fresh `List[K]` in insertion order (TorchScript's `keys()`).
    DictKeys,
    /// `dict.values(%d)` → a fresh `List[V]` in insertion order.
    DictValues,
    /// `dict.items(%d)` → a fresh `List[Tuple[K, V]]` in insertion order.
    DictItems,
    /// `opt.none()` → `Optional[T]` holding no value.
    OptNone,
    /// `opt.wrap(%v)`: T → `Optional[T]`.
    OptWrap,
    /// `opt.unwrap(%o)`: `Optional[T]` → T; raises `RuntimeError` ("unwrapping None") when empty.
    OptUnwrap,
    /// `opt.is_none(%o)`: `Optional[T]` → bool.
    OptIsNone,
    /// `str.of[spec](%v)`: Python's `format(v, spec)` (`str(v)` for an empty spec) of any value,
    /// tensors printed as PyTorch prints them.
    StrOf(String),
    /// `str.numpy(%v)`: `str(v)` of any value with arrays (also inside tuples and lists) shown as
    /// NumPy shows them: what `print(x)`, `str(x)` and `f"{x}"` give in a NumPy-style module.
    StrNumPy,
    /// `str.concat(...)`: strings → their concatenation.
    StrConcat,
    /// `undef()`: a placeholder of any type that is never read (TorchScript's
    /// `prim::Uninitialized`), e.g. the carried return value of a loop before an early return.
    Undef,
    /// `if %c { … } else { … }`: two regions without parameters, each ending in `yield` (or
    /// `raise`); the results are the yielded values of the region that ran.
    If,
    /// `loop(%max_trip, %cond, %carried...) body(%i, %c...) { … }`, TorchScript's `prim::Loop`:
    /// runs the body while `i < max_trip` and the condition holds; the body yields
    /// `(continue_condition, carried...)`; the results are the final carried values.
    Loop,
    /// `fused(%in...) body(%p...) { … yield %r }`: a fused group of elementwise tensor ops and
    /// reductions over the last dim (docs/fusion.md). The body's parameters are the inputs
    /// (same types); it holds only `const` ops and fusable tensor ops
    /// (`pyjit_runtime::ops::fused::fusable`) on values defined inside it, and yields the one
    /// tensor result. Running it means running the body's ops in order (the interpreter does
    /// exactly that); native code runs it in one pass.
    Fused,
    /// `yield ...`: terminates an `if`, `loop` or `fused` region.
    Yield,
    /// `return %v`: terminates a function body.
    Return,
    /// `raise[Class](%msg)`: raises `Class(msg)`; a terminator.
    Raise(String),
    /// `check[Class](%cond, %msg)`: raises `Class(msg)` when `%cond` is false (`assert`).
    Check(String),
    /// `guard[expected, "message"](%v)`: the tracer's assumption that scalar `%v` equals
    /// `expected`. A failed guard is not an error: it makes the caller re-trace.
    Guard { expected: Const, message: String },
    /// `print(...)`: prints its operands separated by spaces, then a newline, as Python would.
    Print,
    /// `call @f(...)`: calls a function of the module.
    Call(FuncId),
}

/// What [`OpKind::facts`] says of a kind (see the methods of [`OpKind`] that read each).
#[derive(Clone, Copy)]
struct Facts {
    scalar_arith: bool,
    side_effects: bool,
    may_raise: bool,
    fresh_object: bool,
    constant_time: bool,
}

impl Facts {
    /// A constant-time op computing values only.
    const fn value(may_raise: bool) -> Facts {
        Facts {
            scalar_arith: false,
            side_effects: false,
            may_raise,
            fresh_object: false,
            constant_time: true,
        }
    }

    /// Scalar arithmetic ([`OpKind::is_scalar_arith`]).
    const fn arith(may_raise: bool) -> Facts {
        Facts {
            scalar_arith: true,
            ..Facts::value(may_raise)
        }
    }

    /// A constant-time op with side effects and no fresh result.
    const fn effect(may_raise: bool) -> Facts {
        Facts {
            side_effects: true,
            ..Facts::value(may_raise)
        }
    }

    /// An op whose time grows with its operands (their sizes, trip counts, callees).
    const fn sized(side_effects: bool, may_raise: bool, fresh_object: bool) -> Facts {
        Facts {
            scalar_arith: false,
            side_effects,
            may_raise,
            fresh_object,
            constant_time: false,
        }
    }
}

impl OpKind {
    /// Whether the op ends a region.
    pub fn is_terminator(&self) -> bool {
        matches!(self, OpKind::Yield | OpKind::Return | OpKind::Raise(_))
    }

    /// How many regions the op owns.
    pub(crate) fn region_count(&self) -> usize {
        match self {
            OpKind::If => 2,
            OpKind::Loop | OpKind::Fused => 1,
            _ => 0,
        }
    }

    /// Whether the op does something besides computing its results: writes memory (in-place
    /// tensor ops, `list.set`, `list.append`), prints, raises on purpose (`raise`, `check`),
    /// checks a guard, transfers control (terminators), or may do any of these (`call`, and
    /// `if`/`loop`, whose regions a pass must inspect itself). An op without side effects whose
    /// results are unused may be deleted (accepting that an error it could have raised, like a
    /// shape mismatch, disappears with it, as in TorchScript's DCE).
    pub fn has_side_effects(&self) -> bool {
        self.facts().side_effects
    }

    /// Whether the op writes memory some other op could read: in-place tensor ops,
    /// `tensor.store`, list and dict writes, and calls (a callee may do any of these to its
    /// arguments).
    pub fn writes_memory(&self) -> bool {
        match self {
            OpKind::ListSet
            | OpKind::ListAppend
            | OpKind::TensorStore
            | OpKind::DictSet
            | OpKind::Call(_) => true,
            OpKind::Tensor(id) => crate::schema::is_inplace(*id),
            _ => false,
        }
    }

    /// Whether the op can fail at run time for some operand values (division by zero, index out
    /// of range, shape mismatch, a math domain error, unwrapping `None` …). Ops that neither have
    /// side effects nor may raise can be hoisted and speculated freely.
    pub fn may_raise(&self) -> bool {
        self.facts().may_raise
    }

    /// Whether a result may be a fresh mutable object (a list, or a tensor whose storage later
    /// in-place ops could write): two such ops with equal operands are *not* interchangeable
    /// unless no result is ever mutated, so CSE needs alias facts before merging them.
    pub fn returns_fresh_object(&self) -> bool {
        self.facts().fresh_object
    }

    /// Whether one execution of the op takes a time bounded independently of its operands'
    /// values and sizes: scalar arithmetic, casts, `math.*`, selects, one tensor element
    /// (`tensor.load`/`tensor.store`), tuples and optionals, and the structural ops (`if`,
    /// terminators, `raise`, `check`, guards; their regions are checked separately). Not: tensor
    /// kernels and fused groups (time grows with the elements), loops and calls (with trip
    /// counts and callees), list and dict ops (a list built from a variable length, `keys()`),
    /// string building and `print` (a tensor's text grows with it). A function whose every op
    /// is constant-time runs in bounded time ([`crate::Function::runs_in_bounded_time`]).
    pub fn is_constant_time(&self) -> bool {
        self.facts().constant_time
    }

    /// Whether the op is scalar arithmetic: Python's rules on `int`, `float` and `bool`
    /// operands giving one scalar (the `int.*`, `float.*` and `bool.*` ops and the casts
    /// between those types).
    pub fn is_scalar_arith(&self) -> bool {
        self.facts().scalar_arith
    }

    /// The effect and cost facts of the op, each kind stated once. Every kind is listed (no
    /// wildcard arm), so a new kind must state its facts to compile.
    fn facts(&self) -> Facts {
        match self {
            // Scalar arithmetic: pure and constant-time; some raise for some operands.
            OpKind::IntBin(op) => Facts::arith(matches!(
                op,
                IntBinOp::FloorDiv | IntBinOp::Mod | IntBinOp::Pow | IntBinOp::Shl | IntBinOp::Shr
            )),
            OpKind::FloatBin(op) => Facts::arith(matches!(
                op,
                FloatBinOp::Div | FloatBinOp::FloorDiv | FloatBinOp::Mod | FloatBinOp::Pow
            )),
            OpKind::Cast(c) => Facts::arith(*c == CastOp::FloatToInt),
            OpKind::IntTrueDiv => Facts::arith(true),
            OpKind::IntUn(_)
            | OpKind::FloatUn(_)
            | OpKind::IntCmp(_)
            | OpKind::FloatCmp(_)
            | OpKind::BoolCmp(_)
            | OpKind::BoolBin(_)
            | OpKind::Not => Facts::arith(false),
            // `math.*`, one element of a float tensor op, tuples, optionals: the same.
            OpKind::Math(m) => Facts::value(m.may_raise()),
            OpKind::Index(k) => Facts::value(*k == IndexKind::Slice),
            OpKind::TensorLoad | OpKind::OptUnwrap => Facts::value(true),
            OpKind::Const(_)
            | OpKind::Elem(..)
            | OpKind::Select
            | OpKind::TupleNew
            | OpKind::TupleGet(_)
            | OpKind::OptNone
            | OpKind::OptWrap
            | OpKind::OptIsNone
            | OpKind::Undef => Facts::value(false),
            // One element written, raising on purpose, transferring control, guards.
            OpKind::TensorStore | OpKind::Raise(_) | OpKind::Check(_) => Facts::effect(true),
            OpKind::Yield | OpKind::Return | OpKind::Guard { .. } => Facts::effect(false),
            // Lists, dicts and strings: the time grows with their sizes.
            OpKind::ListNew
            | OpKind::DictNew
            | OpKind::DictKeys
            | OpKind::DictValues
            | OpKind::DictItems => Facts::sized(false, false, true),
            OpKind::ListGet | OpKind::DictGet | OpKind::StrOf(_) | OpKind::StrNumPy => {
                Facts::sized(false, true, false)
            }
            OpKind::ListLen | OpKind::DictContains | OpKind::DictLen | OpKind::StrConcat => {
                Facts::sized(false, false, false)
            }
            OpKind::ListSet => Facts::sized(true, true, false),
            OpKind::ListAppend | OpKind::DictSet | OpKind::Print => {
                Facts::sized(true, false, false)
            }
            // Tensor kernels, and ops with regions or a callee (what their regions or callee do
            // may be anything, for the pass to inspect itself).
            OpKind::Tensor(id) => Facts::sized(
                crate::schema::is_inplace(*id),
                true,
                crate::schema::returns_mutable(*id),
            ),
            OpKind::Fused => Facts::sized(false, true, true),
            OpKind::Loop | OpKind::Call(_) => Facts::sized(true, true, true),
            OpKind::If => Facts {
                constant_time: true,
                ..Facts::sized(true, true, true)
            },
        }
    }

    /// No side effects, cannot raise, no fresh mutable result: two instances with equal
    /// operands always give equal results, and an unused one can always be deleted.
    pub fn is_pure(&self) -> bool {
        !self.has_side_effects() && !self.may_raise() && !self.returns_fresh_object()
    }

    /// The op's name in the text format (`int.add`, `tensor.max.dim`, `if` …).
    pub fn name(&self) -> String {
        match self {
            OpKind::Tensor(id) => format!("tensor.{}", crate::schema::op_name(*id)),
            OpKind::Math(m) => format!("math.{}", m.name()),
            OpKind::Elem(f, p) => format!("elem.{}.{}", f.name(), p.name()),
            OpKind::Index(k) => format!("index.{}", k.name()),
            other => simple_name(other).unwrap_or("?").to_string(),
        }
    }
}

/// Names of the kinds without a payload in the name, and the reverse map for the parser.
pub(crate) fn simple_name(kind: &OpKind) -> Option<&'static str> {
    SIMPLE_KINDS
        .iter()
        .find(|(_, k)| same_simple(k, kind))
        .map(|(n, _)| *n)
}

/// Whether two kinds are the same, ignoring payloads that are not part of the name
/// (const values, tuple indices, class names, messages, callees).
fn same_simple(a: &OpKind, b: &OpKind) -> bool {
    match (a, b) {
        (OpKind::Const(_), OpKind::Const(_))
        | (OpKind::TupleGet(_), OpKind::TupleGet(_))
        | (OpKind::StrOf(_), OpKind::StrOf(_))
        | (OpKind::Raise(_), OpKind::Raise(_))
        | (OpKind::Check(_), OpKind::Check(_))
        | (OpKind::Guard { .. }, OpKind::Guard { .. })
        | (OpKind::Call(_), OpKind::Call(_)) => true,
        _ => a == b,
    }
}

/// Every kind whose name does not come from a table elsewhere, with placeholder payloads.
pub(crate) static SIMPLE_KINDS: std::sync::LazyLock<Vec<(&'static str, OpKind)>> =
    std::sync::LazyLock::new(|| {
        vec![
            ("const", OpKind::Const(Const::None)),
            ("int.add", OpKind::IntBin(IntBinOp::Add)),
            ("int.sub", OpKind::IntBin(IntBinOp::Sub)),
            ("int.mul", OpKind::IntBin(IntBinOp::Mul)),
            ("int.floordiv", OpKind::IntBin(IntBinOp::FloorDiv)),
            ("int.mod", OpKind::IntBin(IntBinOp::Mod)),
            ("int.pow", OpKind::IntBin(IntBinOp::Pow)),
            ("int.and", OpKind::IntBin(IntBinOp::BitAnd)),
            ("int.or", OpKind::IntBin(IntBinOp::BitOr)),
            ("int.xor", OpKind::IntBin(IntBinOp::BitXor)),
            ("int.shl", OpKind::IntBin(IntBinOp::Shl)),
            ("int.shr", OpKind::IntBin(IntBinOp::Shr)),
            ("int.neg", OpKind::IntUn(IntUnOp::Neg)),
            ("int.invert", OpKind::IntUn(IntUnOp::Invert)),
            ("int.abs", OpKind::IntUn(IntUnOp::Abs)),
            ("int.truediv", OpKind::IntTrueDiv),
            ("float.add", OpKind::FloatBin(FloatBinOp::Add)),
            ("float.sub", OpKind::FloatBin(FloatBinOp::Sub)),
            ("float.mul", OpKind::FloatBin(FloatBinOp::Mul)),
            ("float.div", OpKind::FloatBin(FloatBinOp::Div)),
            ("float.floordiv", OpKind::FloatBin(FloatBinOp::FloorDiv)),
            ("float.mod", OpKind::FloatBin(FloatBinOp::Mod)),
            ("float.pow", OpKind::FloatBin(FloatBinOp::Pow)),
            ("float.neg", OpKind::FloatUn(FloatUnOp::Neg)),
            ("float.abs", OpKind::FloatUn(FloatUnOp::Abs)),
            ("int.eq", OpKind::IntCmp(CmpOp::Eq)),
            ("int.ne", OpKind::IntCmp(CmpOp::Ne)),
            ("int.lt", OpKind::IntCmp(CmpOp::Lt)),
            ("int.le", OpKind::IntCmp(CmpOp::Le)),
            ("int.gt", OpKind::IntCmp(CmpOp::Gt)),
            ("int.ge", OpKind::IntCmp(CmpOp::Ge)),
            ("float.eq", OpKind::FloatCmp(CmpOp::Eq)),
            ("float.ne", OpKind::FloatCmp(CmpOp::Ne)),
            ("float.lt", OpKind::FloatCmp(CmpOp::Lt)),
            ("float.le", OpKind::FloatCmp(CmpOp::Le)),
            ("float.gt", OpKind::FloatCmp(CmpOp::Gt)),
            ("float.ge", OpKind::FloatCmp(CmpOp::Ge)),
            ("bool.eq", OpKind::BoolCmp(CmpOp::Eq)),
            ("bool.ne", OpKind::BoolCmp(CmpOp::Ne)),
            ("bool.lt", OpKind::BoolCmp(CmpOp::Lt)),
            ("bool.le", OpKind::BoolCmp(CmpOp::Le)),
            ("bool.gt", OpKind::BoolCmp(CmpOp::Gt)),
            ("bool.ge", OpKind::BoolCmp(CmpOp::Ge)),
            ("bool.and", OpKind::BoolBin(BoolBinOp::And)),
            ("bool.or", OpKind::BoolBin(BoolBinOp::Or)),
            ("bool.xor", OpKind::BoolBin(BoolBinOp::Xor)),
            ("bool.not", OpKind::Not),
            ("int.to_float", OpKind::Cast(CastOp::IntToFloat)),
            ("int.to_bool", OpKind::Cast(CastOp::IntToBool)),
            ("float.to_int", OpKind::Cast(CastOp::FloatToInt)),
            ("float.to_bool", OpKind::Cast(CastOp::FloatToBool)),
            ("bool.to_int", OpKind::Cast(CastOp::BoolToInt)),
            ("bool.to_float", OpKind::Cast(CastOp::BoolToFloat)),
            ("select", OpKind::Select),
            ("tensor.load", OpKind::TensorLoad),
            ("tensor.store", OpKind::TensorStore),
            ("tuple.new", OpKind::TupleNew),
            ("tuple.get", OpKind::TupleGet(0)),
            ("list.new", OpKind::ListNew),
            ("list.get", OpKind::ListGet),
            ("list.set", OpKind::ListSet),
            ("list.append", OpKind::ListAppend),
            ("list.len", OpKind::ListLen),
            ("dict.new", OpKind::DictNew),
            ("dict.get", OpKind::DictGet),
            ("dict.set", OpKind::DictSet),
            ("dict.contains", OpKind::DictContains),
            ("dict.len", OpKind::DictLen),
            ("dict.keys", OpKind::DictKeys),
            ("dict.values", OpKind::DictValues),
            ("dict.items", OpKind::DictItems),
            ("opt.none", OpKind::OptNone),
            ("opt.wrap", OpKind::OptWrap),
            ("opt.unwrap", OpKind::OptUnwrap),
            ("opt.is_none", OpKind::OptIsNone),
            ("str.of", OpKind::StrOf(String::new())),
            ("str.numpy", OpKind::StrNumPy),
            ("str.concat", OpKind::StrConcat),
            ("undef", OpKind::Undef),
            ("if", OpKind::If),
            ("loop", OpKind::Loop),
            ("fused", OpKind::Fused),
            ("yield", OpKind::Yield),
            ("return", OpKind::Return),
            ("raise", OpKind::Raise(String::new())),
            ("check", OpKind::Check(String::new())),
            (
                "guard",
                OpKind::Guard {
                    expected: Const::None,
                    message: String::new(),
                },
            ),
            ("print", OpKind::Print),
            ("call", OpKind::Call(FuncId::from_u32(0))),
        ]
    });

impl MathFn {
    pub const ALL: [MathFn; 30] = [
        MathFn::Sqrt,
        MathFn::Exp,
        MathFn::Expm1,
        MathFn::Log,
        MathFn::Log1p,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Erf,
        MathFn::Erfc,
        MathFn::Fabs,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Trunc,
        MathFn::Round,
        MathFn::IsNan,
        MathFn::IsInf,
        MathFn::IsFinite,
        MathFn::Pow,
        MathFn::Atan2,
        MathFn::Fmod,
        MathFn::Copysign,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Exp => "exp",
            MathFn::Expm1 => "expm1",
            MathFn::Log => "log",
            MathFn::Log1p => "log1p",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Tanh => "tanh",
            MathFn::Erf => "erf",
            MathFn::Erfc => "erfc",
            MathFn::Fabs => "fabs",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Trunc => "trunc",
            MathFn::Round => "round",
            MathFn::IsNan => "isnan",
            MathFn::IsInf => "isinf",
            MathFn::IsFinite => "isfinite",
            MathFn::Pow => "pow",
            MathFn::Atan2 => "atan2",
            MathFn::Fmod => "fmod",
            MathFn::Copysign => "copysign",
        }
    }

    /// Whether the function raises for some argument (a domain or range error, or an int
    /// conversion of NaN/inf); `fabs`, `copysign` and the predicates never do. Every function is
    /// listed, so a new one must say.
    pub fn may_raise(self) -> bool {
        match self {
            MathFn::Fabs
            | MathFn::Copysign
            | MathFn::IsNan
            | MathFn::IsInf
            | MathFn::IsFinite
            | MathFn::Atan
            | MathFn::Atan2
            | MathFn::Tanh
            | MathFn::Erf
            | MathFn::Erfc => false,
            MathFn::Sqrt
            | MathFn::Exp
            | MathFn::Expm1
            | MathFn::Log
            | MathFn::Log1p
            | MathFn::Log2
            | MathFn::Log10
            | MathFn::Sin
            | MathFn::Cos
            | MathFn::Tan
            | MathFn::Asin
            | MathFn::Acos
            | MathFn::Sinh
            | MathFn::Cosh
            | MathFn::Floor
            | MathFn::Ceil
            | MathFn::Trunc
            | MathFn::Round
            | MathFn::Pow
            | MathFn::Fmod => true,
        }
    }

    pub fn from_name(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Operand types and result type: all operands are `float`.
    pub fn signature(self) -> (usize, crate::Type) {
        use crate::Type;
        match self {
            MathFn::Floor | MathFn::Ceil | MathFn::Trunc | MathFn::Round => (1, Type::Int),
            MathFn::IsNan | MathFn::IsInf | MathFn::IsFinite => (1, Type::Bool),
            MathFn::Pow | MathFn::Atan2 | MathFn::Fmod | MathFn::Copysign => (2, Type::Float),
            _ => (1, Type::Float),
        }
    }
}

/// The text name of every op kind except tensor ops (whose names come from the schema table):
/// what an interpreter or a backend must cover.
pub fn builtin_op_names() -> Vec<String> {
    let mut names: Vec<String> = SIMPLE_KINDS.iter().map(|(n, _)| n.to_string()).collect();
    names.extend(MathFn::ALL.iter().map(|m| format!("math.{}", m.name())));
    for f in ElemFn::ALL {
        names.extend(
            Prec::ALL
                .iter()
                .map(|p| format!("elem.{}.{}", f.name(), p.name())),
        );
    }
    names.extend(IndexKind::ALL.iter().map(|k| format!("index.{}", k.name())));
    names
}

/// Looks up a kind by its text name (`int.add`, `math.sqrt`, `item.int`); kinds with payloads get
/// placeholder payloads the parser then fills in. Tensor ops are looked up in the schema table.
pub(crate) fn kind_from_name(name: &str) -> Option<OpKind> {
    if let Some(m) = name.strip_prefix("math.") {
        return MathFn::from_name(m).map(OpKind::Math);
    }
    if let Some(e) = name.strip_prefix("elem.") {
        let (f, p) = e.rsplit_once('.')?;
        return Some(OpKind::Elem(ElemFn::from_name(f)?, Prec::from_name(p)?));
    }
    if let Some(k) = name.strip_prefix("index.") {
        return IndexKind::ALL
            .into_iter()
            .find(|i| i.name() == k)
            .map(OpKind::Index);
    }
    if let Some(t) = name.strip_prefix("tensor.")
        && let Some(id) = crate::schema::lookup_op(t)
    {
        return Some(OpKind::Tensor(id));
    }
    SIMPLE_KINDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| k.clone())
}
