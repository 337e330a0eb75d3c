//! IR-to-IR passes. For now: signature specialization ([`specialize`]), which refines the generic
//! tensor types of scripted IR for one call signature using the runtime schema's inference rules.
//!
//! Passes never change what a program computes; they only add facts (types) or rewrite into
//! equivalent IR, and every pass's output verifies. This layer never runs user code and never
//! panics on verified input.

pub mod manager;
pub mod passes;
pub mod specialize;

pub use manager::{OptLevel, PassReport, PipelineConfig, run_pipeline};
pub use specialize::{SpecializeError, join, specialize};
