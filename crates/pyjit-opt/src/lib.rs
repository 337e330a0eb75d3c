//! The middle end: IR-to-IR passes. Signature specialization ([`mod@specialize`]) refines the generic
//! tensor types of scripted IR for one call signature using the runtime schema's inference rules;
//! the optimization passes ([`passes`]: constant folding, DCE, CSE, algebraic simplification,
//! inlining, LICM, unrolling, canonicalization) run under the pass manager ([`manager`]: `-O0`,
//! `-O1`, `-O2` pipelines, explicit pass lists, print-after, timings, `--opt-limit`). See
//! docs/passes.md.
//!
//! Passes never change what a program computes; they only add facts (types) or rewrite into
//! equivalent IR, and every pass's output verifies. This layer never runs user code and never
//! panics on verified input.

pub mod fastmath;
pub mod manager;
pub mod passes;
pub mod specialize;

pub use fastmath::lower_fastmath;
pub use manager::{OptLevel, PassReport, PipelineConfig, run_pipeline, run_pipeline_from};
pub use specialize::{SpecializeError, join, specialize};
