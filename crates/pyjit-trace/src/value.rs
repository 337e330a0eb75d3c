//! The dynamically typed values of the eager evaluator: Python's objects as far as the language
//! (and the extra Python the tracer accepts) needs them.

use pyjit_interp::Value as IValue;
use pyjit_runtime::{DType, Tensor};
use pyjit_syntax::ast;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The most elements a range or a repeated sequence may materialize (beyond: `MemoryError`).
pub(crate) const MAX_MATERIALIZED: u64 = 1 << 27;

/// A tensor and, while tracing, the IR value that computes it.
#[derive(Clone, Debug)]
pub struct TVal {
    pub t: Tensor,
    pub ir: Option<pyjit_ir::Value>,
}

/// A Python object.
#[derive(Clone, Debug)]
pub enum PyVal {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    DType(DType),
    Tensor(TVal),
    Tuple(Rc<Vec<PyVal>>),
    List(Rc<RefCell<Vec<PyVal>>>),
    /// Insertion-ordered, keys compared with Python's `==` (str, int, float, bool, None, tuples).
    Dict(Rc<RefCell<Vec<(PyVal, PyVal)>>>),
    Func(Rc<Callable>),
    /// A module or namespace (`torch`, `math`, `torch.nn.functional`, `numpy`, `typing`) by its
    /// canonical dotted name.
    Module(Rc<str>),
    /// A type object usable in `isinstance` and as a conversion (`int`, `float`, `list` …).
    Type(&'static str),
    /// `...`
    Ellipsis,
    /// A `torch.device`: always the CPU (`x.device`, `torch.device("cpu")`).
    Device,
    /// `range(start, stop, step)` (step ≠ 0), iterated lazily by `for`.
    Range(i64, i64, i64),
    /// A scalar argument of the traced function that is still a graph input: tensor ops take
    /// it as an IR value; any Python use of its value makes it a guarded constant.
    Sym(Rc<Sym>),
    /// A class of the module (methods and class attributes).
    Class(Rc<ClassInfo>),
    /// An instance of a module class.
    Object(Rc<Object>),
}

/// A class defined in the module.
#[derive(Debug)]
pub struct ClassInfo {
    pub name: String,
    pub methods: HashMap<String, Rc<ast::FunctionDef>>,
    pub attrs: RefCell<HashMap<String, PyVal>>,
}

/// An instance: its class and its attributes.
#[derive(Debug)]
pub struct Object {
    pub class: Rc<ClassInfo>,
    pub dict: RefCell<HashMap<String, PyVal>>,
}

/// See [`PyVal::Sym`].
#[derive(Debug)]
pub struct Sym {
    /// The example value (an `Int`, `Float` or `Bool`).
    pub value: PyVal,
    pub ir: pyjit_ir::Value,
    /// The parameter's name and span (for the guard and its warning).
    pub what: String,
    pub span: pyjit_syntax::Span,
}

/// The number of elements of `range(start, stop, step)`.
pub(crate) fn range_len(start: i64, stop: i64, step: i64) -> u64 {
    let (start, stop, step) = (start as i128, stop as i128, step as i128);
    let n = if step > 0 {
        (stop - start + step - 1) / step
    } else {
        (start - stop - step - 1) / -step
    };
    n.max(0) as u64
}

/// Something callable.
#[derive(Debug)]
pub enum Callable {
    /// A function of the module, by name.
    User(String),
    /// A `lambda` or nested `def`, with the variables it closed over (captured by value when
    /// created; Python's late binding differs only if the enclosing variable is later rebound).
    Closure {
        name: String,
        params: Rc<ast::Parameters>,
        body: ClosureBody,
        env: HashMap<String, PyVal>,
        /// Parameter defaults, evaluated when the closure was created (as Python does).
        defaults: HashMap<String, PyVal>,
    },
    /// A builtin or library function by canonical dotted name (`len`, `torch.zeros`, `math.sqrt`).
    Builtin(String),
    /// A bound method (`x.sum`, `lst.append`, `d.items`).
    Method { recv: PyVal, name: String },
    /// A method of a module class bound to an instance.
    BoundMethod {
        def: Rc<ast::FunctionDef>,
        recv: PyVal,
    },
}

#[derive(Debug)]
pub enum ClosureBody {
    Expr(Rc<ast::Expr>),
    Stmts(Rc<Vec<ast::Stmt>>),
}

impl PyVal {
    pub fn str(s: impl AsRef<str>) -> PyVal {
        PyVal::Str(Rc::from(s.as_ref()))
    }

    pub fn list(items: Vec<PyVal>) -> PyVal {
        PyVal::List(Rc::new(RefCell::new(items)))
    }

    pub fn tuple(items: Vec<PyVal>) -> PyVal {
        PyVal::Tuple(Rc::new(items))
    }

    pub fn tensor(t: Tensor, ir: Option<pyjit_ir::Value>) -> PyVal {
        PyVal::Tensor(TVal { t, ir })
    }

    /// Python's name of the value's type, as in `TypeError` messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyVal::None => "NoneType",
            PyVal::Bool(_) => "bool",
            PyVal::Int(_) => "int",
            PyVal::Float(_) => "float",
            PyVal::Str(_) => "str",
            PyVal::DType(_) => "torch.dtype",
            PyVal::Tensor(_) => "Tensor",
            PyVal::Tuple(_) => "tuple",
            PyVal::List(_) => "list",
            PyVal::Dict(_) => "dict",
            PyVal::Func(_) => "function",
            PyVal::Module(_) => "module",
            PyVal::Type(_) => "type",
            PyVal::Ellipsis => "ellipsis",
            PyVal::Device => "torch.device",
            PyVal::Range(..) => "range",
            PyVal::Sym(s) => s.value.type_name(),
            PyVal::Class(_) => "type",
            PyVal::Object(_) => "object",
        }
    }

    /// The elements of a list or tuple (a snapshot).
    pub fn sequence(&self) -> Option<Vec<PyVal>> {
        match self {
            PyVal::List(l) => Some(l.borrow().clone()),
            PyVal::Tuple(t) => Some(t.to_vec()),
            PyVal::Range(a, b, c) if range_len(*a, *b, *c) <= MAX_MATERIALIZED => Some(
                (0..range_len(*a, *b, *c) as i64)
                    .map(|i| PyVal::Int(a.wrapping_add(i.wrapping_mul(*c))))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Python's `repr`.
    pub fn repr(&self) -> String {
        match self {
            PyVal::Str(s) => pyjit_value::format::py_repr(&IValue::str(s)),
            PyVal::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(PyVal::repr).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            PyVal::List(l) => {
                let parts: Vec<String> = l.borrow().iter().map(PyVal::repr).collect();
                format!("[{}]", parts.join(", "))
            }
            PyVal::Dict(d) => {
                let parts: Vec<String> = d
                    .borrow()
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.repr(), v.repr()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            PyVal::Func(c) => match &**c {
                Callable::User(n) => format!("<function {n}>"),
                Callable::Closure { name, .. } => format!("<function {name}>"),
                Callable::Builtin(n) => format!("<built-in function {n}>"),
                Callable::Method { name, .. } => format!("<bound method {name}>"),
                Callable::BoundMethod { def, .. } => format!("<bound method {}>", def.name.name),
            },
            PyVal::Module(m) => format!("<module '{m}'>"),
            PyVal::Type(t) => format!("<class '{t}'>"),
            PyVal::Ellipsis => "Ellipsis".into(),
            PyVal::Device => "device(type='cpu')".into(),
            PyVal::Sym(s) => s.value.repr(),
            PyVal::Class(c) => format!("<class '{}'>", c.name),
            PyVal::Object(o) => format!("<{} object>", o.class.name),
            PyVal::Range(a, b, 1) => format!("range({a}, {b})"),
            PyVal::Range(a, b, c) => format!("range({a}, {b}, {c})"),
            leaf => match to_interp_leaf(leaf) {
                Some(v) => pyjit_value::format::py_repr(&v),
                None => String::from("?"),
            },
        }
    }

    /// Python's `str` in a NumPy-style module: arrays and dtypes as NumPy writes them (what
    /// the op `str.numpy` gives); other objects as [`PyVal::to_str`].
    pub fn to_str_numpy(&self) -> String {
        match to_interp(self) {
            Ok(v) => {
                pyjit_value::format::py_str_styled(&v, pyjit_value::format::TensorStyle::NumPy)
            }
            Err(_) => self.to_str(),
        }
    }

    /// Python's `str`.
    pub fn to_str(&self) -> String {
        match self {
            PyVal::Str(s) => s.to_string(),
            PyVal::Device => "cpu".into(),
            other => other.repr(),
        }
    }
}

/// The runtime value of a Python scalar (`None`, a bool, int, float, str or dtype): the one the
/// interpreter's value of it has. `None` for any other object.
pub(crate) fn scalar_to_runtime(v: &PyVal) -> Option<pyjit_runtime::Value> {
    match v {
        PyVal::None
        | PyVal::Bool(_)
        | PyVal::Int(_)
        | PyVal::Float(_)
        | PyVal::Str(_)
        | PyVal::DType(_) => to_interp_leaf(v).map(|i| pyjit_value::generic_to_runtime(&i)),
        _ => None,
    }
}

fn to_interp_leaf(v: &PyVal) -> Option<IValue> {
    Some(match v {
        PyVal::None => IValue::None,
        PyVal::Bool(b) => IValue::Bool(*b),
        PyVal::Int(i) => IValue::Int(*i),
        PyVal::Float(f) => IValue::Float(*f),
        PyVal::Str(s) => IValue::str(s),
        PyVal::DType(d) => IValue::DType(*d),
        PyVal::Tensor(t) => IValue::Tensor(t.t.clone()),
        PyVal::Sym(s) => return to_interp_leaf(&s.value),
        _ => return None,
    })
}

/// Converts to the interpreter's value type (the project's common value type at API
/// boundaries). Functions and modules have no counterpart.
pub(crate) fn to_interp(v: &PyVal) -> Result<IValue, String> {
    Ok(match v {
        PyVal::Tuple(items) => {
            IValue::tuple(items.iter().map(to_interp).collect::<Result<_, _>>()?)
        }
        PyVal::List(l) => IValue::list(l.borrow().iter().map(to_interp).collect::<Result<_, _>>()?),
        PyVal::Dict(d) => {
            let out = pyjit_value::Dict::new();
            for (k, v) in d.borrow().iter() {
                let key = to_interp(k)?;
                let key = pyjit_value::DictKey::of(&key)
                    .ok_or_else(|| format!("dict with {} keys", k.type_name()))?;
                out.set(key, to_interp(v)?);
            }
            IValue::Dict(out)
        }
        leaf => to_interp_leaf(leaf).ok_or_else(|| leaf.type_name().to_string())?,
    })
}

/// Converts an interpreter value (an argument) to a Python object.
pub fn from_interp(v: &IValue) -> PyVal {
    match v {
        IValue::None => PyVal::None,
        IValue::Bool(b) => PyVal::Bool(*b),
        IValue::Int(i) => PyVal::Int(*i),
        IValue::Float(f) => PyVal::Float(*f),
        IValue::Str(s) => PyVal::str(s),
        IValue::DType(d) => PyVal::DType(*d),
        IValue::Tensor(t) => PyVal::tensor(t.clone(), None),
        IValue::Tuple(items) => PyVal::tuple(items.iter().map(from_interp).collect()),
        IValue::List(l) => PyVal::list(l.snapshot().iter().map(from_interp).collect()),
        IValue::Dict(d) => PyVal::Dict(std::rc::Rc::new(std::cell::RefCell::new(
            d.snapshot()
                .iter()
                .map(|(k, v)| (from_interp(&k.value()), from_interp(v)))
                .collect(),
        ))),
        IValue::Index(_) => PyVal::None,
    }
}
