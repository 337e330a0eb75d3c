//! The IR of pyjit: typed SSA values, ops in arenas, structured control flow as ops owning regions.
