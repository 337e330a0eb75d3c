//! Pictures of pyjit graphs. [`Graph::of_function`] turns one IR function into the graph both
//! renderers draw: one node per op with its source line, one edge per use of a value labelled
//! with its type, `if`/`loop` regions as nested clusters, the tracer's guards highlighted.
//! [`to_dot`] writes Graphviz DOT; [`to_svg`] draws SVG in-process (layout-rs; no Graphviz
//! needed). Both take several graphs, drawn side by side (`pyjit graph --compare`).
//!
//! This crate only reads the IR (and the module's source file, for lines and snippets).

mod dot;
mod model;
mod python;
mod svg;

pub use dot::to_dot;
pub use model::{Cluster, ClusterId, ClusterKind, Edge, Graph, Item, Node, NodeId, NodeKind};
pub use python::to_python;
pub use svg::to_svg;
