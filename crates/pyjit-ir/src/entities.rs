//! Typed indices of the IR, in Cranelift's vocabulary: `u32` newtypes that index `PrimaryMap`s.

use cranelift_entity::entity_impl;

/// An SSA value: an op result or a region parameter. Indexes [`crate::Function::values`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An operation. Indexes [`crate::Function::ops`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op(u32);
entity_impl!(Op, "op");

/// A region: an ordered list of ops with parameters. Indexes [`crate::Function::regions`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "region");

/// A function of a [`crate::Module`]. Indexes [`crate::Module::funcs`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "func");
