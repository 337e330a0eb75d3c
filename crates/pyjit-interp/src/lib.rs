//! The reference interpreter of the IR.
