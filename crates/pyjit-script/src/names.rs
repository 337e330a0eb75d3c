//! Module-level names: the imports LANGUAGE.md allows and the canonical dotted names they bind.

use std::collections::HashMap;

/// What the module's imports bind: local name → canonical dotted path
/// (`F` → `torch.nn.functional`, `np` → `numpy`, `Tensor` → `torch.Tensor`, `List` → `typing.List`).
#[derive(Clone, Debug, Default)]
pub struct Imports {
    pub bound: HashMap<String, String>,
}

impl Imports {
    /// The canonical dotted name of `dotted` (its first component replaced by what it was imported
    /// as), or `None` when the first component is not an imported name.
    pub fn canonical(&self, dotted: &str) -> Option<String> {
        let (first, rest) = match dotted.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (dotted, None),
        };
        let base = self.bound.get(first)?;
        Some(match rest {
            Some(r) => format!("{base}.{r}"),
            None => base.clone(),
        })
    }

    /// Maps a type name as written to one of `Tensor int float bool str None List Tuple Optional
    /// Dict`, or `None` if it is not a type name.
    pub(crate) fn resolve_type_name(&self, dotted: &str) -> Option<String> {
        let canon = self.canonical(dotted).unwrap_or_else(|| dotted.to_string());
        let t = match canon.as_str() {
            "torch.Tensor" | "numpy.ndarray" | "Tensor" => "Tensor",
            "int" => "int",
            "float" => "float",
            "bool" => "bool",
            "str" => "str",
            "torch.dtype" => "dtype",
            "torch.device" => "Device",
            "None" => "None",
            // Bare `List` & co. are accepted even without the import: with
            // `from __future__ import annotations` Python never evaluates them.
            "typing.List" | "List" | "list" => "List",
            "typing.Tuple" | "Tuple" | "tuple" => "Tuple",
            "typing.Optional" | "Optional" => "Optional",
            "typing.Dict" | "Dict" | "dict" => "Dict",
            "typing.Any" | "Any" => "Any",
            "typing.Union" | "Union" => "Union",
            _ => return None,
        };
        Some(t.to_string())
    }
}
