//! The pass manager: pipelines per optimization level, explicit pass lists, IR dumps after
//! passes, timings, per-pass statistics, the verifier after every pass, and `--opt-limit`.
//!
//! The CLI maps its flags one to one onto [`PipelineConfig`]:
//!
//! | flag | field |
//! |---|---|
//! | `-O0` / `-O1` / `-O2` | [`PipelineConfig::level`] |
//! | `--passes a,b,c` | [`PipelineConfig::passes`] (via [`PipelineConfig::parse_pass_list`]) |
//! | `--print-after-all` | [`PipelineConfig::print_after_all`] |
//! | `--print-after=PASS` | [`PipelineConfig::print_after`] |
//! | `--print-changed` | [`PipelineConfig::print_changed`] |
//! | `--time-passes` | [`PipelineConfig::time_passes`] (timings are always measured; this asks to show them) |
//! | `--opt-limit PASS=N` | [`PipelineConfig::opt_limit`] (via [`PipelineConfig::add_opt_limit`]) |
//! | `--fastmath` | [`PipelineConfig::fastmath`] (not a pass: see [`crate::fastmath`]) |
//!
//! then calls [`run_pipeline`] and prints [`PassReport::render`].

use crate::passes::{self, PassCtx, PassOptions, PassStats, util};
use pyjit_ir::{FuncId, Module, VerifyError, print_module};
use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

/// An optimization level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OptLevel {
    /// No passes.
    O0,
    /// Cheap cleanups: canonicalize, fold, simplify, CSE, DCE.
    #[default]
    O1,
    /// Everything: inlining, LICM and unrolling too, with a second cleanup round.
    O2,
}

impl OptLevel {
    /// `0`, `1`, `2` (also `O2`, `-O2`).
    pub fn parse(s: &str) -> Option<OptLevel> {
        match s.trim_start_matches('-').trim_start_matches('O') {
            "0" => Some(OptLevel::O0),
            "1" => Some(OptLevel::O1),
            "2" => Some(OptLevel::O2),
            _ => None,
        }
    }

    /// The default pipeline of the level.
    pub fn pipeline(self) -> &'static [&'static str] {
        match self {
            OptLevel::O0 => &[],
            OptLevel::O1 => &[
                "canonicalize",
                "constfold",
                "simplify",
                "tensor-access",
                "scalarize",
                "cse",
                "dce",
            ],
            OptLevel::O2 => &[
                "inline",
                "canonicalize",
                "constfold",
                "simplify",
                "tensor-access",
                "scalarize",
                "dce",
                "cse",
                "licm",
                "unroll",
                "canonicalize",
                "constfold",
                "simplify",
                "cse",
                "licm",
                "dce",
                "fuse",
            ],
        }
    }
}

impl fmt::Display for OptLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = match self {
            OptLevel::O0 => 0,
            OptLevel::O1 => 1,
            OptLevel::O2 => 2,
        };
        write!(f, "-O{n}")
    }
}

/// Everything that decides what the pass manager does (the CLI's optimization flags).
#[derive(Clone, Debug)]
pub struct PipelineConfig {
    pub level: OptLevel,
    /// An explicit pass list; overrides the level's pipeline when present.
    pub passes: Option<Vec<String>>,
    /// Keep a dump of the module after every pass.
    pub print_after_all: bool,
    /// Keep a dump of the module after each run of these passes.
    pub print_after: Vec<String>,
    /// Keep a dump of the module at the start and after each pass that changed its text (LLVM's
    /// `-print-changed`); the passes that changed nothing are listed in one line each.
    pub print_changed: bool,
    /// Show timings in [`PassReport::render`].
    pub time_passes: bool,
    /// Per pass name: apply only the first N rewrites (over all runs of that pass).
    pub opt_limit: HashMap<String, u64>,
    /// Run the verifier after every pass (default: in debug builds). A pass whose output does
    /// not verify is undone and the pipeline stops, with the error in the report.
    pub verify: bool,
    /// Thresholds of the heuristics.
    pub options: PassOptions,
    /// `--fastmath`: build the program's IR with the fast forms of math ops
    /// ([`crate::fastmath`]: `tanh` within 6.5 ulp instead of 0.88). Not a pass and not run by
    /// [`run_pipeline`]: a program applies it once to the module it is built from (at `-O0`
    /// too), so that every backend and the interpreter compute the same fast form.
    pub fastmath: bool,
}

impl Default for PipelineConfig {
    fn default() -> PipelineConfig {
        PipelineConfig {
            level: OptLevel::default(),
            passes: None,
            print_after_all: false,
            print_after: Vec::new(),
            print_changed: false,
            time_passes: false,
            opt_limit: HashMap::new(),
            verify: cfg!(debug_assertions),
            options: PassOptions::default(),
            fastmath: false,
        }
    }
}

/// A bad `--passes`/`--opt-limit`/`--print-after` argument.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

fn check_pass(name: &str) -> Result<(), ConfigError> {
    if passes::ALL_PASSES.contains(&name) {
        Ok(())
    } else {
        Err(ConfigError(format!(
            "unknown pass `{name}` (passes: {})",
            passes::ALL_PASSES.join(", ")
        )))
    }
}

impl PipelineConfig {
    /// The default pipeline of `level`.
    pub fn for_level(level: OptLevel) -> PipelineConfig {
        PipelineConfig {
            level,
            ..PipelineConfig::default()
        }
    }

    /// Parses `a,b,c` (`--passes`); every name must be a pass.
    pub fn parse_pass_list(list: &str) -> Result<Vec<String>, ConfigError> {
        let names: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        for n in &names {
            check_pass(n)?;
        }
        Ok(names)
    }

    /// Adds `PASS=N` (`--opt-limit`).
    pub fn add_opt_limit(&mut self, spec: &str) -> Result<(), ConfigError> {
        let (name, n) = spec
            .split_once('=')
            .ok_or_else(|| ConfigError(format!("`--opt-limit {spec}`: expected PASS=N")))?;
        check_pass(name.trim())?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| ConfigError(format!("`--opt-limit {spec}`: N must be a count")))?;
        self.opt_limit.insert(name.trim().to_string(), n);
        Ok(())
    }

    /// Adds `--print-after=PASS`.
    pub fn add_print_after(&mut self, name: &str) -> Result<(), ConfigError> {
        check_pass(name)?;
        self.print_after.push(name.to_string());
        Ok(())
    }

    /// The passes that will run, in order.
    pub fn pass_names(&self) -> Vec<String> {
        match &self.passes {
            Some(p) => p.clone(),
            None => self
                .level
                .pipeline()
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

/// One run of one pass.
#[derive(Clone, Debug)]
pub struct PassRun {
    pub pass: String,
    pub stats: PassStats,
    pub time: Duration,
    /// Attached ops in the module before and after.
    pub ops_before: usize,
    pub ops_after: usize,
    /// The module printed after the pass, when asked for.
    pub dump: Option<String>,
    /// With [`PipelineConfig::print_changed`]: whether the pass changed the module's text.
    pub changed: Option<bool>,
}

/// What the pipeline did.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    pub runs: Vec<PassRun>,
    pub ops_before: usize,
    pub ops_after: usize,
    pub total_time: Duration,
    /// The module before the first pass (with [`PipelineConfig::print_changed`]).
    pub start_dump: Option<String>,
    /// A pass whose output failed to verify (a compiler bug): its name and the errors. The
    /// module was restored to its state before that pass and the remaining passes were skipped.
    pub verify_failure: Option<(String, Vec<VerifyError>)>,
}

impl PassReport {
    /// Statistics summed per pass name, in first-run order.
    pub fn stats_by_pass(&self) -> Vec<(String, PassStats)> {
        let mut out: Vec<(String, PassStats)> = Vec::new();
        for r in &self.runs {
            match out.iter_mut().find(|(n, _)| *n == r.pass) {
                Some((_, s)) => s.add(&r.stats),
                None => out.push((r.pass.clone(), r.stats.clone())),
            }
        }
        out
    }

    /// The IR dumps (`--print-after…`, `--print-changed`), each under a `; ---- IR after PASS`
    /// header line; with `--print-changed`, the IR at the start first and a one-line note for
    /// each pass that changed nothing.
    pub fn dumps(&self) -> String {
        let mut s = String::new();
        if let Some(d) = &self.start_dump {
            s.push_str(&format!("; ---- IR at start ----\n{d}"));
        }
        for r in &self.runs {
            if let Some(d) = &r.dump {
                s.push_str(&format!("; ---- IR after {} ----\n{d}", r.pass));
            } else if r.changed == Some(false) {
                s.push_str(&format!(
                    "; ---- IR after {} omitted: no change ----\n",
                    r.pass
                ));
            }
        }
        s
    }

    /// The statistics table, with timings when `timings` is set (`--time-passes`).
    pub fn render(&self, timings: bool) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "{:<14} {:>6} {:>6}  {}\n",
            "pass", "ops", "Δops", "statistics"
        ));
        for r in &self.runs {
            let delta = r.ops_after as i64 - r.ops_before as i64;
            s.push_str(&format!(
                "{:<14} {:>6} {:>+6}  {}",
                r.pass,
                r.ops_after,
                delta,
                r.stats.summary()
            ));
            if timings {
                s.push_str(&format!("  ({:.3} ms)", r.time.as_secs_f64() * 1e3));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "total: {} -> {} ops",
            self.ops_before, self.ops_after
        ));
        if timings {
            s.push_str(&format!(
                " in {:.3} ms",
                self.total_time.as_secs_f64() * 1e3
            ));
        }
        s.push('\n');
        if let Some((p, errs)) = &self.verify_failure {
            s.push_str(&format!(
                "error: IR after `{p}` does not verify (pass undone):\n"
            ));
            for e in errs {
                s.push_str(&format!("  {e}\n"));
            }
        }
        s
    }
}

/// Runs the configured passes over `m` in order. Unknown pass names in `config.passes` are
/// skipped (validate them with [`PipelineConfig::parse_pass_list`] first).
pub fn run_pipeline(m: &mut Module, config: &PipelineConfig) -> PassReport {
    run_pipeline_from(m, config, None)
}

/// [`run_pipeline`] for the functions `roots` reach through calls (`None`: every function):
/// before each pass the reached set is found again (inlining removes calls), and the passes
/// leave the other functions as they are; the op counts of the report count the reached
/// functions only. A caller that runs the roots needs no more, and a module of many small
/// functions that inlining merged is not optimized once per dead callee.
pub fn run_pipeline_from(
    m: &mut Module,
    config: &PipelineConfig,
    roots: Option<&[FuncId]>,
) -> PassReport {
    let start = Instant::now();
    // The functions to optimize and their op count.
    let reach = |m: &Module| match roots {
        None => (None, util::module_op_count(m)),
        Some(roots) => match m.reachable_from(roots) {
            Ok((live, ops)) => (Some(live), ops),
            // A call of no function: optimize everything (the verifier reports the call).
            Err(_) => (None, util::module_op_count(m)),
        },
    };
    let (mut live, mut ops) = reach(m);
    let mut report = PassReport {
        ops_before: ops,
        ..PassReport::default()
    };
    let mut budgets: HashMap<String, u64> = config.opt_limit.clone();
    // The text the last pass left, to tell whether the next one changed it.
    let mut last_text = config.print_changed.then(|| print_module(m));
    report.start_dump = last_text.clone();
    for name in config.pass_names() {
        let Some(pass) = passes::lookup(&name) else {
            continue;
        };
        let budget = budgets.get(&name).copied();
        let mut ctx = PassCtx::new(config.options.clone(), budget);
        ctx.live = live.take();
        let backup = config.verify.then(|| m.clone());
        let ops_before = ops;
        let t = Instant::now();
        pass.run(m, &mut ctx);
        let time = t.elapsed();
        if let (Some(b), Some(left)) = (budgets.get_mut(&name), ctx.budget) {
            *b = left;
        }
        if let Some(backup) = backup
            && let Err(errs) = pyjit_ir::verify_module(m)
        {
            *m = backup;
            report.verify_failure = Some((name.clone(), errs));
            break;
        }
        let mut dump =
            (config.print_after_all || config.print_after.contains(&name)).then(|| print_module(m));
        let mut changed = None;
        if let Some(last) = &mut last_text {
            let now = dump.clone().unwrap_or_else(|| print_module(m));
            let differs = now != *last;
            changed = Some(differs);
            if differs {
                dump = Some(now.clone());
                *last = now;
            }
        }
        (live, ops) = reach(m);
        report.runs.push(PassRun {
            pass: name,
            stats: ctx.stats,
            time,
            ops_before,
            ops_after: ops,
            dump,
            changed,
        });
    }
    report.ops_after = ops;
    report.total_time = start.elapsed();
    report
}
