//! `pyjit graph FILE.py [-f NAME] [--mode script|trace] [--compare] [-o OUT.svg|OUT.dot]
//! [--format svg|dot] [-O0|-O1|-O2 ...] [ARG]...`: draw a function's graph. Scripted (the
//! default), it is the IR `pyjit compile` prints for the same ARGs (specialized and optimized when
//! ARGs are given); traced (`--mode trace`), the trace `pyjit trace` records, guards highlighted;
//! `--compare` draws both side by side. SVG is drawn in-process (pyjit-graph, no Graphviz
//! needed); DOT is for Graphviz users. Without `-o` the picture goes to stdout.
//!
//! Exit status: 0 success, 1 the program does not compile or cannot be traced, 2 the traced call
//! raised, 64 bad usage.

use crate::compile::{CompileArgs, Emit};
use crate::opt::OptArgs;
use crate::run::{Target, Trailing, parse_choice};
use clap::{Args, ValueEnum};
use pyjit::Backend;
use pyjit::traced::{TraceOptions, TracedProgram, dynamic_call};
use pyjit_graph::Graph;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use pyjit::user_facing_name as user_name;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Svg,
    Dot,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphMode {
    /// The scripted graph: both branches of every `if`, loops kept.
    Script,
    /// The traced graph: the path the ARGs took, with its guards.
    Trace,
}

#[derive(Args, Clone)]
pub struct GraphArgs {
    #[command(flatten)]
    pub target: Target,
    /// Which graph: scripted or traced.
    #[arg(long, value_enum, default_value = "script")]
    pub mode: GraphMode,
    /// Draw the scripted and the traced graph of the same call side by side.
    #[arg(long)]
    pub compare: bool,
    /// Write the picture to OUT (`.svg` or `.dot`) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// The format (default: from OUT's extension, else svg).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub opt: OptArgs,
}

/// Options written after the first ARG (see `run::take_trailing_options`).
fn take_trailing_options(args: &mut GraphArgs) -> Result<(), String> {
    Trailing::new(&mut args.target)
        .output(&mut args.output)
        .opt(&mut args.opt)
        .switch("--compare", &mut args.compare)
        .take(&["--mode", "--format"], |flag, value| {
            match flag {
                "--mode" => args.mode = parse_choice("--mode", &value)?,
                _ => args.format = Some(parse_choice("--format", &value)?),
            }
            Ok(())
        })
}

/// The scripted graph (specialized and optimized for the ARGs, when there are some).
fn scripted(args: &GraphArgs) -> Result<Graph, u8> {
    let c = CompileArgs {
        target: args.target.clone(),
        emit: Emit::Ir,
        opt: args.opt.clone(),
        save: None,
    };
    let (_, module, id, _) = crate::compile::prepare(&c)?;
    let name = user_name(&module.func(id).name).to_string();
    Ok(Graph::of_function(&module, id, format!("scripted: {name}")))
}

/// The traced graph of the call on the ARGs.
fn traced(args: &GraphArgs) -> Result<Graph, u8> {
    let file = crate::run::read_source(&args.target.file)?;
    let ast = crate::run::parse_source(&file)?;
    let call = crate::usage(dynamic_call(
        &file,
        &ast,
        args.target.function.as_deref(),
        &args.target.args,
        Path::new("."),
    ))?;
    let mut program = TracedProgram::new(
        file.clone(),
        ast,
        &call.name,
        TraceOptions::default(),
        Backend::Interp,
    );
    // What the traced call prints is not part of the picture.
    let result = program.call_to(call.args, &mut std::io::sink());
    for w in &program.warnings {
        eprint!("{}", w.render(&file));
    }
    let traces = program.traces();
    let Some(t) = traces.first() else {
        if let Err(e) = result {
            eprint!("{}", e.to_diagnostic().render(&file));
        }
        eprintln!("error: {}() could not be traced", call.name);
        return Err(crate::EXIT_PROGRAM_ERROR);
    };
    let guards = t.guards.len();
    let title = format!(
        "traced: {} ({guards} guard{})",
        call.name,
        if guards == 1 { "" } else { "s" }
    );
    Ok(Graph::of_function(&t.module, t.func, title))
}

pub fn run(args: &GraphArgs) -> u8 {
    let args = match crate::run::take_options(args, take_trailing_options, |a| &a.opt) {
        Ok((args, _)) => args,
        Err(code) => return code,
    };
    let format = match (args.format, &args.output) {
        (Some(f), _) => f,
        (None, Some(p)) if p.extension().is_some_and(|e| e == "dot" || e == "gv") => Format::Dot,
        _ => Format::Svg,
    };
    if (args.compare || args.mode == GraphMode::Trace) && args.target.args.is_empty() {
        eprintln!("error: tracing runs the function: give its ARGs");
        return crate::EXIT_USAGE;
    }
    let graphs = if args.compare {
        scripted(&args).and_then(|s| traced(&args).map(|t| vec![s, t]))
    } else if args.mode == GraphMode::Trace {
        traced(&args).map(|t| vec![t])
    } else {
        scripted(&args).map(|s| vec![s])
    };
    let graphs = match graphs {
        Ok(g) => g,
        Err(code) => return code,
    };
    let text = match format {
        Format::Dot => pyjit_graph::to_dot(&graphs),
        Format::Svg => match pyjit_graph::to_svg(&graphs) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return crate::EXIT_PROGRAM_ERROR;
            }
        },
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return crate::EXIT_USAGE;
            }
            0
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            0
        }
    }
}
