//! The optimization flags shared by `pyjit run` and `pyjit compile`: `-O0/-O1/-O2`
//! (`-O 2`, `--opt-level 2`), `--passes a,b,c`, `--print-after-all`, `--print-after=PASS`,
//! `--print-changed`,
//! `--time-passes`, `--opt-limit PASS=N`, and `--fastmath` (not a pass: the program's math
//! mode). They map one to one onto the pass manager's [`PipelineConfig`] (see
//! `docs/passes.md`); this module only parses them and prints the pass
//! reports (IR dumps, statistics, timings) to stderr.

use clap::Args;
use pyjit::opt::manager::{OptLevel, PassReport, PipelineConfig};

/// `-O` values: `0`, `1`, `2` (also `O2`).
fn parse_level(s: &str) -> Result<OptLevel, String> {
    OptLevel::parse(s).ok_or_else(|| format!("optimization level must be 0, 1 or 2, not `{s}`"))
}

#[derive(Args, Clone, Debug, Default)]
pub struct OptArgs {
    /// Optimization level: -O0 (no passes), -O1 (cleanups), -O2 (default: also inlining, LICM,
    /// unrolling).
    #[arg(short = 'O', long = "opt-level", value_name = "LEVEL", value_parser = parse_level)]
    pub level: Option<OptLevel>,
    /// Run exactly these passes, in this order, instead of the level's pipeline.
    #[arg(long, value_name = "a,b,c")]
    pub passes: Option<String>,
    /// Print the IR after every pass (stderr).
    #[arg(long)]
    pub print_after_all: bool,
    /// Print the IR after each run of PASS (stderr; repeatable).
    #[arg(long, value_name = "PASS")]
    pub print_after: Vec<String>,
    /// Print the IR at the start and after each pass that changed it (stderr), as LLVM's
    /// -print-changed; the passes that changed nothing get one line each.
    #[arg(long)]
    pub print_changed: bool,
    /// Print per-pass statistics and timings (stderr).
    #[arg(long)]
    pub time_passes: bool,
    /// Apply only the first N rewrites of PASS, to bisect a miscompile (repeatable).
    #[arg(long, value_name = "PASS=N")]
    pub opt_limit: Vec<String>,
    /// Fast math: float32 `tanh` by a cheaper kernel within 6.5 ulp (0.88 without); see the
    /// guide's "Math functions". Results change; nothing else does.
    #[arg(long)]
    pub fastmath: bool,
}

impl OptArgs {
    /// The pass manager's configuration; `Err` (an unknown pass, a bad `PASS=N`) is a usage
    /// error whose message lists the passes.
    pub fn config(&self) -> Result<PipelineConfig, String> {
        let mut config = PipelineConfig::for_level(self.level.unwrap_or(OptLevel::O2));
        if let Some(list) = &self.passes {
            config.passes =
                Some(PipelineConfig::parse_pass_list(list).map_err(|e| format!("--passes: {e}"))?);
        }
        config.print_after_all = self.print_after_all;
        for p in &self.print_after {
            config
                .add_print_after(p)
                .map_err(|e| format!("--print-after: {e}"))?;
        }
        config.print_changed = self.print_changed;
        config.time_passes = self.time_passes;
        config.fastmath = self.fastmath;
        for spec in &self.opt_limit {
            config.add_opt_limit(spec).map_err(|e| e.to_string())?;
        }
        Ok(config)
    }

    /// Whether anything asks for a pass report to be printed.
    pub fn wants_report(&self) -> bool {
        self.print_after_all
            || !self.print_after.is_empty()
            || self.print_changed
            || self.time_passes
    }

    /// Takes one optimization flag written after the ARGs (see `run::take_trailing_options`):
    /// `flag` is the word (the part before `=` for `--x=v`), `inline` the part after `=`, `rest`
    /// the words that follow. `None` when `flag` is not an optimization flag.
    pub fn take_trailing(
        &mut self,
        flag: &str,
        inline: Option<String>,
        rest: &mut dyn Iterator<Item = String>,
    ) -> Option<Result<(), String>> {
        let mut value = |inline: Option<String>| {
            inline
                .or_else(|| rest.next())
                .ok_or_else(|| format!("option `{flag}` needs a value"))
        };
        let r = match flag {
            "--print-after-all" => {
                self.print_after_all = true;
                Ok(())
            }
            "--print-changed" => {
                self.print_changed = true;
                Ok(())
            }
            "--time-passes" => {
                self.time_passes = true;
                Ok(())
            }
            "--fastmath" => {
                self.fastmath = true;
                Ok(())
            }
            "-O" | "--opt-level" => {
                value(inline).and_then(|v| parse_level(&v).map(|l| self.level = Some(l)))
            }
            // `-O2`: the short flag with its value attached.
            f if f.starts_with("-O") => parse_level(&f[2..]).map(|l| self.level = Some(l)),
            "--passes" => value(inline).map(|v| self.passes = Some(v)),
            "--print-after" => value(inline).map(|v| self.print_after.push(v)),
            "--opt-limit" => value(inline).map(|v| self.opt_limit.push(v)),
            _ => return None,
        };
        Some(r)
    }
}

/// Prints to stderr what `args` asked to see of a pipeline run (`title` names the
/// specialization): the IR dumps, then the statistics with timings. A pass whose output failed
/// to verify (a compiler bug; the pass was undone) is always reported.
pub fn print_report(args: &OptArgs, title: &str, report: &PassReport) {
    if !args.wants_report() && report.verify_failure.is_none() {
        return;
    }
    eprintln!("; ==== passes on {title} ====");
    eprint!("{}", report.dumps());
    if args.time_passes || report.verify_failure.is_some() {
        eprint!("{}", report.render(args.time_passes));
    }
}
