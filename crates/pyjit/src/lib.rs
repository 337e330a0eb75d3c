//! The facade users link.
