//! Walking the typed references and formulas inside items: validation, where-used, rename
//! and formula compilation all use this one walk.

use std::collections::BTreeMap;
use std::fmt;

use super::{Expr, Id, Item, Kind};

/// One step of a path from an item's root to one of its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A named struct field.
    Field(&'static str),
    /// An element of a list.
    Index(usize),
    /// An entry of a map with string keys.
    Key(String),
}

/// Where a value sits inside an item, e.g. `next_acts[2].act`; displayed as in RON.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(pub Vec<PathSegment>);

impl FieldPath {
    /// The item root.
    pub fn root() -> Self {
        Self(Vec::new())
    }

    /// This path extended by one field.
    #[must_use]
    pub fn field(mut self, name: &'static str) -> Self {
        self.0.push(PathSegment::Field(name));
        self
    }

    /// This path extended by one list index.
    #[must_use]
    pub fn index(mut self, at: usize) -> Self {
        self.0.push(PathSegment::Index(at));
        self
    }

    /// Appends a segment in place.
    pub fn push(&mut self, segment: PathSegment) {
        self.0.push(segment);
    }

    /// Removes the last segment in place.
    pub fn pop(&mut self) {
        self.0.pop();
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, segment) in self.0.iter().enumerate() {
            match segment {
                PathSegment::Field(name) if n == 0 => f.write_str(name)?,
                PathSegment::Field(name) => write!(f, ".{name}")?,
                PathSegment::Index(at) => write!(f, "[{at}]")?,
                PathSegment::Key(key) => write!(f, "[{key:?}]")?,
            }
        }
        Ok(())
    }
}

/// Receives every reference and formula of an item, read-only.
pub trait Visitor {
    /// `slug` names an item of kind `target`, found at `path`.
    fn reference(&mut self, path: &FieldPath, target: Kind, slug: &str) {
        let _ = (path, target, slug);
    }
    /// A formula found at `path`.
    fn expr(&mut self, path: &FieldPath, expr: &Expr) {
        let _ = (path, expr);
    }
}

/// Receives every reference and formula of an item, with the right to rewrite them.
pub trait VisitorMut {
    /// `slug` names an item of kind `target`, found at `path`.
    fn reference(&mut self, path: &FieldPath, target: Kind, slug: &mut String) {
        let _ = (path, target, slug);
    }
    /// A formula found at `path`.
    fn expr(&mut self, path: &FieldPath, expr: &mut Expr) {
        let _ = (path, expr);
    }
    /// After `reference`: another copy of the id's text for the id to share (interning), if
    /// the visitor has one. Ids that share their text compare by address.
    fn shared(&mut self, target: Kind, slug: &str) -> Option<std::sync::Arc<str>> {
        let _ = (target, slug);
        None
    }
}

/// Anything that may contain typed references or formulas.
pub trait Walk {
    /// Calls `visitor` for every reference and formula, with its path below `path`.
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor);
    /// Calls `visitor` for every reference and formula, allowing it to rewrite them.
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut);
}

impl<K: Item> Walk for Id<K> {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        visitor.reference(path, K::KIND, self.as_str());
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        let mut slug = self.as_str().to_owned();
        visitor.reference(path, K::KIND, &mut slug);
        self.set(&slug);
        if let Some(shared) = visitor.shared(K::KIND, self.as_str()) {
            self.share(&shared);
        }
    }
}

impl Walk for Expr {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        visitor.expr(path, self);
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        visitor.expr(path, self);
    }
}

impl<T: Walk> Walk for Option<T> {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        if let Some(inner) = self {
            inner.walk(path, visitor);
        }
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        if let Some(inner) = self {
            inner.walk_mut(path, visitor);
        }
    }
}

impl<T: Walk> Walk for Vec<T> {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        for (at, inner) in self.iter().enumerate() {
            path.push(PathSegment::Index(at));
            inner.walk(path, visitor);
            path.pop();
        }
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        for (at, inner) in self.iter_mut().enumerate() {
            path.push(PathSegment::Index(at));
            inner.walk_mut(path, visitor);
            path.pop();
        }
    }
}

impl<T: Walk> Walk for BTreeMap<String, T> {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        for (key, inner) in self {
            path.push(PathSegment::Key(key.clone()));
            inner.walk(path, visitor);
            path.pop();
        }
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        for (key, inner) in self.iter_mut() {
            path.push(PathSegment::Key(key.clone()));
            inner.walk_mut(path, visitor);
            path.pop();
        }
    }
}

/// Visits the references and formulas of a whole item from its root.
pub fn walk_item<T: Walk>(item: &T, visitor: &mut dyn Visitor) {
    item.walk(&mut FieldPath::root(), visitor);
}

/// Implements [`Walk`] for a struct by listing the fields that may hold references or
/// formulas; one list serves both the read-only and the rewriting walk.
macro_rules! impl_walk {
    ($ty:ty { $($field:ident),* $(,)? }) => {
        impl $crate::model::walk::Walk for $ty {
            #[allow(unused_variables)] // structs without walkable fields never touch path or visitor
            fn walk(
                &self,
                path: &mut $crate::model::walk::FieldPath,
                visitor: &mut dyn $crate::model::walk::Visitor,
            ) {
                $(
                    path.push($crate::model::walk::PathSegment::Field(stringify!($field)));
                    $crate::model::walk::Walk::walk(&self.$field, path, visitor);
                    path.pop();
                )*
            }
            #[allow(unused_variables)] // structs without walkable fields never touch path or visitor
            fn walk_mut(
                &mut self,
                path: &mut $crate::model::walk::FieldPath,
                visitor: &mut dyn $crate::model::walk::VisitorMut,
            ) {
                $(
                    path.push($crate::model::walk::PathSegment::Field(stringify!($field)));
                    $crate::model::walk::Walk::walk_mut(&mut self.$field, path, visitor);
                    path.pop();
                )*
            }
        }
    };
}
pub(crate) use impl_walk;
