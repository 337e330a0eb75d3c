//! What the pass tests share: the reference interpreter as the oracle.

use pyjit_interp::{Config, Interpreter, Value};
use pyjit_ir::{FuncId, Module};

/// Runs function `id` of `m` on `args` in the reference interpreter and renders what happened:
/// `ok RESULT` or `error KIND: MESSAGE`, then what it printed. An optimized module is correct
/// when it renders the same.
pub fn outcome(m: &Module, id: FuncId, args: Vec<Value>) -> String {
    let mut out = Vec::new();
    let r = Interpreter::new(m, Config::default(), &mut out).call(id, args);
    let printed = String::from_utf8_lossy(&out).into_owned();
    match r {
        Ok(v) => format!("ok {}\n{printed}", pyjit_interp::format::py_str(&v)),
        Err(e) => format!("error {}: {}\n{printed}", e.kind, e.message),
    }
}
