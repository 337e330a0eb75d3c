//! The native backend of pyjit: lowers (specialized) IR to Cranelift and runs it as machine code
//! in memory. Scalars and control flow compile to straight-line Cranelift code with Python's
//! semantics inline (floor `//` and `%`, wrapping ints, IEEE floats); `if`/`loop` regions become
//! blocks with block parameters; calls between functions (recursion included) are native calls;
//! tuples are several native values. Tensors are the runtime's reference-counted ABI handles;
//! tensor ops, lists, strings and subscripts go through host functions registered explicitly
//! with `JITBuilder::symbol` that reuse the interpreter's value conversions, so both backends
//! share one meaning. Every function callable from Rust (a root, `Options::roots`) has one
//! trampoline (`ctx, *const u64 args, *mut u64 ret`); only the roots and what they call are compiled.
//!
//! This crate is the only one that imports Cranelift. It must never let native code crash the
//! process on user input: every fallible operation's status is checked, errors come back as
//! [`InterpError`] values with the op's span (the same class, message and location as the
//! interpreter's), references are released on every path, and recursion is bounded by a depth
//! limit rather than by the native stack. It never sees the AST or Python source.

mod fused;
mod host;
mod inline_math;
mod layout;
mod listing;
mod loop_consts;
mod lower;

pub use layout::{ScalarArg, live_object_count};
pub use pyjit_value::{InterpError, Value};

/// The arguments of a native call: any exact-size iterator of values will do (the facade's
/// per-call path passes an inline array, so nothing is allocated per call).
pub trait CallArgs: IntoIterator<Item = Value, IntoIter: ExactSizeIterator> {}

impl<A: IntoIterator<Item = Value, IntoIter: ExactSizeIterator>> CallArgs for A {}

use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, UserFuncName, types};
use cranelift_codegen::settings::Configurable;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId as ClFuncId, Linkage, Module as _};
use host::{Ctx, Site};
use layout::{Slot, slots_of};
use pyjit_ir::{EntityRef, FuncId, Type};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Errors of compilation (never of running: those are [`InterpError`]s).
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("invalid IR: {0}")]
    Verify(String),
    #[error("cranelift: {0}")]
    Cranelift(String),
    #[error("internal codegen error: {0}")]
    Internal(String),
    #[error("no function named `{0}`")]
    NoSuchFunction(String),
}

/// Cranelift's optimization level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OptLevel {
    None,
    #[default]
    Speed,
}

/// Above this many IR ops in one compiled function of a module, the module's functions are compiled
/// with Cranelift's single-pass register allocator instead of the backtracking one.
pub const SINGLE_PASS_REGALLOC_OPS: usize = 50_000;

/// Compilation settings.
#[derive(Clone, Debug)]
pub struct Options {
    pub opt_level: OptLevel,
    /// The deepest chain of calls a run may make; one more raises `RecursionError` (as the
    /// interpreter's `Config::max_call_depth`, default 1000 like Python).
    pub max_call_depth: u64,
    /// Run Cranelift's IR verifier on every function (on by default in debug builds).
    pub verify: bool,
    /// Keep the Cranelift IR text of every function (for `pyjit compile --emit clif`).
    pub keep_clif: bool,
    /// Keep the disassembly of every function (for `--emit asm`).
    pub keep_asm: bool,
    /// The functions to make callable: only they get an entry trampoline, and only they and
    /// the functions they call (transitively) are compiled. `None`: every function of the
    /// module. The facade passes the one function a call needs, so the callees that inlining
    /// made unreachable cost nothing.
    pub roots: Option<Vec<FuncId>>,
    /// Run counted loops of float32 (float64) element code eight (four) iterations at a time,
    /// with the same results (on by default; see `lower/vectorize.rs`). Off: every loop runs
    /// scalar.
    pub vectorize: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            opt_level: OptLevel::Speed,
            max_call_depth: 1000,
            verify: cfg!(debug_assertions),
            keep_clif: false,
            keep_asm: false,
            roots: None,
            vectorize: true,
        }
    }
}

/// Where compile time went.
#[derive(Clone, Debug, Default)]
pub struct CompileTimes {
    /// IR verification.
    pub verify: Duration,
    /// IR → Cranelift IR (our lowering).
    pub lower: Duration,
    /// Cranelift: optimization, register allocation, emission, linking.
    pub cranelift: Duration,
}

/// One function's code as the disassembler needs it: Cranelift's own listing (the fallback off
/// x86-64), the code size, and `(start, end, op index)` source locations.
type AsmPart = (String, usize, Vec<(u32, u32, u32)>);

struct FuncEntry {
    name: String,
    params: Vec<Type>,
    ret: Type,
    ret_kinds: Vec<Slot>,
    trampoline: *const u8,
    /// [`pyjit_ir::Function::runs_in_bounded_time`] of the function compiled.
    bounded: bool,
}

/// The compiled code and everything it refers to; freed when the last [`NativeModule`] or
/// [`NativeFunction`] referring to it goes away.
struct Compiled {
    jit: Option<JITModule>,
    funcs: Vec<FuncEntry>,
    sites: Vec<Site>,
    max_call_depth: u64,
}

// SAFETY: after `finalize_definitions` the JIT module is never mutated again (only freed on
// drop, when no other reference exists); the code it holds is immutable and reentrant (all
// per-call state lives in the `Ctx` each call allocates), and the site table is read-only.
unsafe impl Send for Compiled {}
// SAFETY: see above.
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(jit) = self.jit.take() {
            // SAFETY: no `NativeFunction` is left (each holds an `Arc<Compiled>`), so no code
            // pointer into this memory can be called any more.
            unsafe { jit.free_memory() };
        }
    }
}

/// A module compiled to machine code.
#[derive(Clone)]
pub struct NativeModule {
    inner: Arc<Compiled>,
    /// Per IR function: its index in `inner.funcs`, if it is callable (one of the roots).
    by_id: Vec<Option<usize>>,
    clif: Vec<(String, String)>,
    asm: Vec<(String, String)>,
    times: CompileTimes,
}

/// One callable compiled function. Cheap to clone, `Send + Sync`: many threads may call it at
/// once. It keeps the machine code alive.
#[derive(Clone)]
pub struct NativeFunction {
    inner: Arc<Compiled>,
    index: usize,
}

type Trampoline = unsafe extern "C" fn(*mut Ctx<'static>, *const u64, *mut u64);

impl NativeModule {
    /// Compiles the functions of `module` that [`Options::roots`] reach (each verified first).
    pub fn compile(
        module: &pyjit_ir::Module,
        options: &Options,
    ) -> Result<NativeModule, CodegenError> {
        let t0 = Instant::now();
        let verify_error = |errs: Vec<pyjit_ir::VerifyError>| {
            CodegenError::Verify(
                errs.iter()
                    .map(|e| format!("{e:?}"))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        };
        let roots: Vec<FuncId> = match &options.roots {
            Some(roots) => roots.clone(),
            None => module.funcs.keys().collect(),
        };
        // Only what is compiled is verified: the functions the roots reach (a caller's generic
        // functions, verified when they were made, are as big as its specialization).
        let reached = match module.reachable_from(&roots) {
            Ok((reached, _)) => reached,
            Err(id) => {
                pyjit_ir::verify_module(module).map_err(verify_error)?;
                return Err(CodegenError::Internal(format!(
                    "call of unknown function {id}"
                )));
            }
        };
        let compiled: Vec<FuncId> = module
            .funcs
            .keys()
            .filter(|id| reached[id.index()])
            .collect();
        let errs: Vec<pyjit_ir::VerifyError> = compiled
            .iter()
            .filter_map(|&id| pyjit_ir::verify_function(module, id).err())
            .flatten()
            .collect();
        if !errs.is_empty() {
            return Err(verify_error(errs));
        }
        let mut times = CompileTimes {
            verify: t0.elapsed(),
            ..CompileTimes::default()
        };

        let mut flags = cranelift_codegen::settings::builder();
        let set = |flags: &mut cranelift_codegen::settings::Builder, k: &str, v: &str| {
            flags
                .set(k, v)
                .map_err(|e| CodegenError::Cranelift(format!("setting {k}={v}: {e}")))
        };
        set(&mut flags, "use_colocated_libcalls", "false")?;
        // JITBuilder::with_isa does not set this; the JIT needs absolute addresses.
        set(&mut flags, "is_pic", "false")?;
        set(
            &mut flags,
            "opt_level",
            match options.opt_level {
                OptLevel::None => "none",
                OptLevel::Speed => "speed",
            },
        )?;
        set(
            &mut flags,
            "enable_verifier",
            if options.verify { "true" } else { "false" },
        )?;
        // Tuple returns can exceed the return registers.
        set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
        // The backtracking register allocator makes better code but grows faster than the
        // function on huge ones (an `elif` chain of 50,000 branches: 70 s against 25 s in
        // all, benches/README.md); the single-pass one is linear.
        let largest = compiled
            .iter()
            .map(|&id| {
                let mut n = 0usize;
                module.func(id).walk(&mut |_| n += 1);
                n
            })
            .max()
            .unwrap_or(0);
        if largest > SINGLE_PASS_REGALLOC_OPS {
            set(&mut flags, "regalloc_algorithm", "single_pass")?;
        }
        let isa = cranelift_native::builder()
            .map_err(|e| CodegenError::Cranelift(format!("host not supported: {e}")))?
            .finish(cranelift_codegen::settings::Flags::new(flags))
            .map_err(|e| CodegenError::Cranelift(e.to_string()))?;
        let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        for (name, ptr) in host::symbols() {
            jb.symbol(name, ptr);
        }
        let mut jit = JITModule::new(jb);
        let cl = |e: cranelift_module::ModuleError| CodegenError::Cranelift(format!("{e:?}"));

        let mut host_ids = HashMap::new();
        for (name, params, rets) in lower::host_signatures() {
            let mut sig = jit.make_signature();
            sig.params.extend(params.into_iter().map(AbiParam::new));
            sig.returns.extend(rets.into_iter().map(AbiParam::new));
            host_ids.insert(
                name,
                jit.declare_function(name, Linkage::Import, &sig)
                    .map_err(cl)?,
            );
        }
        // Cranelift's id of each compiled function (`None`: not compiled).
        let mut ids: Vec<Option<ClFuncId>> = vec![None; module.funcs.len()];
        for &id in &compiled {
            let f = module.func(id);
            let sig = lower::signature(&jit, f);
            ids[id.index()] = Some(
                jit.declare_function(&format!("pyjit_f{}", id.as_u32()), Linkage::Local, &sig)
                    .map_err(cl)?,
            );
        }

        // Cranelift's function index → the name listings show for it.
        let mut callees: HashMap<u32, String> = host_ids
            .iter()
            .map(|(name, id)| (id.as_u32(), name.to_string()))
            .collect();
        for (id, f) in module.funcs.iter() {
            if let Some(cid) = ids[id.index()] {
                callees.insert(cid.as_u32(), f.name.clone());
            }
        }
        let mut sites = Vec::new();
        let mut clif = Vec::new();
        let mut asm = Vec::new();
        // Per function (with `keep_asm`): Cranelift's listing (the fallback off x86-64), the code
        // size and the source locations, for the disassembly once the code is finalized.
        let mut asm_parts: Vec<AsmPart> = Vec::new();
        let mut fctx = FunctionBuilderContext::new();
        let mut ctx = jit.make_context();
        for &id in &compiled {
            let f = module.func(id);
            let Some(cid) = ids[id.index()] else {
                continue;
            };
            let t = Instant::now();
            ctx.func.signature = lower::signature(&jit, f);
            ctx.func.name = UserFuncName::user(0, id.as_u32());
            let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let lowering = lower::Lowering::new(
                f,
                b,
                &mut jit,
                &host_ids,
                &ids,
                &mut sites,
                options.vectorize,
            );
            let result = lowering.lower_function();
            let b = match result {
                Ok(b) => b,
                Err(e) => {
                    // Both contexts are dropped here; a caller retrying compiles afresh.
                    jit.clear_context(&mut ctx);
                    return Err(e);
                }
            };
            b.finalize(jit.target_config());
            loop_consts::keep_in_registers(&mut ctx.func);
            if options.keep_clif {
                let text = ctx.func.display().to_string();
                let src = module.source.as_deref();
                clif.push((
                    f.name.clone(),
                    listing::annotate_clif(&text, &f.name, f, src, &callees),
                ));
            }
            times.lower += t.elapsed();
            let t = Instant::now();
            ctx.set_disasm(options.keep_asm);
            jit.define_function(cid, &mut ctx)
                .map_err(|e| CodegenError::Cranelift(format!("{}: {e:?}", f.name)))?;
            if options.keep_asm
                && let Some(code) = ctx.compiled_code()
            {
                let srclocs = code
                    .buffer
                    .get_srclocs_sorted()
                    .iter()
                    .filter(|s| !s.loc.is_default())
                    .map(|s| (s.start, s.end, s.loc.bits()))
                    .collect();
                asm_parts.push((
                    code.vcode.clone().unwrap_or_default(),
                    code.buffer.data().len(),
                    srclocs,
                ));
            }
            jit.clear_context(&mut ctx);
            times.cranelift += t.elapsed();
        }
        // The entry trampolines of the roots: one signature for every function.
        let t = Instant::now();
        let mut by_id: Vec<Option<usize>> = vec![None; module.funcs.len()];
        let mut tramps = Vec::new();
        for &id in &roots {
            if by_id[id.index()].is_some() {
                continue;
            }
            let inner = ids[id.index()]
                .ok_or_else(|| CodegenError::Internal(format!("root {id} was not compiled")))?;
            let tid = build_trampoline(&mut jit, &mut ctx, &mut fctx, inner, id, module.func(id))?;
            by_id[id.index()] = Some(tramps.len());
            tramps.push((id, tid));
        }
        times.cranelift += t.elapsed();
        let t = Instant::now();
        jit.finalize_definitions().map_err(cl)?;
        times.cranelift += t.elapsed();
        if options.keep_asm {
            let mut symbols: HashMap<u64, String> = host::symbols()
                .into_iter()
                .map(|(name, ptr)| (ptr as u64, name.to_string()))
                .collect();
            let finalized: Vec<(&pyjit_ir::Function, *const u8)> = compiled
                .iter()
                .filter_map(|&id| {
                    let cid = ids[id.index()]?;
                    Some((module.func(id), jit.get_finalized_function(cid)))
                })
                .collect();
            for &(f, ptr) in &finalized {
                symbols.insert(ptr as u64, f.name.clone());
            }
            for (&(f, ptr), (vcode, len, srclocs)) in finalized.iter().zip(asm_parts) {
                // SAFETY: `ptr` is the start of this function's finalized code, `len` bytes long
                // (the size Cranelift emitted); the memory is mapped readable and stays alive
                // as long as `jit`.
                let bytes = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
                let code = listing::Code {
                    name: f.name.clone(),
                    address: ptr as u64,
                    bytes,
                    srclocs,
                };
                let text = listing::disassemble(&code, f, module.source.as_deref(), &symbols)
                    .unwrap_or(vcode);
                asm.push((f.name.clone(), text));
            }
        }
        let funcs = tramps
            .iter()
            .map(|&(id, tid)| (module.func(id), tid))
            .map(|(f, tid)| FuncEntry {
                name: f.name.clone(),
                params: f.param_types(),
                ret: f.ret.clone(),
                ret_kinds: slots_of(&f.ret),
                trampoline: jit.get_finalized_function(tid),
                bounded: f.runs_in_bounded_time(),
            })
            .collect();
        Ok(NativeModule {
            inner: Arc::new(Compiled {
                jit: Some(jit),
                funcs,
                sites,
                max_call_depth: options.max_call_depth,
            }),
            by_id,
            clif,
            asm,
            times,
        })
    }

    /// The compiled function `name`.
    pub fn function(&self, name: &str) -> Result<NativeFunction, CodegenError> {
        self.inner
            .funcs
            .iter()
            .position(|f| f.name == name)
            .map(|index| NativeFunction {
                inner: self.inner.clone(),
                index,
            })
            .ok_or_else(|| CodegenError::NoSuchFunction(name.into()))
    }

    /// The compiled function with IR id `id`.
    pub fn function_by_id(&self, id: FuncId) -> Option<NativeFunction> {
        let index = self.by_id.get(id.index()).copied().flatten()?;
        Some(NativeFunction {
            inner: self.inner.clone(),
            index,
        })
    }

    /// The Cranelift IR of each function (`(name, text)`), if compiled with `keep_clif`.
    pub fn clif(&self) -> &[(String, String)] {
        &self.clif
    }

    /// The disassembly of each function, if compiled with `keep_asm`.
    pub fn asm(&self) -> &[(String, String)] {
        &self.asm
    }

    pub fn times(&self) -> &CompileTimes {
        &self.times
    }
}

/// The Cranelift IR of every function of `module`, as `pyjit compile --emit clif` prints it.
pub fn emit_clif(module: &pyjit_ir::Module) -> Result<String, CodegenError> {
    let options = Options {
        keep_clif: true,
        ..Options::default()
    };
    emit_listing(module, &options, NativeModule::clif)
}

/// The machine code of every function of `module` as `pyjit compile --emit asm` prints it:
/// x86-64 disassembly (Intel syntax) of the finalized code, runtime calls by name, `# file.py:line`
/// markers (Cranelift's own listing on other hosts).
pub fn emit_asm(module: &pyjit_ir::Module) -> Result<String, CodegenError> {
    let options = Options {
        keep_asm: true,
        ..Options::default()
    };
    emit_listing(module, &options, NativeModule::asm)
}

/// [`emit_clif`] or (`asm`) [`emit_asm`] of function `root` of `module` and the functions it
/// still calls, only: what runs when `root` is called (`pyjit compile -f NAME ARG...` lists the
/// specialization, not the generic function it was made from).
pub fn emit_listing_from(
    module: &pyjit_ir::Module,
    root: FuncId,
    asm: bool,
) -> Result<String, CodegenError> {
    let options = Options {
        keep_clif: !asm,
        keep_asm: asm,
        roots: Some(vec![root]),
        ..Options::default()
    };
    let listing = if asm {
        NativeModule::asm
    } else {
        NativeModule::clif
    };
    emit_listing(module, &options, listing)
}

/// `module` compiled with `options`, and its per-function `listing` joined.
fn emit_listing(
    module: &pyjit_ir::Module,
    options: &Options,
    listing: fn(&NativeModule) -> &[(String, String)],
) -> Result<String, CodegenError> {
    let m = NativeModule::compile(module, options)?;
    Ok(join_listing(listing(&m)))
}

fn join_listing(items: &[(String, String)]) -> String {
    let mut s = String::new();
    for (name, text) in items {
        s.push_str(&format!("; function {name}\n{text}\n"));
    }
    s
}

impl NativeFunction {
    pub fn name(&self) -> &str {
        &self.inner.funcs[self.index].name
    }

    pub fn param_types(&self) -> &[Type] {
        &self.inner.funcs[self.index].params
    }

    pub fn return_type(&self) -> &Type {
        &self.inner.funcs[self.index].ret
    }

    /// Whether a call takes a bounded time whatever its arguments (the compiled function has no
    /// loop, call or tensor kernel: [`pyjit_ir::Function::runs_in_bounded_time`]).
    #[inline]
    pub fn runs_in_bounded_time(&self) -> bool {
        self.inner.funcs[self.index].bounded
    }

    /// Calls the function, writing `print` output to stdout.
    pub fn call(&self, args: &[Value]) -> Result<Value, InterpError> {
        self.call_with_output(args, &mut std::io::stdout())
    }

    /// Calls the function with `print` output going to `out`.
    pub fn call_with_output(
        &self,
        args: &[Value],
        out: &mut dyn Write,
    ) -> Result<Value, InterpError> {
        // Cloned one by one into the slots: no argument vector is allocated per call.
        self.call_owned_with_output(args.iter().cloned(), out)
    }

    /// As [`NativeFunction::call_with_output`], consuming the arguments: a tensor argument
    /// becomes the callee's reference without a copy.
    pub fn call_owned_with_output(
        &self,
        args: impl CallArgs,
        out: &mut dyn Write,
    ) -> Result<Value, InterpError> {
        // The argument and result slot buffers are reused from call to call on this thread,
        // borrowed in place (a nested call, from a host function, finds them borrowed and uses
        // fresh ones): the call path allocates nothing of its own and moves no buffers.
        SLOT_BUFFERS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut buffers) => {
                let (slots, ret) = &mut *buffers;
                self.call_in_slots(args.into_iter(), out, slots, ret)
            }
            Err(_) => self.call_in_slots(args.into_iter(), out, &mut Vec::new(), &mut Vec::new()),
        })
    }

    /// [`NativeFunction::call_owned_with_output`] with the slot buffers to use.
    fn call_in_slots(
        &self,
        args: impl ExactSizeIterator<Item = Value>,
        out: &mut dyn Write,
        slots: &mut Vec<u64>,
        ret: &mut Vec<u64>,
    ) -> Result<Value, InterpError> {
        let nargs = args.len();
        let entry = &self.inner.funcs[self.index];
        let bad = |m: String| {
            let mut e = InterpError::new(
                pyjit_value::ExcKind::TypeError,
                m,
                pyjit_syntax::Span::DUMMY,
            );
            e.function = entry.name.clone();
            e
        };
        if nargs != entry.params.len() {
            return Err(bad(format!(
                "{}() takes {} argument(s) but {} were given",
                entry.name,
                entry.params.len(),
                nargs
            )));
        }
        slots.clear();
        let written = args
            .zip(&entry.params)
            .enumerate()
            .try_for_each(|(i, (a, t))| layout::value_into_slots(a, t, slots).map_err(|m| (i, m)));
        if let Err((i, m)) = written {
            // The slots written so far (every earlier argument's) own references.
            let kinds: Vec<Slot> = entry.params.iter().flat_map(slots_of).collect();
            layout::release_raw(&kinds, slots);
            return Err(bad(format!("argument {i} of {}(): {m}", entry.name)));
        }
        ret.clear();
        ret.resize(entry.ret_kinds.len().max(1), 0);
        self.invoke(slots, ret, out)
    }

    /// Calls a function whose parameters all take scalars (`int`, `float`, `bool`) with
    /// scalar arguments: their slots and the result's live on the stack, so the call touches
    /// no buffer and no thread-local (the facade's per-call path for scalar functions). Any
    /// other call — a parameter of another type, an argument that does not fit its
    /// parameter, more than [`SCALAR_CALL_SLOTS`] slots — takes the general path, with its
    /// errors.
    #[inline]
    pub fn call_scalars(
        &self,
        args: &[ScalarArg],
        out: &mut dyn Write,
    ) -> Result<Value, InterpError> {
        let entry = &self.inner.funcs[self.index];
        let mut slots = [0u64; SCALAR_CALL_SLOTS];
        let fits = args.len() == entry.params.len()
            && args.len() <= SCALAR_CALL_SLOTS
            && entry.ret_kinds.len() <= SCALAR_CALL_SLOTS
            && args
                .iter()
                .zip(&entry.params)
                .zip(&mut slots)
                .all(|((a, t), s)| a.slot(t).map(|v| *s = v).is_some());
        if !fits {
            return self.call_owned_with_output(args.iter().map(|a| a.to_value()), out);
        }
        let mut ret = [0u64; SCALAR_CALL_SLOTS];
        let nret = entry.ret_kinds.len().max(1);
        self.invoke(&slots[..args.len()], &mut ret[..nret], out)
    }

    /// Runs the trampoline on the parameters' `slots` (their references pass to the callee)
    /// with room for the result's slots in `ret`, and reads the result.
    #[inline]
    fn invoke(
        &self,
        slots: &[u64],
        ret: &mut [u64],
        out: &mut dyn Write,
    ) -> Result<Value, InterpError> {
        let entry = &self.inner.funcs[self.index];
        let ret_kinds = &entry.ret_kinds;
        let mut ctx = Ctx {
            failed: 0,
            depth: 0,
            max_depth: self.inner.max_call_depth,
            sites: &self.inner.sites,
            error: None,
            out,
        };
        // SAFETY: the trampoline was produced by `compile` with exactly this signature; `slots`
        // holds the parameters' slots (ownership passes to the callee), `ret` has room for the
        // result slots, and the code stays alive through `self.inner`.
        unsafe {
            let f: Trampoline = std::mem::transmute(entry.trampoline);
            f(
                (&mut ctx as *mut Ctx<'_>).cast(),
                slots.as_ptr(),
                ret.as_mut_ptr(),
            );
        }
        if ctx.failed != 0 {
            return Err(ctx.error.take().unwrap_or_else(|| {
                InterpError::new(
                    pyjit_value::ExcKind::Internal,
                    "native code failed without an error",
                    pyjit_syntax::Span::DUMMY,
                )
            }));
        }
        // A scalar result (the per-call path's common case): its one slot, nothing to release.
        if let Some(v) = ret
            .first()
            .and_then(|&r| layout::scalar_of_slot(&entry.ret, r))
        {
            return Ok(v);
        }
        if let (Type::Tensor(_), [Slot::Tensor]) = (&entry.ret, ret_kinds.as_slice()) {
            // A tensor result takes over the result slot's reference (no copy of the tensor
            // when native code holds no other).
            // SAFETY: on success the result slot holds a live handle owned by us.
            return Ok(
                match unsafe {
                    pyjit_runtime::abi::tensor_from_handle(
                        ret[0] as *mut pyjit_runtime::abi::PjTensor,
                    )
                } {
                    Some(t) => Value::Tensor(t),
                    None => Value::None,
                },
            );
        }
        let mut pos = 0;
        // SAFETY: on success the result slots hold live references owned by us.
        let v = unsafe { layout::slots_to_value(&entry.ret, ret, &mut pos) };
        layout::release_raw(ret_kinds, ret);
        Ok(v)
    }
}

/// The most slots (arguments, or result) of a [`NativeFunction::call_scalars`] call kept on the
/// stack.
pub const SCALAR_CALL_SLOTS: usize = 8;

thread_local! {
    /// [`NativeFunction::call_with_output`]'s argument and result slot buffers, kept between
    /// calls.
    static SLOT_BUFFERS: std::cell::RefCell<(Vec<u64>, Vec<u64>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// `extern "C" fn(ctx, args: *const u64, ret: *mut u64)`: loads the parameters' slots, calls the
/// function, stores its result slots.
fn build_trampoline(
    jit: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    fctx: &mut FunctionBuilderContext,
    inner: ClFuncId,
    id: FuncId,
    f: &pyjit_ir::Function,
) -> Result<ClFuncId, CodegenError> {
    let mut sig = jit.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I64));
    }
    let tid = jit
        .declare_function(
            &format!("pyjit_f{}_entry", id.as_u32()),
            Linkage::Local,
            &sig,
        )
        .map_err(|e| CodegenError::Cranelift(format!("{e:?}")))?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(1, id.as_u32());
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let blk = b.create_block();
        b.append_block_params_for_function_params(blk);
        b.switch_to_block(blk);
        let p = b.block_params(blk).to_vec();
        let (c, args, ret) = (p[0], p[1], p[2]);
        let flags = MemFlagsData::trusted();
        let mut call_args = vec![c];
        let kinds: Vec<Slot> = f.param_types().iter().flat_map(slots_of).collect();
        for (i, &k) in kinds.iter().enumerate() {
            call_args.push(
                b.ins()
                    .load(lower::clif_type(k), flags, args, (i * 8) as i32),
            );
        }
        let r = jit.declare_func_in_func(inner, b.func);
        let inst = b.ins().call(r, &call_args);
        let res = b.inst_results(inst).to_vec();
        for (i, (&v, k)) in res.iter().zip(slots_of(&f.ret)).enumerate() {
            let v = if k == Slot::Bool {
                b.ins().uextend(types::I64, v)
            } else {
                v
            };
            b.ins().store(flags, v, ret, (i * 8) as i32);
        }
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(jit.target_config());
    }
    jit.define_function(tid, ctx)
        .map_err(|e| CodegenError::Cranelift(format!("trampoline of {}: {e:?}", f.name)))?;
    jit.clear_context(ctx);
    Ok(tid)
}

/// Compiled functions can be shared across threads (checked at compile time).
const _: () = {
    const fn is_send_sync<T: Send + Sync>() {}
    is_send_sync::<NativeFunction>();
    is_send_sync::<NativeModule>();
};
