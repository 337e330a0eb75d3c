//! The optimization passes over the structured IR. Each pass lives in its own module whose doc
//! comment states what it guarantees; docs/passes.md collects them with the default pipelines.
//!
//! Every pass shares these rules:
//! - **Semantics are preserved exactly** on the reference interpreter: results, printed output,
//!   and errors (class and message) of every input. No pass deletes or reorders an op that may
//!   raise past another observable effect, and no pass changes a value's type (so no dtype or
//!   shape changes) or turns one float into another (signed zeros and NaNs included) — except
//!   `scalarize`, which gives 0-d float tensors that never escape element arithmetic the type
//!   `float`, computing the same bits.
//! - **Every output verifies** (the pass manager checks it after every pass in debug builds and
//!   tests).
//! - **Every rewrite asks [`PassCtx::allow`] first**, so `--opt-limit PASS=N` can stop a pass
//!   after its first N rewrites to bisect a miscompile.

use pyjit_ir::{EntityRef, FuncId, Module};

/// Declares the pass `$ty` named `$name` that runs `$run` (`fn(&mut Function, &mut PassCtx)`) on
/// each function of the module in turn, the shape of every pass that looks at one function at a
/// time.
macro_rules! function_pass {
    ($ty:ident, $name:literal, $description:literal, $run:path) => {
        pub struct $ty;

        impl $crate::passes::Pass for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn description(&self) -> &'static str {
                $description
            }
            fn run(&self, m: &mut pyjit_ir::Module, ctx: &mut $crate::passes::PassCtx) {
                for (id, f) in m.funcs.iter_mut() {
                    if ctx.is_live(id) {
                        $run(f, ctx);
                    }
                }
            }
        }
    };
}

pub mod access;
pub(crate) mod canonicalize;
pub mod constfold;
pub(crate) mod cse;
pub mod dce;
pub mod fuse;
pub mod inline;
pub mod licm;
pub mod scalarize;
pub(crate) mod simplify;
pub mod unroll;
pub mod util;

/// Counters a pass reports; the pass manager prints them per pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// Ops deleted (dead ops, merged duplicates, replaced ops, folded branches' ops …).
    pub removed: u64,
    /// Ops replaced by a constant or by an operand (constant folding and propagation).
    pub folded: u64,
    /// Ops moved out of a loop (LICM) or to the function entry (constant pooling).
    pub hoisted: u64,
    /// Algebraic rewrites and canonicalizations.
    pub simplified: u64,
    /// Calls inlined.
    pub inlined: u64,
    /// Loops fully unrolled.
    pub unrolled: u64,
    /// Rewrites performed (what `--opt-limit` counts).
    pub rewrites: u64,
    /// Rewrites skipped because the `--opt-limit` budget ran out.
    pub skipped: u64,
}

impl PassStats {
    pub fn add(&mut self, o: &PassStats) {
        self.removed += o.removed;
        self.folded += o.folded;
        self.hoisted += o.hoisted;
        self.simplified += o.simplified;
        self.inlined += o.inlined;
        self.unrolled += o.unrolled;
        self.rewrites += o.rewrites;
        self.skipped += o.skipped;
    }

    /// `removed=3 folded=2 …`, listing the non-zero counters.
    pub fn summary(&self) -> String {
        let fields = [
            ("removed", self.removed),
            ("folded", self.folded),
            ("hoisted", self.hoisted),
            ("simplified", self.simplified),
            ("inlined", self.inlined),
            ("unrolled", self.unrolled),
            ("rewrites", self.rewrites),
            ("skipped", self.skipped),
        ];
        let parts: Vec<String> = fields
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k}={n}"))
            .collect();
        if parts.is_empty() {
            "no change".to_string()
        } else {
            parts.join(" ")
        }
    }
}

/// Tunables of the passes (the heuristics' thresholds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOptions {
    /// Inline a callee whose body has at most this many ops.
    pub inline_max_size: usize,
    /// Fully unroll a loop whose body has at most this many ops … (TorchScript: 32)
    pub unroll_max_body: usize,
    /// … and whose constant trip count is at most this (TorchScript: 64) …
    pub unroll_max_trip: u64,
    /// … and whose unrolled copies add at most this many ops in total.
    pub unroll_max_total: u64,
    /// Fold tensor ops on constant tensors with at most this many elements.
    pub fold_max_numel: usize,
}

impl Default for PassOptions {
    fn default() -> PassOptions {
        PassOptions {
            inline_max_size: 64,
            unroll_max_body: 32,
            unroll_max_trip: 64,
            unroll_max_total: 512,
            fold_max_numel: 64,
        }
    }
}

/// What a pass gets besides the module: options, the rewrite budget and its counters.
#[derive(Clone, Debug, Default)]
pub struct PassCtx {
    pub options: PassOptions,
    /// Rewrites still allowed (`None`: unlimited).
    pub budget: Option<u64>,
    pub stats: PassStats,
    /// The functions to optimize, indexed by [`FuncId::index`] (`None`: all). The pass
    /// manager sets it when the pipeline runs for some roots ([`crate::manager::run_pipeline_from`]):
    /// a function they do not reach is left as it is.
    pub live: Option<Vec<bool>>,
}

impl PassCtx {
    pub fn new(options: PassOptions, budget: Option<u64>) -> PassCtx {
        PassCtx {
            options,
            budget,
            stats: PassStats::default(),
            live: None,
        }
    }

    /// Whether the pass should optimize function `id` (see [`PassCtx::live`]).
    pub fn is_live(&self, id: FuncId) -> bool {
        self.live
            .as_ref()
            .is_none_or(|l| l.get(id.index()).copied().unwrap_or(true))
    }

    /// Asks for one rewrite; `false` when the `--opt-limit` budget is exhausted (the pass must
    /// then leave that spot unchanged).
    pub fn allow(&mut self) -> bool {
        match &mut self.budget {
            Some(0) => {
                self.stats.skipped += 1;
                false
            }
            Some(n) => {
                *n -= 1;
                self.stats.rewrites += 1;
                true
            }
            None => {
                self.stats.rewrites += 1;
                true
            }
        }
    }
}

/// A pass over a whole module.
pub trait Pass {
    /// The name used by `--passes`, `--print-after` and `--opt-limit`.
    fn name(&self) -> &'static str;
    /// One line: what it does.
    fn description(&self) -> &'static str;
    fn run(&self, m: &mut Module, ctx: &mut PassCtx);
}

/// Every pass, by name, in the order docs/passes.md lists them.
pub const ALL_PASSES: &[&str] = &[
    "canonicalize",
    "constfold",
    "simplify",
    "dce",
    "cse",
    "inline",
    "licm",
    "unroll",
    "tensor-access",
    "scalarize",
    "fuse",
];

/// The pass called `name`.
pub fn lookup(name: &str) -> Option<Box<dyn Pass>> {
    Some(match name {
        "canonicalize" => Box::new(canonicalize::Canonicalize),
        "constfold" => Box::new(constfold::ConstFold),
        "simplify" => Box::new(simplify::Simplify),
        "dce" => Box::new(dce::Dce),
        "cse" => Box::new(cse::Cse),
        "inline" => Box::new(inline::Inline),
        "licm" => Box::new(licm::Licm),
        "unroll" => Box::new(unroll::Unroll),
        "tensor-access" => Box::new(access::TensorAccess),
        "scalarize" => Box::new(scalarize::Scalarize),
        "fuse" => Box::new(fuse::Fuse),
        _ => return None,
    })
}
